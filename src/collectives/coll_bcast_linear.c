/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Broadcast in one step: the root sends the whole message to every other rank at once.
 *
 *   4 ranks, root 0:   0->1  0->2  0->3   (at once)
 *
 * One step on the critical path where a binomial tree has log2(ranks): no rank waits for
 * another to forward, which matters most when ranks share CPUs (each forwarding waits for the
 * scheduler). The root sends the message size - 1 times: for few ranks.
 */
#include "config.h"

#include "coll.h"

rcmsg_status_t rcmsg_coll_bcast_linear(const rcmsg_coll_args_t *a)
{
    size_t bytes = a->count * a->esize;

    if (a->rank != a->root) {
        return rcmsg_coll_recv(a, a->rbuf, bytes, a->root);
    }
    return rcmsg_coll_linear_root(a, false, a->rbuf, bytes, 0, NULL);
}
