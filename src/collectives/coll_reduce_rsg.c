/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce of long messages (Rabenseifner): a reduce-scatter by recursive halving, then a
 * binomial gather of the reduced blocks to the root. About 2x the message crosses the
 * busiest link instead of log2(size)x. A non-power-of-two size is first folded: the extra
 * ranks hand their vector to a neighbour and wait.
 *
 *   4 ranks, blocks A B C D       fold (6 ranks -> 4):  0->1  2->3,
 *   halving d=2: 0<->2  1<->3     then new ranks 0..3 = ranks 1 3 4 5
 *     0,1 keep A B; 2,3 keep C D
 *   halving d=1: 0<->1  2<->3     gather (relative to the root's new rank):
 *     0:A 1:B 2:C 3:D reduced       1->0  3->2, then 2->0
 *
 * A root that waited in the fold gets the result from its partner at the end.
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_reduce_rsg(const rcmsg_coll_args_t *a)
{
    int pof2 = rcmsg_coll_pof2_floor(a->size), rem = a->size - pof2;
    int newrank = rcmsg_coll_fold_newrank(a->rank, rem);
    int rootnew = rcmsg_coll_fold_newrank(a->root, rem);
    int gatherer = a->root; /* the rank the gather ends at */
    size_t bytes = a->count * a->esize, meta, *off, *goff;
    int *ranks;
    char *buf, *tmp, *rel;
    const void *src;
    rcmsg_status_t s;

    if (rootnew < 0) { /* the root waits in the fold: its partner gathers */
        rootnew = rcmsg_coll_fold_newrank(a->root + 1, rem);
        gatherer = a->root + 1;
    }
    meta = ((size_t)(2 * pof2 + 2) * sizeof(*off) + (size_t)pof2 * sizeof(*ranks) + 15) & ~15UL;
    off = rcmsg_coll_scratch_get(a, meta + 3 * bytes);
    if (off == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    goff = off + pof2 + 1;
    ranks = (int *)(goff + pof2 + 1);
    buf = (char *)off + meta;
    tmp = buf + bytes;
    rel = tmp + bytes;
    src = rcmsg_coll_local_input(a, pof2, rem, buf, bytes);
    s = rcmsg_coll_fold_in(a, rem, buf, tmp, a->count);
    if (s != RCMSG_OK || newrank < 0) {
        goto out; /* a waiting rank is done unless it is the root */
    }
    for (int i = 0; i <= pof2; i++) {
        off[i] = rcmsg_coll_block_off(a->count, pof2, i);
    }
    s = rcmsg_coll_rs_halving(a, newrank, pof2, rem, src, buf, tmp, off);
    if (s != RCMSG_OK) {
        goto out;
    }
    /* gather in relative order: relative block j is block (j + rootnew) mod pof2 */
    goff[0] = 0;
    for (int j = 0; j < pof2; j++) {
        int b = (j + rootnew) % pof2;

        goff[j + 1] = goff[j] + (off[b + 1] - off[b]) * a->esize;
        ranks[j] = rcmsg_coll_fold_realrank(b, rem);
    }
    {
        int v = (newrank - rootnew + pof2) % pof2;
        size_t mine = off[newrank] * a->esize;

        rcmsg_coll_copy(a, rel, buf + mine, goff[v + 1] - goff[v]);
        s = rcmsg_coll_gather_rel(a, v, pof2, ranks, rel, goff);
        if (s != RCMSG_OK || v != 0) {
            goto out;
        }
        /* back to absolute order: relative [0, pof2 - rootnew) is blocks [rootnew, pof2) */
        rcmsg_coll_copy(a, buf + off[rootnew] * a->esize, rel, goff[pof2 - rootnew]);
        rcmsg_coll_copy(a, buf, rel + goff[pof2 - rootnew], goff[pof2] - goff[pof2 - rootnew]);
    }
    if (gatherer == a->root) {
        rcmsg_coll_copy(a, a->rbuf, buf, bytes);
    } else {
        s = rcmsg_coll_send(a, buf, bytes, a->root);
    }
out:
    if (s == RCMSG_OK && a->rank == a->root && gatherer != a->root) {
        s = rcmsg_coll_recv(a, a->rbuf, bytes, gatherer);
    }
    return s;
}
