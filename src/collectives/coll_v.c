/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The v-variants (a count and a displacement per rank, in elements), reduce_scatter with a
 * count per rank, and the scans. A message of 0 bytes is not sent: both of its ends know its
 * count (they pass the same arrays, as MPI requires).
 *
 *   gatherv, scatterv  linear: the root posts every message at once, its own block copied
 *                      while they travel
 *   allgatherv         ring: at step k rank r passes block r - k on to r + 1
 *   alltoallv          pairwise: at step k rank r sends to r + k, receives from r - k
 *   reduce_scatter     reduce to rank 0 (binomial, or rank-ordered for a non-commutative
 *                      operation), then scatterv from it
 *   scan, exscan       recursive doubling: at distance d rank r exchanges its partial
 *                      result with r ^ d; one from a lower rank is the left operand
 */
#include "config.h"

#include "coll.h"

/* A send or a receive of len bytes, none when len is 0. */
static void msg_add(rcmsg_coll_msg_t *m, int *n, void *buf, size_t len, int peer, bool recv)
{
    if (len > 0) {
        m[(*n)++] = (rcmsg_coll_msg_t){.buf = buf, .len = len, .peer = peer, .recv = recv};
    }
}

/* The root's part of gatherv (recv) or scatterv: one message per other rank, own block copied
 * between buf + displs[root] and own. */
static rcmsg_status_t v_root(const rcmsg_coll_args_t *a, bool recv, char *buf, const size_t *counts,
                             const size_t *displs, void *own)
{
    rcmsg_coll_msg_t *m = rcmsg_coll_scratch_get(a, sizeof(*m) * (size_t)a->size);
    char *mine = buf + displs[a->root] * a->esize;
    rcmsg_coll_copy_t copy = {
        .dst = recv ? mine : own, .src = recv ? own : mine, .len = counts[a->root] * a->esize};
    int n = 0;
    rcmsg_status_t s;

    if (m == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 1; i < a->size; i++) {
        int r = (a->root + i) % a->size;
        msg_add(m, &n, buf + displs[r] * a->esize, counts[r] * a->esize, r, recv);
    }
    s = rcmsg_coll_post_all_copy(a, n, m, &copy);
    return s;
}

rcmsg_status_t rcmsg_coll_gatherv_linear(const rcmsg_coll_args_t *a)
{
    if (a->rank != a->root) {
        return a->count > 0 ? rcmsg_coll_send(a, a->sbuf, a->count * a->esize, a->root) : RCMSG_OK;
    }
    return v_root(a, true, a->rbuf, a->rcounts, a->rdispls, (void *)a->sbuf);
}

rcmsg_status_t rcmsg_coll_scatterv_linear(const rcmsg_coll_args_t *a)
{
    if (a->rank != a->root) {
        return a->count > 0 ? rcmsg_coll_recv(a, a->rbuf, a->count * a->esize, a->root) : RCMSG_OK;
    }
    return v_root(a, false, (char *)a->sbuf, a->scounts, a->sdispls, a->rbuf);
}

rcmsg_status_t rcmsg_coll_allgatherv_ring(const rcmsg_coll_args_t *a)
{
    int n = a->size, r = a->rank;
    const size_t *cnt = a->rcounts, *dsp = a->rdispls;
    char *buf = a->rbuf;
    rcmsg_status_t s = rcmsg_coll_copy(a, buf + dsp[r] * a->esize, a->sbuf, cnt[r] * a->esize);

    for (int step = 0; step < n - 1 && s == RCMSG_OK; step++) {
        int sb = (r - step + n) % n, rb = (r - step - 1 + n) % n;
        rcmsg_coll_msg_t m[2];
        int k = 0;

        msg_add(m, &k, buf + dsp[rb] * a->esize, cnt[rb] * a->esize, (r - 1 + n) % n, true);
        msg_add(m, &k, buf + dsp[sb] * a->esize, cnt[sb] * a->esize, (r + 1) % n, false);
        s = rcmsg_coll_post_all(a, k, m);
    }
    return s;
}

