/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allreduce of very long messages by a ring: the vector is cut into size blocks; a
 * reduce-scatter pass (size - 1 steps, each rank adding the block it receives to its own)
 * leaves rank r owning block r + 1 reduced, and an allgather pass (size - 1 steps)
 * circulates the owned blocks. Every step moves 1/size of the vector over every link at
 * once: bandwidth-optimal for any size, latency grows linearly.
 *
 *   3 ranks, blocks A B C           0 -> 1 -> 2 -> 0
 *   reduce-scatter step 1:  0 sends A, 1 sends B, 2 sends C
 *   reduce-scatter step 2:  0 sends C, 1 sends A, 2 sends B   (now 0 owns B, 1 C, 2 A)
 *   allgather steps 1, 2:   each owned block goes round
 *
 * Each block is reduced along one chain and then copied, so every rank ends with the
 * bitwise same result.
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_allreduce_ring(const rcmsg_coll_args_t *a)
{
    int n = a->size, r = a->rank, next = (r + 1) % n, prev = (r - 1 + n) % n;
    size_t *off;
    char *buf = a->rbuf, *tmp;
    rcmsg_status_t s = RCMSG_OK;

    off = rcmsg_coll_scratch_get(a, (size_t)(n + 1) * sizeof(*off) + a->count * a->esize);
    if (off == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    tmp = (char *)(off + n + 1);
    for (int i = 0; i <= n; i++) {
        off[i] = rcmsg_coll_block_off(a->count, n, i) * a->esize;
    }
    if (n == 1 && a->sbuf != a->rbuf) {
        rcmsg_coll_copy(a, buf, a->sbuf, a->count * a->esize);
    }
    /* The input is read from sbuf, never copied: the first step sends block r from there,
     * and each block this rank reduces (once each in this pass) is theirs op sbuf's into
     * rbuf. The blocks of rbuf not written here are filled by the allgather pass. */
    for (int step = 0; step < n - 1 && s == RCMSG_OK; step++) {
        int sb = (r - step + n) % n, rb = (r - step - 1 + n) % n;
        size_t rlen = off[rb + 1] - off[rb];
        const char *from = step == 0 ? (const char *)a->sbuf : buf;

        s = rcmsg_coll_sendrecv(a, from + off[sb], off[sb + 1] - off[sb], next, tmp, rlen, prev);
        if (s == RCMSG_OK) {
            s = rcmsg_coll_reduce_local3(a, tmp, (const char *)a->sbuf + off[rb], buf + off[rb],
                                         rlen / a->esize);
        }
    }
    for (int step = 0; step < n - 1 && s == RCMSG_OK; step++) {
        int sb = (r + 1 - step + n) % n, rb = (r - step + n) % n;

        s = rcmsg_coll_sendrecv(a, buf + off[sb], off[sb + 1] - off[sb], next, buf + off[rb],
                                off[rb + 1] - off[rb], prev);
    }
    return s;
}
