/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the collective algorithms: messages in the collective space, folding,
 * recursive halving/doubling and binomial gather/scatter of contiguous ranges. */
#include "config.h"

#include "coll.h"

#include "base/log.h"
#include "pml/pml.h"

#include <string.h>

rcmsg_status_t rcmsg_coll_sendrecv(const rcmsg_coll_args_t *a, const void *sbuf, size_t slen,
                                   int dst, void *rbuf, size_t rlen, int src)
{
    rcmsg_coll_msg_t m[2];
    int n = 0;

    if (src >= 0) {
        m[n++] = (rcmsg_coll_msg_t){.buf = rbuf, .len = rlen, .peer = src, .recv = true};
    }
    if (dst >= 0) {
        m[n++] = (rcmsg_coll_msg_t){.buf = (void *)sbuf, .len = slen, .peer = dst};
    }
    return rcmsg_coll_post_all(a, n, m);
}

rcmsg_status_t rcmsg_coll_send(const rcmsg_coll_args_t *a, const void *buf, size_t len, int dst)
{
    return rcmsg_coll_sendrecv(a, buf, len, dst, NULL, 0, -1);
}

rcmsg_status_t rcmsg_coll_recv(const rcmsg_coll_args_t *a, void *buf, size_t len, int src)
{
    return rcmsg_coll_sendrecv(a, NULL, 0, -1, buf, len, src);
}

/* Whether [p, p + len) and [q, q + qlen) share a byte. */
static bool overlap(const void *p, size_t len, const void *q, size_t qlen)
{
    uintptr_t x = (uintptr_t)p, y = (uintptr_t)q;

    return len > 0 && qlen > 0 && x < y + qlen && y < x + len;
}

typedef enum { COPY_NONE, COPY_BEFORE, COPY_DURING, COPY_AFTER } copy_when_t;

/* When copy can be made: before the posting if it reads what a receive writes, after the wait
 * if it writes what a message reads or writes, else while the messages are under way. */
static copy_when_t copy_when(int n, const rcmsg_coll_msg_t *m, const rcmsg_coll_copy_t *copy)
{
    copy_when_t when = COPY_DURING;

    if (copy == NULL || copy->len == 0 || copy->dst == copy->src) {
        return COPY_NONE;
    }
    for (int i = 0; i < n; i++) {
        if (m[i].recv && overlap(copy->src, copy->len, m[i].buf, m[i].len)) {
            return COPY_BEFORE;
        }
        if (overlap(copy->dst, copy->len, m[i].buf, m[i].len)) {
            when = COPY_AFTER;
        }
    }
    return when;
}

/* The phase: the copy if before, the receives (a message may come back as soon as a send is
 * out), the sends, the copy if during, the fence, the copy if after. */
rcmsg_status_t rcmsg_coll_post_all_copy(const rcmsg_coll_args_t *a, int n,
                                        const rcmsg_coll_msg_t *m, const rcmsg_coll_copy_t *copy)
{
    copy_when_t when = copy_when(n, m, copy);
    rcmsg_status_t s = RCMSG_OK;

    if (a->sched == NULL) { /* a blocking call: the phase runs now */
        if (when == COPY_BEFORE || (n == 0 && when != COPY_NONE)) {
            memmove(copy->dst, copy->src, copy->len);
        }
        return n == 0 ? RCMSG_OK
                      : rcmsg_coll_phase_now(a, n, m, when == COPY_DURING ? copy : NULL,
                                             when == COPY_AFTER ? copy : NULL);
    }
    if (when == COPY_BEFORE) {
        s = rcmsg_coll_copy(a, copy->dst, copy->src, copy->len);
    }
    for (int pass = 0; pass < 2 && s == RCMSG_OK; pass++) {
        for (int i = 0; i < n && s == RCMSG_OK; i++) {
            rcmsg_coll_step_t st = {.kind = m[i].recv ? RCMSG_COLL_STEP_RECV : RCMSG_COLL_STEP_SEND,
                                    .peer = m[i].peer + a->peer_off,
                                    .dst = m[i].buf,
                                    .src = m[i].buf,
                                    .len = m[i].len};
            if (m[i].recv == (pass == 0)) {
                s = rcmsg_coll_sched_add(a, &st);
            }
        }
    }
    if (s == RCMSG_OK && when == COPY_DURING) {
        s = rcmsg_coll_copy(a, copy->dst, copy->src, copy->len);
    }
    if (s == RCMSG_OK && n > 0) {
        s = rcmsg_coll_fence(a);
    }
    if (s == RCMSG_OK && when == COPY_AFTER) {
        s = rcmsg_coll_copy(a, copy->dst, copy->src, copy->len);
    }
    return s;
}

