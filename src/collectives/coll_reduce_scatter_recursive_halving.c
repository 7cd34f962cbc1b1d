/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce-scatter (equal blocks) by recursive halving, for short messages: in the step of
 * distance d every rank sends the half of its current range its partner (rank ^ d) keeps
 * and reduces the half it keeps; log2(size) steps, about 1x the vector sent in all. A
 * non-power-of-two size is folded first (the extra ranks hand their vector to a neighbour,
 * which then reduces the blocks of both) and the neighbour returns the waiting rank's block.
 *
 *   4 ranks, blocks A B C D
 *   d=2: 0<->2  1<->3   0,1 reduce A B (send C D); 2,3 reduce C D (send A B)
 *   d=1: 0<->1  2<->3   0 reduces A, 1 B, 2 C, 3 D
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_reduce_scatter_recursive_halving(const rcmsg_coll_args_t *a)
{
    int pof2 = rcmsg_coll_pof2_floor(a->size), rem = a->size - pof2;
    int newrank = rcmsg_coll_fold_newrank(a->rank, rem);
    size_t block = a->count * a->esize, total = (size_t)a->size * a->count, meta, *off;
    char *buf, *tmp;
    const void *src;
    rcmsg_status_t s;

    meta = ((size_t)(pof2 + 1) * sizeof(*off) + 15) & ~15UL;
    off = rcmsg_coll_scratch_get(a, meta + 2 * total * a->esize);
    if (off == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    buf = (char *)off + meta;
    tmp = buf + total * a->esize;
    for (int i = 0; i <= pof2; i++) {
        off[i] = (size_t)rcmsg_coll_fold_first(i, rem) * a->count;
    }
    src = rcmsg_coll_local_input(a, pof2, rem, buf, total * a->esize);
    s = rcmsg_coll_fold_in(a, rem, buf, tmp, total);
    if (s == RCMSG_OK && newrank >= 0) {
        s = rcmsg_coll_rs_halving(a, newrank, pof2, rem, src, buf, tmp, off);
        if (s == RCMSG_OK) {
            rcmsg_coll_copy(a, a->rbuf, buf + (size_t)a->rank * block, block);
        }
    }
    if (s == RCMSG_OK) { /* the odd partner reduced the even rank's block too */
        s = rcmsg_coll_fold_out(a, rem, buf + (size_t)(a->rank & ~1) * block, a->rbuf, block);
    }
    return s;
}
