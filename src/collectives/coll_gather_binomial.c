/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gather up a binomial tree (ranks relative to the root): each rank collects its subtree's
 * blocks, contiguous in relative order, and sends them to its parent in one message.
 *
 *   relative ranks, 8 ranks:   step 1: 1->0 [B]  3->2 [D]  5->4 [F]  7->6 [H]
 *                              step 2: 2->0 [C D]  6->4 [G H]
 *                              step 3: 4->0 [E F G H]
 *
 * The root receives in relative order and rotates the blocks into rank order. A leaf (no
 * subtree below it) sends its input as it is: no copy.
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_gather_binomial(const rcmsg_coll_args_t *a)
{
    int n = a->size, v = (a->rank - a->root + n) % n, sub = rcmsg_coll_subtree(v, n);
    size_t block = a->count * a->esize, *off;
    int *ranks;
    char *buf, *scratch;
    rcmsg_status_t s;

    s = rcmsg_coll_rel_layout(a, (size_t)sub * block, &off, &ranks, &scratch);
    if (s != RCMSG_OK) {
        return s;
    }
    /* the root with rank 0 gathers in place; a leaf sends straight from its input; everyone
     * else in scratch */
    buf = (v == 0 && a->root == 0) ? a->rbuf : v != 0 && sub == 1 ? (char *)a->sbuf : scratch;
    if (buf != a->sbuf) {
        rcmsg_coll_copy(a, buf, a->sbuf, block);
    }
    s = rcmsg_coll_gather_rel(a, v, n, ranks, buf, off);
    if (s == RCMSG_OK && v == 0 && a->root != 0) {
        size_t head = (size_t)(n - a->root) * block; /* relative [0, n - root): ranks [root, n) */

        rcmsg_coll_copy(a, (char *)a->rbuf + (size_t)a->root * block, buf, head);
        rcmsg_coll_copy(a, a->rbuf, buf + head, (size_t)n * block - head);
    }
    return s;
}