rcmsg_status_t rcmsg_coll_post_all(const rcmsg_coll_args_t *a, int n, const rcmsg_coll_msg_t *m)
{
    return rcmsg_coll_post_all_copy(a, n, m, NULL);
}

rcmsg_status_t rcmsg_coll_linear_root(const rcmsg_coll_args_t *a, bool recv, char *buf, size_t len,
                                      size_t stride, const rcmsg_coll_copy_t *copy)
{
    int n = a->size - 1;
    rcmsg_coll_msg_t *m = rcmsg_coll_scratch_get(a, (size_t)n * sizeof(*m));
    rcmsg_status_t s;

    if (m == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n; i++) {
        int r = (a->root + 1 + i) % a->size;

        m[i] = (rcmsg_coll_msg_t){
            .buf = buf + (size_t)r * stride, .len = len, .peer = r, .recv = recv};
    }
    s = rcmsg_coll_post_all_copy(a, n, m, copy);
    return s;
}

int rcmsg_coll_pof2_floor(int n)
{
    int p = 1;

    while (p * 2 <= n) {
        p *= 2;
    }
    return p;
}

size_t rcmsg_coll_block_off(size_t count, int n, int i)
{
    size_t q = count / (size_t)n, r = count % (size_t)n, ui = (size_t)i;

    return ui * q + (ui < r ? ui : r);
}

int rcmsg_coll_fold_newrank(int rank, int rem)
{
    if (rank < 2 * rem) {
        return rank % 2 == 0 ? -1 : rank / 2;
    }
    return rank - rem;
}

int rcmsg_coll_fold_realrank(int newrank, int rem)
{
    return newrank < rem ? 2 * newrank + 1 : newrank + rem;
}

int rcmsg_coll_fold_first(int newrank, int rem)
{
    return newrank < rem ? 2 * newrank : newrank + rem;
}

const void *rcmsg_coll_local_input(const rcmsg_coll_args_t *a, int pof2, int rem, void *buf,
                                   size_t bytes)
{
    if (pof2 > 1 && a->rank >= 2 * rem) {
        return a->sbuf;
    }
    (void)rcmsg_coll_copy(a, buf, a->sbuf, bytes); /* out of memory: the build fails later */
    return buf;
}

