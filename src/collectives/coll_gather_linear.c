/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gather in one step: every rank sends its input as it is to the root, which receives each
 * block straight into its place in the result buffer (all receives posted at once).
 *
 *   4 ranks, root 0:   1->0 [B]  2->0 [C]  3->0 [D]   (at once)
 *
 * No copy at any rank (the root's own block aside) and no rotation for any root; one step on
 * the critical path where a binomial tree has log2(ranks), each of which waits for the
 * scheduler when ranks share CPUs. The root takes every message at once: for few ranks.
 */
#include "config.h"

#include "coll.h"

rcmsg_status_t rcmsg_coll_gather_linear(const rcmsg_coll_args_t *a)
{
    size_t block = a->count * a->esize;
    char *own = (char *)a->rbuf + (size_t)a->root * block;
    rcmsg_coll_copy_t copy = {.dst = own, .src = a->sbuf, .len = block};

    if (a->rank != a->root) {
        return rcmsg_coll_send(a, a->sbuf, block, a->root);
    }
    /* the root's own block, copied once the receives are posted (the others' data on its way) */
    return rcmsg_coll_linear_root(a, true, a->rbuf, block, block, &copy);
}
