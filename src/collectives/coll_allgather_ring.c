/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allgather of long messages by a ring: size - 1 steps; in each, every rank passes the block
 * it received last to rank + 1. Every link carries one block per step: bandwidth-optimal.
 *
 *   4 ranks    step 1: 0->1 A  1->2 B  2->3 C  3->0 D
 *              step 2: 0->1 D  1->2 A  2->3 B  3->0 C
 *              step 3: 0->1 C  1->2 D  2->3 A  3->0 B
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_allgather_ring(const rcmsg_coll_args_t *a)
{
    int n = a->size, r = a->rank;
    size_t block = a->count * a->esize;
    char *buf = a->rbuf, *mine = buf + (size_t)r * block;
    rcmsg_status_t s = RCMSG_OK;

    /* the first step sends the block straight from sbuf; its copy into rbuf comes after, so
     * that it neither delays the step nor writes lines the peer read in the previous call */
    for (int step = 0; step < n - 1 && s == RCMSG_OK; step++) {
        size_t sb = (size_t)((r - step + n) % n), rb = (size_t)((r - step - 1 + n) % n);

        s = rcmsg_coll_sendrecv(a, step == 0 ? a->sbuf : buf + sb * block, block, (r + 1) % n,
                                buf + rb * block, block, (r - 1 + n) % n);
    }
    if (s == RCMSG_OK && a->sbuf != mine) {
        rcmsg_coll_copy(a, mine, a->sbuf, block);
    }
    return s;
}
