/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hwloc placement on each node of a two-node job (test/integration/nodes/nodes_numa.sh): each
 * rank reads its own node's shape (NUMA nodes, its CPU binding) and asserts that btl_rc's
 * receive pool is bound to the NUMA node of its binding and that the kernel put the pages
 * there (hwloc_get_area_memlocation). Prints one line per rank:
 *   rank R: host H: N NUMA node(s), bound to NUMA node B, pool bound to node P, pages on node(s) S
 * and "rank R: 0 failure(s)" when its checks held (else FAIL lines, exit 1). Needs rc peers.
 */
#include "config.h"

#include "base/topo.h"
#include "btl_rc/rc_btl.h"
#include "core/core.h"

#include <hwloc.h>
#include <rcmsg.h>
#include <stdio.h>
#include <unistd.h>

/* The pool's pages are on exactly the NUMA node `want` of the topology. */
static int pages_on(hwloc_topology_t topo, void *addr, size_t len, int want, char *buf, size_t n)
{
    hwloc_bitmap_t where = hwloc_bitmap_alloc();
    hwloc_obj_t numa = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)want);
    int ok = 0;

    if (where != NULL &&
        hwloc_get_area_memlocation(topo, addr, len, where, HWLOC_MEMBIND_BYNODESET) == 0) {
        hwloc_bitmap_list_snprintf(buf, n, where);
        ok = numa != NULL && hwloc_bitmap_isequal(where, numa->nodeset);
    } else {
        snprintf(buf, n, "(hwloc_get_area_memlocation failed)");
    }
    hwloc_bitmap_free(where);
    return ok;
}

int main(void)
{
    hwloc_topology_t topo;
    rcmsg_btl_t *rc_btl;
    int failures = 0, rank, bound, node, nnuma;
    char host[64] = "?", pages[64];
    size_t len;
    void *addr;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (rcmsg_init() != RCMSG_OK) {
        printf("FAIL: rcmsg_init failed\n");
        return 1;
    }
    rank = rcmsg_rank();
    rc_btl = rcmsg_wireup_btl(rcmsg_core_wireup(), "rc");
    if (rc_btl == NULL) {
        printf("SKIP: no rc transport (no rank on another node)\n");
        rcmsg_finalize();
        return 77;
    }
    topo = rcmsg_topo_get();
    gethostname(host, sizeof(host) - 1);
    nnuma = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    bound = rcmsg_topo_bound_numa();
    rcmsg_rc_btl_buffers(rc_btl, &addr, &len, &node);
    if (!pages_on(topo, addr, len, bound < 0 ? 0 : bound, pages, sizeof(pages))) {
        printf("FAIL: rank %d: pool pages on node(s) %s, not on NUMA node %d only\n", rank, pages,
               bound);
        failures++;
    }
    printf("rank %d: host %s: %d NUMA node(s), bound to NUMA node %d, pool bound to node %d, "
           "pages on node(s) %s\n",
           rank, host, nnuma, bound, node, pages);
    if (bound < 0 || node != bound) {
        printf("FAIL: rank %d: bound to NUMA node %d, its pool to node %d\n", rank, bound, node);
        failures++;
    }
    if (rcmsg_finalize() != RCMSG_OK) {
        printf("FAIL: rank %d: rcmsg_finalize failed\n", rank);
        failures++;
    }
    printf("rank %d: %d failure(s)\n", rank, failures);
    return failures != 0;
}
