/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Barrier by fan-in and fan-out through rank 0: every other rank signals rank 0 and waits for
 * its release; rank 0 waits for all of them at once, then releases all at once.
 *
 *   4 ranks:   in:  1->0  2->0  3->0   (at once)
 *              out: 0->1  0->2  0->3   (at once)
 *
 * Two steps whatever the size, and rank 0 leaves first: the rank that is a collective's root
 * in most programs (and in every benchmark) starts the next call first, and the others find
 * its messages waiting when the release lets them out. Where ranks share CPUs each step of a
 * barrier waits for the scheduler to run the rank it depends on; here every rank but 0 depends
 * on rank 0 alone. Rank 0 handles 2 x (size - 1) messages: for few ranks.
 */
#include "config.h"

#include "coll.h"

rcmsg_status_t rcmsg_coll_barrier_linear(const rcmsg_coll_args_t *a)
{
    static char none; /* the empty messages' buffer */
    rcmsg_coll_args_t b = *a;
    rcmsg_status_t s;

    b.root = 0;
    if (a->rank != 0) {
        return rcmsg_coll_sendrecv(&b, &none, 0, 0, &none, 0, 0);
    }
    s = rcmsg_coll_linear_root(&b, true, &none, 0, 0, NULL);
    return s == RCMSG_OK ? rcmsg_coll_linear_root(&b, false, &none, 0, 0, NULL) : s;
}
