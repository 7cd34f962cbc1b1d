/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scatter down a binomial tree (ranks relative to the root): each rank receives its whole
 * subtree's blocks, contiguous in relative order, in one message, keeps its own and passes
 * the rest on.
 *
 *   relative ranks, 8 ranks:   step 1: 0->4 [E F G H]
 *                              step 2: 0->2 [C D]  4->6 [G H]
 *                              step 3: 0->1 [B]  2->3 [D]  4->5 [F]  6->7 [H]
 *
 * A root other than rank 0 first rotates the blocks into relative order. A leaf (no subtree
 * below it) receives straight into its output, and rank 0 as the root sends from its input:
 * no copy there. A rank's own block is copied to its output while its children read theirs.
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_scatter_binomial(const rcmsg_coll_args_t *a)
{
    int n = a->size, v = (a->rank - a->root + n) % n, sub = rcmsg_coll_subtree(v, n);
    size_t block = a->count * a->esize, *off;
    int *ranks;
    char *buf, *scratch;
    rcmsg_coll_copy_t own;
    rcmsg_status_t s;

    s = rcmsg_coll_rel_layout(a, (size_t)sub * block, &off, &ranks, &scratch);
    if (s != RCMSG_OK) {
        return s;
    }
    /* a leaf receives straight into its output; the root with rank 0 sends from its input as it
     * is (relative and rank order agree); else the subtree's blocks go through scratch */
    buf = v != 0 && sub == 1 ? a->rbuf : v == 0 && a->root == 0 ? (char *)a->sbuf : scratch;
    if (v == 0 && a->root != 0) {
        size_t head = (size_t)(n - a->root) * block;

        rcmsg_coll_copy(a, buf, (const char *)a->sbuf + (size_t)a->root * block, head);
        rcmsg_coll_copy(a, buf + head, a->sbuf, (size_t)n * block - head);
    }
    /* this rank's block out of buf, made while the children read theirs */
    own = (rcmsg_coll_copy_t){.dst = a->rbuf, .src = buf, .len = block};
    s = rcmsg_coll_scatter_rel(a, v, n, ranks, buf, off, &own);
    return s;
}
