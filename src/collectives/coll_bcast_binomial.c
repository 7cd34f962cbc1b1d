/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Broadcast down a binomial tree rooted at the root (ranks relative to it), for short
 * messages: ceil(log2 size) steps, each carrying the whole message.
 *
 *   relative ranks, 8 ranks:      0
 *                              /  |  \
 *                             4   2   1
 *                            / \   \
 *                           6   5   3
 *                           |
 *                           7
 *
 * Rank v receives from v minus its lowest set bit, then sends to v + 2^k for every 2^k below
 * that bit (largest first), all at once: its children read at the same time.
 */
#include "config.h"

#include "coll.h"

rcmsg_status_t rcmsg_coll_bcast_binomial(const rcmsg_coll_args_t *a)
{
    int n = a->size, v = (a->rank - a->root + n) % n, mask = 1, nkids = 0;
    size_t bytes = a->count * a->esize;
    rcmsg_coll_msg_t kids[32];

    while (mask < n && !(v & mask)) {
        mask <<= 1;
    }
    if (v != 0) {
        rcmsg_status_t s = rcmsg_coll_recv(a, a->rbuf, bytes, (v - mask + a->root) % n);
        if (s != RCMSG_OK) {
            return s;
        }
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (v + mask < n) {
            kids[nkids++] =
                (rcmsg_coll_msg_t){.buf = a->rbuf, .len = bytes, .peer = (v + mask + a->root) % n};
        }
    }
    return rcmsg_coll_post_all(a, nkids, kids);
}
