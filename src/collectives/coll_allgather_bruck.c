/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allgather by Bruck's algorithm, for short messages on any number of ranks: ceil(log2 size)
 * steps. Each rank keeps the blocks it has in rotated order (its own first); in the step of
 * distance d it sends its first min(d, size - d) blocks to rank - d and appends those of
 * rank + d. A final local rotation puts the blocks in rank order.
 *
 *   5 ranks, rank 0's buffer:  [A]          after d=1 (from 1): [A B]
 *   after d=2 (from 2): [A B C D]           after d=4 (from 4, one block): [A B C D E]
 *   rank 2 ends with [C D E A B] and rotates it to [A B C D E].
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_allgather_bruck(const rcmsg_coll_args_t *a)
{
    int n = a->size, r = a->rank;
    size_t block = a->count * a->esize, nb = (size_t)n * block;
    char *tmp;
    rcmsg_status_t s = RCMSG_OK;

    tmp = rcmsg_coll_scratch_get(a, nb);
    if (tmp == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    rcmsg_coll_copy(a, tmp, a->sbuf, block);
    for (int d = 1; d < n && s == RCMSG_OK; d *= 2) {
        size_t cnt = (size_t)(d < n - d ? d : n - d) * block;

        s = rcmsg_coll_sendrecv(a, tmp, cnt, (r - d + n) % n, tmp + (size_t)d * block, cnt,
                                (r + d) % n);
    }
    if (s == RCMSG_OK) { /* tmp[i] is rank (r + i) mod n's block */
        size_t head = (size_t)(n - r) * block;

        rcmsg_coll_copy(a, (char *)a->rbuf + (size_t)r * block, tmp, head);
        rcmsg_coll_copy(a, a->rbuf, tmp + head, nb - head);
    }
    return s;
}
