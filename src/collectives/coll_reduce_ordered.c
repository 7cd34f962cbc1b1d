/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reductions for any operation, non-commutative ones included: the ranks' values combine
 * in rank order, (((r0 op r1) op r2) ...), the lower ranks' partial result always the left
 * operand. A binomial tree over the ranks as they are (not rotated to the root): rank r's
 * subtree holds the ranks [r, r + 2^k), so a child's partial result is the right operand.
 *
 *     mask 1:  0 <- 1   2 <- 3   4 <- 5   6 <- 7
 *     mask 2:  0 <---- 2         4 <---- 6
 *     mask 4:  0 <------------- 4             then 0 -> root when root != 0
 *
 * allreduce: the reduce to rank 0, then a binomial bcast from it (also the algorithm
 * reduce_bcast of RCMSG_COLL_ALLREDUCE_ALGORITHM, for any op); reduce_scatter: the reduce
 * to rank 0, then a linear scatterv of the blocks (coll_v.c).
 */
#include "config.h"

#include "coll.h"

rcmsg_status_t rcmsg_coll_reduce_ordered(const rcmsg_coll_args_t *a)
{
    int n = a->size, r = a->rank;
    size_t bytes = a->count * a->esize;
    const char *acc = a->sbuf; /* this rank's partial result: its input, then a buffer */
    char *bufs[2] = {NULL, NULL};
    int cur = 0;
    rcmsg_status_t s = RCMSG_OK;

    if (r % 2 == 0 && r + 1 < n) { /* has a child: two buffers, received into in turn */
        bufs[0] = rcmsg_coll_scratch_get(a, 2 * bytes);
        if (bufs[0] == NULL) {
            return RCMSG_ERR_NO_MEMORY;
        }
        bufs[1] = bufs[0] + bytes;
    }
    for (int mask = 1; mask < n && s == RCMSG_OK; mask <<= 1) {
        if (r & mask) {
            s = rcmsg_coll_send(a, acc, bytes, r - mask);
            break;
        }
        if (r + mask < n) {
            char *in = bufs[cur];

            cur ^= 1;
            s = rcmsg_coll_recv(a, in, bytes, r + mask);
            if (s == RCMSG_OK) { /* in = acc op in: the lower ranks on the left */
                s = rcmsg_coll_reduce_local(a, acc, in, a->count);
                acc = in;
            }
        }
    }
    if (s == RCMSG_OK && r == 0) {
        s = a->root == 0 ? rcmsg_coll_copy(a, a->rbuf, acc, bytes)
                         : rcmsg_coll_send(a, acc, bytes, a->root);
    }
    if (s == RCMSG_OK && r == a->root && r != 0) {
        s = rcmsg_coll_recv(a, a->rbuf, bytes, 0);
    }
    return s;
}

rcmsg_status_t rcmsg_coll_allreduce_reduce_bcast(const rcmsg_coll_args_t *a)
{
    rcmsg_coll_args_t b = *a;
    rcmsg_status_t s;

    b.root = 0;
    s = rcmsg_coll_reduce_ordered(&b);
    return s == RCMSG_OK ? rcmsg_coll_bcast_binomial(&b) : s;
}

rcmsg_status_t rcmsg_coll_reduce_scatter_block_ordered(const rcmsg_coll_args_t *a)
{
    size_t *counts = rcmsg_coll_scratch_get(a, sizeof(*counts) * (size_t)a->size);
    rcmsg_coll_args_t b = *a;
    rcmsg_status_t s;

    if (counts == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < a->size; i++) {
        counts[i] = a->count;
    }
    b.rcounts = counts;
    s = rcmsg_coll_reduce_scatter_v(&b);
    return s;
}
