/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce-scatter (equal blocks) of long messages by a ring: size - 1 steps; in each, every
 * rank passes a partial sum of one block to rank + 1, which adds its own contribution. The
 * partial sum of block b starts at rank b + 1 and ends, complete, at rank b.
 *
 *   3 ranks, blocks A B C          0 -> 1 -> 2 -> 0
 *   step 1: 0 sends C, 1 sends A, 2 sends B
 *   step 2: 0 sends B, 1 sends C, 2 sends A      (now 0 has A, 1 B, 2 C)
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_reduce_scatter_ring(const rcmsg_coll_args_t *a)
{
    int n = a->size, r = a->rank;
    size_t block = a->count * a->esize, nb = (size_t)n * block;
    char *buf, *tmp;
    rcmsg_status_t s = RCMSG_OK;

    buf = rcmsg_coll_scratch_get(a, nb + block);
    if (buf == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    tmp = buf + nb;
    rcmsg_coll_copy(a, buf, a->sbuf, nb);
    for (int step = 0; step < n - 1 && s == RCMSG_OK; step++) {
        size_t sb = (size_t)((r - step - 1 + 2 * n) % n), rb = (size_t)((r - step - 2 + 2 * n) % n);

        s = rcmsg_coll_sendrecv(a, buf + sb * block, block, (r + 1) % n, tmp, block,
                                (r - 1 + n) % n);
        if (s == RCMSG_OK) {
            s = rcmsg_coll_reduce_local(a, tmp, buf + rb * block, a->count);
        }
    }
    if (s == RCMSG_OK) {
        rcmsg_coll_copy(a, a->rbuf, buf + (size_t)r * block, block);
    }
    return s;
}
