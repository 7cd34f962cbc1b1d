/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Barrier by dissemination: in round k each rank signals rank + 2^k and waits for rank - 2^k
 * (mod size), ceil(log2 size) rounds of empty messages, any size.
 *
 *   round 0:  0->1  1->2  2->3  3->4  4->0
 *   round 1:  0->2  1->3  2->4  3->0  4->1
 *   round 2:  0->4  1->0  2->1  3->2  4->3
 *
 * After round k a rank has heard, directly or not, from the 2^(k+1) - 1 ranks before it.
 */
#include "config.h"

#include "coll.h"

rcmsg_status_t rcmsg_coll_barrier_dissemination(const rcmsg_coll_args_t *a)
{
    for (int d = 1; d < a->size; d *= 2) {
        rcmsg_status_t s = rcmsg_coll_sendrecv(a, NULL, 0, (a->rank + d) % a->size, NULL, 0,
                                               (a->rank - d + a->size) % a->size);
        if (s != RCMSG_OK) {
            return s;
        }
    }
    return RCMSG_OK;
}
