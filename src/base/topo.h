/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The machine's hwloc topology, loaded once (with I/O devices, so that RDMA devices can be
 * located), and the NUMA node of the process's CPU binding.
 */
#ifndef RCMSG_BASE_TOPO_H
#define RCMSG_BASE_TOPO_H

#include <hwloc.h>
#include <rcmsg.h>

/* The topology, loaded on first use; NULL (logged) if hwloc cannot load it. */
hwloc_topology_t rcmsg_topo_get(void);
void rcmsg_topo_release(void);

/*
 * The NUMA node (logical index) the process is bound to: the single node whose cpuset
 * contains the whole binding. -1 when unbound or bound across several nodes.
 */
int rcmsg_topo_bound_numa(void);

#endif /* RCMSG_BASE_TOPO_H */
