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
 * on the operand order.)
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_reduce_binomial(const rcmsg_coll_args_t *a)
{
    int n = a->size, v = (a->rank - a->root + n) % n;
    size_t bytes = a->count * a->esize;
    char *acc, *tmp;
    rcmsg_status_t s = RCMSG_OK;

    /* the root accumulates in its result buffer, every other rank in scratch */
    tmp = rcmsg_coll_scratch_get(a, v == 0 ? bytes : 2 * bytes);
    if (tmp == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    acc = v == 0 ? a->rbuf : tmp + bytes;
    if (acc != a->sbuf) {
        memcpy(acc, a->sbuf, bytes);
    }
    for (int mask = 1; mask < n && s == RCMSG_OK; mask <<= 1) {
        if (v & mask) {
            s = rcmsg_coll_send(a, acc, bytes, (v - mask + a->root) % n);
            break;
        }
        if (v + mask < n) {
            s = rcmsg_coll_recv(a, tmp, bytes, (v + mask + a->root) % n);
            if (s == RCMSG_OK) {
                s = rcmsg_coll_reduce_local(a, tmp, acc, a->count);
            }
        }
    }
    rcmsg_coll_scratch_put(a, tmp);
    return s;
}
