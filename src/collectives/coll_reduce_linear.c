/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce in one step: every rank sends its input as it is to the root, which receives all the
 * vectors at once into scratch (a block per rank) and combines them in the order of the ranks
 * relative to the root, whatever order they arrive in:
 *
 *   4 ranks, root 0:   1->0 [B]  2->0 [C]  3->0 [D]   (at once)
 *   root:              out = B op A;  out = C op out;  out = D op out
 *
 * One step on the critical path where a binomial tree has log2(ranks), each of which waits for
 * the scheduler when ranks share CPUs. The root holds (ranks - 1) vectors and does every
 * combination itself: for few ranks or short vectors. The combining order depends only on
 * the size and the root, so the result is the same from run to run (as binomial's, though not
 * bit for bit the same as binomial's in floating point).
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_reduce_linear(const rcmsg_coll_args_t *a)
{
    int n = a->size;
    size_t bytes = a->count * a->esize;
    char *scratch;
    rcmsg_status_t s;

    if (a->rank != a->root) {
        return rcmsg_coll_send(a, a->sbuf, bytes, a->root);
    }
    if (n == 1) {
        if (a->rbuf != a->sbuf) {
            rcmsg_coll_copy(a, a->rbuf, a->sbuf, bytes);
        }
        return RCMSG_OK;
    }
    /* block r of scratch takes rank r's vector (the root's own block is left unused) */
    scratch = rcmsg_coll_scratch_get(a, (size_t)n * bytes);
    if (scratch == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    s = rcmsg_coll_linear_root(a, true, scratch, bytes, bytes, NULL);
    for (int v = 1; v < n && s == RCMSG_OK; v++) { /* out = x(v) op out, out = x(0) at first */
        const char *x = scratch + (size_t)((a->root + v) % n) * bytes;

        s = rcmsg_coll_reduce_local3(a, x, v == 1 ? a->sbuf : a->rbuf, a->rbuf, a->count);
    }
    return s;
}