rcmsg_status_t rcmsg_coll_alltoallv_pairwise(const rcmsg_coll_args_t *a)
{
    int n = a->size, r = a->rank;
    const size_t *sc = a->scounts, *sd = a->sdispls, *rc = a->rcounts, *rd = a->rdispls;
    const char *sbuf = a->sbuf;
    char *rbuf = a->rbuf;
    rcmsg_status_t s;

    if (sbuf == RCMSG_IN_PLACE) { /* rbuf holds the blocks to send: a copy of its extent */
        size_t end = 0;
        char *copy;

        for (int i = 0; i < n; i++) {
            end = rc[i] > 0 && rd[i] + rc[i] > end ? rd[i] + rc[i] : end;
        }
        copy = rcmsg_coll_scratch_get(a, end * a->esize);
        if (copy == NULL) {
            return RCMSG_ERR_NO_MEMORY;
        }
        rcmsg_coll_copy(a, copy, rbuf, end * a->esize);
        sbuf = copy;
        sc = rc;
        sd = rd;
    }
    s = rcmsg_coll_copy(a, rbuf + rd[r] * a->esize, sbuf + sd[r] * a->esize, rc[r] * a->esize);
    for (int k = 1; k < n && s == RCMSG_OK; k++) {
        int dst = (r + k) % n, src = (r - k + n) % n;
        rcmsg_coll_msg_t m[2];
        int j = 0;

        msg_add(m, &j, rbuf + rd[src] * a->esize, rc[src] * a->esize, src, true);
        msg_add(m, &j, (char *)sbuf + sd[dst] * a->esize, sc[dst] * a->esize, dst, false);
        s = rcmsg_coll_post_all(a, j, m);
    }
    return s;
}

rcmsg_status_t rcmsg_coll_reduce_scatter_v(const rcmsg_coll_args_t *a)
{
    size_t total = 0, *displs = rcmsg_coll_scratch_get(a, sizeof(*displs) * (size_t)a->size);
    rcmsg_coll_args_t b = *a;
    char *tmp = NULL;
    rcmsg_status_t s;

    if (displs == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < a->size; i++) {
        displs[i] = total;
        total += a->rcounts[i];
    }
    if (a->rank == 0) {
        tmp = rcmsg_coll_scratch_get(a, total * a->esize);
        if (tmp == NULL) {
            return RCMSG_ERR_NO_MEMORY;
        }
    }
    b.root = 0;
    b.count = total;
    b.rbuf = tmp;
    s = rcmsg_coll_op_commutes(a->op) ? rcmsg_coll_reduce_binomial(&b)
                                      : rcmsg_coll_reduce_ordered(&b);
    b = *a;
    b.root = 0;
    b.sbuf = tmp;
    b.scounts = a->rcounts;
    b.sdispls = displs;
    b.count = a->rcounts[a->rank];
    return s == RCMSG_OK ? rcmsg_coll_scatterv_linear(&b) : s;
}

rcmsg_status_t rcmsg_coll_scan_recursive_doubling(const rcmsg_coll_args_t *a)
{
    size_t bytes = a->count * a->esize;
    bool ex = (int)a->coll == (int)RCMSG_COLL_EXSCAN, first = true;
    bool commute = rcmsg_coll_op_commutes(a->op);
    char *partial = rcmsg_coll_scratch_get(a, 2 * bytes), *tmp;
    rcmsg_status_t s;

    if (partial == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    tmp = partial + bytes;
    s = rcmsg_coll_copy(a, partial, a->sbuf, bytes);
    if (!ex && s == RCMSG_OK) {
        s = rcmsg_coll_copy(a, a->rbuf, a->sbuf, bytes);
    }
    for (int mask = 1; mask < a->size && s == RCMSG_OK; mask <<= 1) {
        int peer = a->rank ^ mask;

        if (peer >= a->size) {
            continue;
        }
        s = rcmsg_coll_sendrecv(a, partial, bytes, peer, tmp, bytes, peer);
        if (s == RCMSG_OK && peer < a->rank) { /* theirs is the left operand */
            s = rcmsg_coll_reduce_local(a, tmp, partial, a->count);
            s = s == RCMSG_OK && ex && first ? rcmsg_coll_copy(a, a->rbuf, tmp, bytes)
                : s == RCMSG_OK              ? rcmsg_coll_reduce_local(a, tmp, a->rbuf, a->count)
                                             : s;
            first = false;
        } else if (s == RCMSG_OK && commute) {
            s = rcmsg_coll_reduce_local(a, tmp, partial, a->count);
        } else if (s == RCMSG_OK) { /* partial = partial op theirs, through tmp */
            s = rcmsg_coll_reduce_local(a, partial, tmp, a->count);
            s = s == RCMSG_OK ? rcmsg_coll_copy(a, partial, tmp, bytes) : s;
        }
    }
    return s;
}
