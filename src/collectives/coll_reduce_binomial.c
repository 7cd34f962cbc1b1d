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
 * on the operand order.) A leaf sends its input as it is, and the first child's reduce writes
 * the accumulator: the input is never copied first.
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_reduce_binomial(const rcmsg_coll_args_t *a)
{
    int n = a->size, v = (a->rank - a->root + n) % n;
    size_t bytes = a->count * a->esize;
    const char *own = a->sbuf; /* what this rank sends up: its input, or acc once reduced */
    char *acc, *tmp;
    rcmsg_status_t s = RCMSG_OK;

    if (v != 0 && rcmsg_coll_subtree(v, n) == 1) { /* a leaf: its input as it is */
        return rcmsg_coll_send(a, a->sbuf, bytes, (v - (v & -v) + a->root) % n);
    }
    /* the root accumulates in its result buffer, every other rank in scratch */
    tmp = rcmsg_coll_scratch_get(a, v == 0 ? bytes : 2 * bytes);
    if (tmp == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    acc = v == 0 ? a->rbuf : tmp + bytes;
    for (int mask = 1; mask < n && s == RCMSG_OK; mask <<= 1) {
        if (v & mask) {
            s = rcmsg_coll_send(a, own, bytes, (v - mask + a->root) % n);
            break;
        }
        if (v + mask < n) {
            s = rcmsg_coll_recv(a, tmp, bytes, (v + mask + a->root) % n);
            if (s == RCMSG_OK) { /* acc = child op own: the first child's reduce copies too */
                s = rcmsg_coll_reduce_local3(a, tmp, own, acc, a->count);
                own = acc;
            }
        }
    }
    if (s == RCMSG_OK && v == 0 && own != acc) { /* no child: one rank */
        memmove(acc, own, bytes);
    }
    rcmsg_coll_scratch_put(a, tmp);
    return s;
}
