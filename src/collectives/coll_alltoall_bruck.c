/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Alltoall by Bruck's algorithm, for tiny blocks on many ranks: ceil(log2 size) messages per
 * rank instead of size - 1, each carrying about half the blocks.
 *
 *   1. rotate: tmp[i] = my block for rank (rank + i) mod size
 *   2. for d = 1, 2, 4, ...: send every tmp[i] with (i & d) to rank + d, and put what
 *      rank - d sends into the same slots
 *   3. the block in tmp[i] now comes from rank - i: it goes to recv[(rank - i) mod size]
 *
 *   4 ranks, d=1: 0->1 1->2 2->3 3->0 (slots 1, 3)   d=2: 0->2 1->3 2->0 3->1 (slots 2, 3)
 */
#include "config.h"

#include "coll.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_alltoall_bruck(const rcmsg_coll_args_t *a)
{
    int n = a->size, r = a->rank;
    size_t block = a->count * a->esize, nb = (size_t)n * block;
    const char *sbuf = a->sbuf;
    char *rbuf = a->rbuf, *tmp, *pk, *pk2;
    rcmsg_status_t s = RCMSG_OK;

    tmp = rcmsg_coll_scratch_get(a, 2 * nb);
    if (tmp == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    pk = tmp + nb;
    pk2 = rbuf; /* the receive buffer is free until step 3 */
    for (int i = 0; i < n; i++) {
        rcmsg_coll_copy(a, tmp + (size_t)i * block, sbuf + (size_t)((r + i) % n) * block, block);
    }
    for (int d = 1; d < n && s == RCMSG_OK; d *= 2) {
        size_t len = 0;

        for (int i = d; i < n; i++) {
            if (i & d) {
                rcmsg_coll_copy(a, pk + len, tmp + (size_t)i * block, block);
                len += block;
            }
        }
        s = rcmsg_coll_sendrecv(a, pk, len, (r + d) % n, pk2, len, (r - d + n) % n);
        len = 0;
        for (int i = d; i < n && s == RCMSG_OK; i++) {
            if (i & d) {
                rcmsg_coll_copy(a, tmp + (size_t)i * block, pk2 + len, block);
                len += block;
            }
        }
    }
    for (int i = 0; i < n && s == RCMSG_OK; i++) {
        rcmsg_coll_copy(a, rbuf + (size_t)((r - i + n) % n) * block, tmp + (size_t)i * block,
                        block);
    }
    return s;
}
