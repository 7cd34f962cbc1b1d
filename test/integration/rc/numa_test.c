/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where btl_rc's receive buffers live: run bound to one NUMA node (hwloc-bind node:N), the
 * pool must be on node N (asked of the kernel with hwloc_get_area_memlocation). Needs an rc
 * transport, so at least 2 ranks; prints one line per rank.
 */
#include "config.h"

#include "base/topo.h"
#include "btl_rc/rc_btl.h"
#include "core/core.h"

#include <hwloc.h>
#include <rcmsg.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int want = argc > 1 ? atoi(argv[1]) : -1, rc = 0, node;
    hwloc_bitmap_t where;
    rcmsg_wireup_t *w;
    rcmsg_btl_t *rc_btl;
    size_t len;
    void *addr;
    char buf[64];

    if (rcmsg_init() != RCMSG_OK) {
        return 1;
    }
    w = rcmsg_core_wireup();
    rc_btl = rcmsg_wireup_btl(w, "rc");
    if (rc_btl == NULL) {
        printf("SKIP: no rc transport (run with at least 2 ranks)\n");
        rcmsg_finalize();
        return 77;
    }
    rcmsg_rc_btl_buffers(rc_btl, &addr, &len, &node);
    where = hwloc_bitmap_alloc();
    if (hwloc_get_area_memlocation(rcmsg_topo_get(), addr, len, where, HWLOC_MEMBIND_BYNODESET) !=
        0) {
        printf("FAIL: hwloc_get_area_memlocation failed\n");
        rc = 1;
    } else {
        hwloc_obj_t numa = hwloc_get_obj_by_type(rcmsg_topo_get(), HWLOC_OBJ_NUMANODE,
                                                 (unsigned)(want >= 0 ? want : 0));
        hwloc_bitmap_list_snprintf(buf, sizeof(buf), where);
        printf("rank %d: %zu-byte receive pool bound to node %d, pages on node(s) %s\n",
               rcmsg_rank(), len, node, buf);
        if (want >= 0 &&
            (node != want || numa == NULL || !hwloc_bitmap_isequal(where, numa->nodeset))) {
            printf("FAIL: rank %d: pool expected on node %d only\n", rcmsg_rank(), want);
            rc = 1;
        }
    }
    hwloc_bitmap_free(where);
    if (rcmsg_finalize() != RCMSG_OK) {
        rc = 1;
    }
    return rc;
}
