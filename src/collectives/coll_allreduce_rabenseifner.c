/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allreduce of long messages (Rabenseifner): reduce-scatter by recursive halving, then
 * allgather by recursive doubling. Each rank sends and receives about 2x the vector in all,
 * instead of log2(size)x. A non-power-of-two size is folded onto pof2 ranks first.
 *
 *   4 ranks, vector in blocks A B C D
 *   halving d=2:  0<->2  1<->3   ranks 0,1 reduce A B; ranks 2,3 reduce C D
 *   halving d=1:  0<->1  2<->3   rank 0 owns A, 1 owns B, 2 owns C, 3 owns D
 *   doubling d=1: 0<->1  2<->3   0,1 have A B; 2,3 have C D
 *   doubling d=2: 0<->2  1<->3   everyone has A B C D
 *
 * Each block is reduced on one rank only and then copied, so every rank ends with the
 * bitwise same result.
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_allreduce_rabenseifner(const rcmsg_coll_args_t *a)
{
    int pof2 = rcmsg_coll_pof2_floor(a->size), rem = a->size - pof2;
    int newrank = rcmsg_coll_fold_newrank(a->rank, rem);
    size_t bytes = a->count * a->esize, *off;
    char *buf = a->rbuf, *tmp;
    const void *src;
    rcmsg_status_t s;

    off = rcmsg_coll_scratch_get(a, (size_t)(pof2 + 1) * sizeof(*off) + bytes);
    if (off == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    tmp = (char *)(off + pof2 + 1);
    for (int i = 0; i <= pof2; i++) {
        off[i] = rcmsg_coll_block_off(a->count, pof2, i);
    }
    src = rcmsg_coll_local_input(a, pof2, rem, buf, bytes);
    s = rcmsg_coll_fold_in(a, rem, buf, tmp, a->count);
    if (s == RCMSG_OK && newrank >= 0) {
        s = rcmsg_coll_rs_halving(a, newrank, pof2, rem, src, buf, tmp, off);
        if (s == RCMSG_OK) {
            s = rcmsg_coll_ag_doubling(a, newrank, pof2, rem, NULL, buf, off);
        }
    }
    if (s == RCMSG_OK) {
        s = rcmsg_coll_fold_out(a, rem, buf, buf, bytes);
    }
    return s;
}
