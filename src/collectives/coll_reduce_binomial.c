/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce up a binomial tree to the root (ranks relative to it), for short messages: each
 * rank reduces what its children send into its own vector, then sends it to its parent.
 *
 *   relative ranks, 8 ranks:
 *   step 1:  1->0  3->2  5->4  7->6
 *   step 2:  2->0  6->4
 *   step 3:  4->0
 *
 * The combining order depends only on the size and the root, so the result is the same on
 * every run with the same size and root; each rank applies (child op own). (Floating-point
 * sums round differently for another size or root; MIN/MAX of NaN or of -0.0 and +0.0 depend
 * on the operand order.) A leaf sends its input as it is. The first child's vector is received
 * straight into the accumulator (the root's result buffer, else scratch) and reduced there in
 * place (acc = acc op input, acc holding the child's vector): two vectors in cache, not three,
 * and no copy of the input. Later children arrive in scratch (acc = child op acc). In place at
 * the root the accumulator holds the input, so the first child goes through scratch too.
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_reduce_binomial(const rcmsg_coll_args_t *a)
{
    int n = a->size, v = (a->rank - a->root + n) % n, sub = rcmsg_coll_subtree(v, n);
    size_t bytes = a->count * a->esize;
    const char *own = a->sbuf; /* what this rank sends up: its input, or acc once reduced */
    char *acc = a->rbuf, *tmp = NULL, *scratch = NULL;
    /* a second child, or the root's input already in acc: a receive buffer besides acc */
    size_t tmp_bytes = sub > 2 || (sub > 1 && own == acc) ? bytes : 0;
    rcmsg_status_t s = RCMSG_OK;

    if (v != 0 && sub == 1) { /* a leaf: its input as it is */
        return rcmsg_coll_send(a, a->sbuf, bytes, (v - (v & -v) + a->root) % n);
    }
    /* the root accumulates in its result buffer, every other rank in scratch */
    if (tmp_bytes > 0 || v != 0) {
        scratch = rcmsg_coll_scratch_get(a, tmp_bytes + (v != 0 ? bytes : 0));
        if (scratch == NULL) {
            return RCMSG_ERR_NO_MEMORY;
        }
        tmp = scratch;
        acc = v == 0 ? a->rbuf : scratch + tmp_bytes;
    }
    for (int mask = 1; mask < n && s == RCMSG_OK; mask <<= 1) {
        if (v & mask) {
            s = rcmsg_coll_send(a, own, bytes, (v - mask + a->root) % n);
            break;
        }
        if (v + mask < n) {
            char *in = own == acc ? tmp : acc; /* the first child straight into acc */

            s = rcmsg_coll_recv(a, in, bytes, (v + mask + a->root) % n);
            if (s == RCMSG_OK) { /* acc = child op own */
                s = rcmsg_coll_reduce_local3(a, in, own, acc, a->count);
                own = acc;
            }
        }
    }
    if (s == RCMSG_OK && v == 0 && own != acc) { /* no child: one rank */
        rcmsg_coll_copy(a, acc, own, bytes);
    }
    return s;
}
