/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Alltoall by pairwise exchange, for longer blocks: size - 1 steps; in step k every rank
 * sends its block for rank + k and receives the block of rank - k, so each step is a
 * permutation and no rank is flooded by everyone at once.
 *
 *   4 ranks    step 1: 0->1 1->2 2->3 3->0
 *              step 2: 0->2 1->3 2->0 3->1
 *              step 3: 0->3 1->0 2->1 3->2
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_alltoall_pairwise(const rcmsg_coll_args_t *a)
{
    int n = a->size, r = a->rank;
    size_t block = a->count * a->esize;
    const char *sbuf = a->sbuf;
    char *rbuf = a->rbuf;
    rcmsg_status_t s = RCMSG_OK;

    rcmsg_coll_copy(a, rbuf + (size_t)r * block, sbuf + (size_t)r * block, block);
    for (int k = 1; k < n && s == RCMSG_OK; k++) {
        int dst = (r + k) % n, src = (r - k + n) % n;

        s = rcmsg_coll_sendrecv(a, sbuf + (size_t)dst * block, block, dst,
                                rbuf + (size_t)src * block, block, src);
    }
    return s;
}
