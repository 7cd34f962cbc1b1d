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

#include <stdlib.h>
#include <string.h>

rcmsg_status_t rcmsg_coll_allreduce_recursive_doubling(const rcmsg_coll_args_t *a)
{
    int pof2 = rcmsg_coll_pof2_floor(a->size), rem = a->size - pof2;
    int newrank = rcmsg_coll_fold_newrank(a->rank, rem);
    size_t bytes = a->count * a->esize;
    char *buf = a->rbuf, *tmp, *scratch;
    rcmsg_status_t s;

    scratch = tmp = rcmsg_coll_alloc(a, bytes);
    if (tmp == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    if (a->sbuf != a->rbuf) {
        memcpy(buf, a->sbuf, bytes);
    }
    s = rcmsg_coll_fold_in(a, rem, buf, tmp, a->count);
    for (int d = 1; d < pof2 && newrank >= 0 && s == RCMSG_OK; d *= 2) {
        int peer = rcmsg_coll_fold_realrank(newrank ^ d, rem);

        s = rcmsg_coll_sendrecv(a, buf, bytes, peer, tmp, bytes, peer);
        if (s == RCMSG_OK && (newrank & d)) {
            s = rcmsg_coll_reduce_local(a, tmp, buf, a->count); /* theirs op mine */
        } else if (s == RCMSG_OK) {
            char *t = tmp;

            s = rcmsg_coll_reduce_local(a, buf, tmp, a->count); /* mine op theirs */
            tmp = buf;
            buf = t;
        }
    }
    if (s == RCMSG_OK && buf != a->rbuf) {
        memcpy(a->rbuf, buf, bytes);
    }
    if (s == RCMSG_OK) {
        s = rcmsg_coll_fold_out(a, rem, a->rbuf, a->rbuf, bytes);
    }
    free(scratch);
    return s;
}
