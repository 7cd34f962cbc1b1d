/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allreduce by recursive doubling, for short messages: log2(pof2) exchanges of the whole
 * vector, each rank reducing what its partner sends. A non-power-of-two size is folded onto
 * pof2 ranks first and the waiting ranks get the result at the end.
 *
 *   6 ranks: fold 0->1 2->3          new ranks 0 1 2 3 = ranks 1 3 4 5
 *   d=1:  1<->3  4<->5               (new 0<->1, 2<->3)
 *   d=2:  1<->4  3<->5               (new 0<->2, 1<->3)
 *   unfold 1->0 3->2
 *
 * Both partners of an exchange compute (lower half's vector op upper half's vector): the same
 * operands in the same order, so every rank ends with the bitwise same result (even for
 * min/max of -0.0 and +0.0 or NaN, where operand order shows).
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_allreduce_recursive_doubling(const rcmsg_coll_args_t *a)
{
    int pof2 = rcmsg_coll_pof2_floor(a->size), rem = a->size - pof2;
    int newrank = rcmsg_coll_fold_newrank(a->rank, rem);
    size_t bytes = a->count * a->esize;
    char *buf = a->rbuf, *tmp;
    const char *mine = a->sbuf; /* this rank's vector so far */
    rcmsg_status_t s = RCMSG_OK;

    if (pof2 == 1 || a->rank < 2 * rem) {
        /* alone, or folded: the vector goes through rbuf from the start */
        if (a->sbuf != a->rbuf) {
            rcmsg_coll_copy(a, buf, a->sbuf, bytes);
        }
        mine = buf;
    }
    if (pof2 == 1) {
        return RCMSG_OK;
    }
    tmp = rcmsg_coll_scratch_get(a, bytes);
    if (tmp == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    s = rcmsg_coll_fold_in(a, rem, buf, tmp, a->count);
    /* The first exchange sends straight from sbuf and its reduction writes rbuf: no copy of
     * the input, and rbuf, which the partner reads in later steps, is not written while the
     * partner may still hold its lines from the previous call. */
    for (int d = 1; d < pof2 && newrank >= 0 && s == RCMSG_OK; d *= 2) {
        int peer = rcmsg_coll_fold_realrank(newrank ^ d, rem);

        s = rcmsg_coll_sendrecv(a, mine, bytes, peer, tmp, bytes, peer);
        if (s == RCMSG_OK) {
            /* lower half's vector op upper half's */
            s = (newrank & d) ? rcmsg_coll_reduce_local3(a, tmp, mine, buf, a->count)
                              : rcmsg_coll_reduce_local3(a, mine, tmp, buf, a->count);
            mine = buf;
        }
    }
    if (s == RCMSG_OK) {
        s = rcmsg_coll_fold_out(a, rem, a->rbuf, a->rbuf, bytes);
    }
    return s;
}