rcmsg_status_t rcmsg_coll_rs_halving(const rcmsg_coll_args_t *a, int newrank, int pof2, int rem,
                                     const void *src, void *buf, void *tmp, const size_t *off)
{
    char *b = buf;
    const char *in = src;  /* this rank's partial vector: src before the first step, then buf */
    int lo = 0, hi = pof2; /* the new-rank blocks this rank still reduces */

    for (int d = pof2 / 2; d >= 1; d /= 2) {
        int mid = lo + (hi - lo) / 2, peer = rcmsg_coll_fold_realrank(newrank ^ d, rem);
        int keep_lo = (newrank & d) ? mid : lo, keep_hi = (newrank & d) ? hi : mid;
        int send_lo = (newrank & d) ? lo : mid, send_hi = (newrank & d) ? mid : hi;
        size_t kcount = off[keep_hi] - off[keep_lo];
        rcmsg_status_t s;

        s = rcmsg_coll_sendrecv(a, in + off[send_lo] * a->esize,
                                (off[send_hi] - off[send_lo]) * a->esize, peer, tmp,
                                kcount * a->esize, peer);
        if (s == RCMSG_OK) {
            s = rcmsg_coll_reduce_local3(a, tmp, in + off[keep_lo] * a->esize,
                                         b + off[keep_lo] * a->esize, kcount);
        }
        if (s != RCMSG_OK) {
            return s;
        }
        in = b;
        lo = keep_lo;
        hi = keep_hi;
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_coll_ag_doubling(const rcmsg_coll_args_t *a, int newrank, int pof2, int rem,
                                      const void *first, void *buf, const size_t *off)
{
    char *b = buf;

    /* after the step of distance d, this rank holds the blocks of its aligned group of 2d */
    for (int d = 1; d < pof2; d *= 2) {
        int peer = rcmsg_coll_fold_realrank(newrank ^ d, rem);
        int mine = newrank & ~(d - 1), theirs = (newrank ^ d) & ~(d - 1);
        rcmsg_status_t s;

        s = rcmsg_coll_sendrecv(a, d == 1 && first != NULL ? first : b + off[mine] * a->esize,
                                (off[mine + d] - off[mine]) * a->esize, peer,
                                b + off[theirs] * a->esize,
                                (off[theirs + d] - off[theirs]) * a->esize, peer);
        if (s != RCMSG_OK) {
            return s;
        }
        if (d == 1 && first != NULL) {
            s = rcmsg_coll_copy(a, b + off[mine] * a->esize, first,
                                (off[mine + 1] - off[mine]) * a->esize);
            if (s != RCMSG_OK) {
                return s;
            }
        }
    }
    return RCMSG_OK;
}

int rcmsg_coll_subtree(int v, int n)
{
    int low = v == 0 ? n : (v & -v);

    return low < n - v ? low : n - v;
}

rcmsg_status_t rcmsg_coll_gather_rel(const rcmsg_coll_args_t *a, int v, int n, const int *ranks,
                                     void *buf, const size_t *off)
{
    char *b = buf; /* range x lives at b + off[x] - off[v] */
    rcmsg_coll_msg_t kids[32];
    int nkids = 0, mask = 1;
    rcmsg_status_t s;

    for (; mask < n && !(v & mask); mask <<= 1) { /* every child's range, received at once */
        if (v + mask < n) {
            int c = v + mask, end = c + rcmsg_coll_subtree(c, n);
            kids[nkids++] = (rcmsg_coll_msg_t){.buf = b + (off[c] - off[v]),
                                               .len = off[end] - off[c],
                                               .peer = ranks[c],
                                               .recv = true};
        }
    }
    s = rcmsg_coll_post_all(a, nkids, kids);
    if (s == RCMSG_OK && v != 0) {
        int end = v + rcmsg_coll_subtree(v, n);
        s = rcmsg_coll_send(a, b, off[end] - off[v], ranks[v - mask]);
    }
    return s;
}

rcmsg_status_t rcmsg_coll_scatter_rel(const rcmsg_coll_args_t *a, int v, int n, const int *ranks,
                                      void *buf, const size_t *off, const rcmsg_coll_copy_t *copy)
{
    char *b = buf;
    rcmsg_coll_msg_t kids[32];
    int nkids = 0, mask = 1;

    while (mask < n && !(v & mask)) {
        mask <<= 1;
    }
    if (v != 0) {
        int end = v + rcmsg_coll_subtree(v, n);
        rcmsg_status_t s = rcmsg_coll_recv(a, b, off[end] - off[v], ranks[v - mask]);
        if (s != RCMSG_OK) {
            return s;
        }
    }
    for (mask >>= 1; mask > 0; mask >>= 1) { /* every child's range, sent at once */
        if (v + mask < n) {
            int c = v + mask, end = c + rcmsg_coll_subtree(c, n);
            kids[nkids++] = (rcmsg_coll_msg_t){
                .buf = b + (off[c] - off[v]), .len = off[end] - off[c], .peer = ranks[c]};
        }
    }
    return rcmsg_coll_post_all_copy(a, nkids, kids, copy);
}

rcmsg_status_t rcmsg_coll_fold_in(const rcmsg_coll_args_t *a, int rem, void *buf, void *tmp,
                                  size_t count)
{
    rcmsg_status_t s;

    if (a->rank >= 2 * rem) {
        return RCMSG_OK;
    }
    if (a->rank % 2 == 0) {
        return rcmsg_coll_send(a, buf, count * a->esize, a->rank + 1);
    }
    s = rcmsg_coll_recv(a, tmp, count * a->esize, a->rank - 1);
    return s == RCMSG_OK ? rcmsg_coll_reduce_local(a, tmp, buf, count) : s;
}

rcmsg_status_t rcmsg_coll_fold_out(const rcmsg_coll_args_t *a, int rem, const void *sbuf,
                                   void *rbuf, size_t bytes)
{
    if (a->rank >= 2 * rem) {
        return RCMSG_OK;
    }
    if (a->rank % 2 == 0) {
        return rcmsg_coll_recv(a, rbuf, bytes, a->rank + 1);
    }
    return rcmsg_coll_send(a, sbuf, bytes, a->rank - 1);
}

rcmsg_status_t rcmsg_coll_rel_layout(const rcmsg_coll_args_t *a, size_t scratch, size_t **off_p,
                                     int **ranks_p, char **scratch_p)
{
    int n = a->size;
    size_t block = a->count * a->esize, *off;
    size_t meta = ((size_t)(n + 1) * sizeof(*off) + (size_t)n * sizeof(int) + 15) & ~15UL;

    off = rcmsg_coll_scratch_get(a, meta + scratch);
    if (off == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    *ranks_p = (int *)(off + n + 1);
    for (int j = 0; j <= n; j++) {
        off[j] = (size_t)j * block;
        if (j < n) {
            (*ranks_p)[j] = (j + a->root) % n;
        }
    }
    *off_p = off;
    *scratch_p = (char *)off + meta;
    return RCMSG_OK;
}
