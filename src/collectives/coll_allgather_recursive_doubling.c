/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allgather by recursive doubling, for short messages on a power-of-two number of ranks:
 * in the step of distance d every rank swaps everything it has (d blocks) with rank ^ d,
 * log2(size) steps. A non-power-of-two size is folded first: the extra ranks hand their
 * block to a neighbour, which then stands for two contiguous blocks, and get the whole
 * result back at the end.
 *
 *   4 ranks:   d=1: 0<->1  2<->3   (0,1 have A B; 2,3 have C D)
 *              d=2: 0<->2  1<->3   (everyone has A B C D)
 *   5 ranks:   fold 0->1; new ranks 0..3 = ranks 1 2 3 4 holding [A B] C D E;
 *              doubling as above; unfold 1->0
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_allgather_recursive_doubling(const rcmsg_coll_args_t *a)
{
    int pof2 = rcmsg_coll_pof2_floor(a->size), rem = a->size - pof2;
    int newrank = rcmsg_coll_fold_newrank(a->rank, rem);
    size_t block = a->count * a->esize, *off;
    char *buf = a->rbuf, *mine = buf + (size_t)a->rank * block;
    const void *first;
    rcmsg_status_t s = RCMSG_OK;

    off = rcmsg_coll_scratch_get(a, (size_t)(pof2 + 1) * sizeof(*off));
    if (off == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i <= pof2; i++) {
        off[i] = (size_t)rcmsg_coll_fold_first(i, rem) * a->count;
    }
    /* A rank that takes part from the first step sends its block straight from sbuf, and
     * ag_doubling copies it into rbuf after that step: the copy does not delay the exchange
     * nor write lines the partner read in the previous call just before it reads them. */
    first = a->rank >= 2 * rem && pof2 > 1 && a->sbuf != mine ? a->sbuf : NULL;
    if (first == NULL && a->sbuf != mine) {
        rcmsg_coll_copy(a, mine, a->sbuf, block);
    }
    if (a->rank < 2 * rem) { /* fold: the even rank's block joins the odd one's */
        s = a->rank % 2 == 0 ? rcmsg_coll_send(a, mine, block, a->rank + 1)
                             : rcmsg_coll_recv(a, mine - block, block, a->rank - 1);
    }
    if (s == RCMSG_OK && newrank >= 0) {
        s = rcmsg_coll_ag_doubling(a, newrank, pof2, rem, first, buf, off);
    }
    if (s == RCMSG_OK) {
        s = rcmsg_coll_fold_out(a, rem, buf, buf, (size_t)a->size * block);
    }
    return s;
}
