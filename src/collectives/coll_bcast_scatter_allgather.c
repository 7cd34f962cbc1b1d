/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Broadcast of long messages (van de Geijn): the root scatters the message in size pieces
 * down a binomial tree, then a ring allgather puts every piece everywhere. About 2x the
 * message crosses each link instead of log2(size)x.
 *
 *   scatter (relative ranks)      ring allgather, size - 1 steps
 *   0: [A B C D] -> 2 gets [C D]   step 1: 0->1 A  1->2 B  2->3 C  3->0 D
 *   0: [A B]     -> 1 gets [B]     step 2: 0->1 D  1->2 A  2->3 B  3->0 C
 *   2: [C D]     -> 3 gets [D]     step 3: 0->1 C  1->2 D  2->3 A  3->0 B
 *
 * Pieces are byte ranges (some may be empty when the message is shorter than size bytes).
 */
#include "config.h"

#include "coll.h"

rcmsg_status_t rcmsg_coll_bcast_scatter_allgather(const rcmsg_coll_args_t *a)
{
    int n = a->size, v = (a->rank - a->root + n) % n;
    size_t bytes = a->count * a->esize, *off;
    int *ranks;
    char *buf = a->rbuf;
    rcmsg_status_t s;

    off = rcmsg_coll_scratch_get(a, (size_t)(n + 1) * sizeof(*off) + (size_t)n * sizeof(*ranks));
    if (off == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    ranks = (int *)(off + n + 1);
    for (int i = 0; i <= n; i++) {
        off[i] = rcmsg_coll_block_off(bytes, n, i);
        if (i < n) {
            ranks[i] = (i + a->root) % n;
        }
    }
    /* relative piece i is at off[i] in the buffer itself: no rotation needed */
    s = rcmsg_coll_scatter_rel(a, v, n, ranks, buf + off[v], off, NULL);
    for (int step = 0; step < n - 1 && s == RCMSG_OK; step++) {
        int sp = (v - step + n) % n, rp = (v - step - 1 + n) % n;

        s = rcmsg_coll_sendrecv(a, buf + off[sp], off[sp + 1] - off[sp], ranks[(v + 1) % n],
                                buf + off[rp], off[rp + 1] - off[rp], ranks[(v - 1 + n) % n]);
    }
    return s;
}
