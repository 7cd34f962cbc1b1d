/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_sm: ranks on the same node talk through shared memory.
 *
 * Each process owns one segment: an anonymous memfd (never a file in /dev/shm, so nothing is
 * left behind by a crash), which its local peers map through /proc/<pid>/fd/<fd> after the
 * address exchange. The segment holds one single-producer/single-consumer ring per local
 * sender: a sender copies header and payload into a cell of its ring in the receiver's
 * segment and publishes it with a release store; the receiver's progress() consumes cells in
 * order. get() is a single copy with process_vm_readv (CMA); where CMA is not permitted
 * (ptrace scope, containers) the sender copies chunks into a staging area of the receiver's
 * segment on request, and this is said at info level.
 */
#ifndef RCMSG_BTL_SM_H
#define RCMSG_BTL_SM_H

#include "btl/btl.h"

#include <stdint.h>

/* Opens this process's segment for a node with job->local_size ranks. */
rcmsg_status_t rcmsg_sm_btl_open(const rcmsg_btl_job_t *job, rcmsg_btl_t **btl_p);

/* A key naming this node (boot id and hostname): equal keys mean shared memory works. */
uint64_t rcmsg_sm_node_key(void);

/* Bytes of a packed sm address record (sm_segment.c states it of sm_addr_t). */
#define RCMSG_SM_ADDR_LEN 64

/* The node key a peer's sm address carries (0 when the address is malformed). */
uint64_t rcmsg_sm_addr_node_key(const void *addr, size_t len);

#endif /* RCMSG_BTL_SM_H */
