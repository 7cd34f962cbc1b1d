/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scatter in one step: the root sends each rank its block straight from its place in the input
 * (all sends posted at once); every other rank receives straight into its output.
 *
 *   4 ranks, root 0:   0->1 [B]  0->2 [C]  0->3 [D]   (at once)
 *
 * No copy at any rank (the root's own block aside, made while the others read theirs) and no
 * rotation for any root; one step on the critical path where a binomial tree has log2(ranks),
 * each of which waits for the scheduler when ranks share CPUs. The root sends every message at
 * once: for few ranks.
 */
#include "config.h"

#include "coll.h"

rcmsg_status_t rcmsg_coll_scatter_linear(const rcmsg_coll_args_t *a)
{
    size_t block = a->count * a->esize;
    const char *own = (const char *)a->sbuf + (size_t)a->root * block;
    rcmsg_coll_copy_t copy = {.dst = a->rbuf, .src = own, .len = block};

    if (a->rank != a->root) {
        return rcmsg_coll_recv(a, a->rbuf, block, a->root);
    }
    /* the root's own block, copied while the others read theirs */
    return rcmsg_coll_linear_root(a, false, (char *)a->sbuf, block, block, &copy);
}
