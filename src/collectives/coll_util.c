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

/* The outcome of n messages waited for together: the first failure logged, naming the rank
 * (too much or too little data received: RCMSG_ERR_INVALID_PARAM, as rcmsg.h promises). */
static rcmsg_status_t post_all_check(const rcmsg_coll_args_t *a, int n, const rcmsg_coll_msg_t *m,
                                     rcmsg_status_t s, const rcmsg_msg_status_t *st)
{
    for (int i = 0; i < n; i++) {
        if (s != RCMSG_OK && m[i].recv && st[i].error == RCMSG_ERR_TRUNCATED) {
            rcmsg_error("%s: rank %d sent more than the %zu bytes expected: do all ranks pass the "
                        "same count, datatype and root?",
                        rcmsg_coll_name(a->coll), m[i].peer, m[i].len);
            return RCMSG_ERR_INVALID_PARAM;
        }
        if (s != RCMSG_OK && st[i].error != RCMSG_OK) {
            rcmsg_error("%s: %s rank %d failed: %s", rcmsg_coll_name(a->coll),
                        m[i].recv ? "receiving from" : "sending to", m[i].peer,
                        rcmsg_strerror(st[i].error));
            return st[i].error;
        }
        if (m[i].recv && st[i].count != m[i].len) {
            rcmsg_error("%s: rank %d sent %zu bytes where %zu were expected: do all ranks pass the "
                        "same count, datatype and root?",
                        rcmsg_coll_name(a->coll), m[i].peer, st[i].count, m[i].len);
            return RCMSG_ERR_INVALID_PARAM;
        }
    }
    return s;
}

/* A posting failed: the receives posted are taken back (or, matched already, completed), the
 * sends posted completed (they cannot be taken back). */
static void post_all_undo(int n, const rcmsg_coll_msg_t *m, rcmsg_request_t *reqs)
{
    for (int i = 0; i < n; i++) {
        if (reqs[i] != RCMSG_REQUEST_NULL &&
            (!m[i].recv || rcmsg_pml_cancel_recv(&reqs[i]) != RCMSG_OK)) {
            (void)rcmsg_wait(&reqs[i], NULL);
        }
    }
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

/* Posts the n messages of m (the receives first: a message may come back as soon as a send is
 * out) with requests reqs, makes copy (if any; see copy_when) and waits for all, their
 * statuses in st. */
static rcmsg_status_t post_wait(const rcmsg_coll_args_t *a, int n, const rcmsg_coll_msg_t *m,
                                rcmsg_request_t *reqs, rcmsg_msg_status_t *st,
                                const rcmsg_coll_copy_t *copy)
{
    copy_when_t when = copy_when(n, m, copy);
    rcmsg_status_t s = RCMSG_OK;

    if (when == COPY_BEFORE) {
        memmove(copy->dst, copy->src, copy->len);
    }
    for (int i = 0; i < n; i++) {
        reqs[i] = RCMSG_REQUEST_NULL;
    }
    for (int pass = 0; pass < 2 && s == RCMSG_OK; pass++) {
        for (int i = 0; i < n && s == RCMSG_OK; i++) {
            if (m[i].recv != (pass == 0)) {
                continue;
            }
            /* (the arguments were checked once, by the public call) */
            s = m[i].recv ? rcmsg_pml_irecv_unchecked(m[i].buf, m[i].len, m[i].peer, a->tag,
                                                      a->comm, true, &reqs[i])
                          : rcmsg_pml_isend_unchecked(m[i].buf, m[i].len, m[i].peer, a->tag,
                                                      a->comm, true, &reqs[i]);
            if (s != RCMSG_OK) {
                rcmsg_error("%s: posting %s rank %d failed: %s", rcmsg_coll_name(a->coll),
                            m[i].recv ? "a receive from" : "a send to", m[i].peer,
                            rcmsg_strerror(s));
            }
        }
    }
    if (s != RCMSG_OK) {
        post_all_undo(n, m, reqs);
        return s;
    }
    if (when == COPY_DURING) {
        memmove(copy->dst, copy->src, copy->len); /* dst and src may overlap each other */
    }
    s = post_all_check(a, n, m, rcmsg_waitall((size_t)n, reqs, st), st);
    if (s == RCMSG_OK && when == COPY_AFTER) {
        memmove(copy->dst, copy->src, copy->len);
    }
    return s;
}

rcmsg_status_t rcmsg_coll_post_all_copy(const rcmsg_coll_args_t *a, int n,
                                        const rcmsg_coll_msg_t *m, const rcmsg_coll_copy_t *copy)
{
    rcmsg_request_t reqs[2];
    rcmsg_msg_status_t st[2];
    char *mem;
    rcmsg_status_t s;

    if (n <= 2) { /* a send, a receive or an exchange: no scratch */
        return post_wait(a, n, m, reqs, st, copy);
    }
    mem = rcmsg_coll_scratch_get(a, (size_t)n * (sizeof(*reqs) + sizeof(*st)));
    if (mem == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    s = post_wait(a, n, m, (rcmsg_request_t *)mem,
                  (rcmsg_msg_status_t *)(mem + (size_t)n * sizeof(*reqs)), copy);
    rcmsg_coll_scratch_put(a, mem);
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
    rcmsg_coll_scratch_put(a, m);
    return s;
}

rcmsg_status_t rcmsg_coll_reduce_local3(const rcmsg_coll_args_t *a, const void *x, const void *y,
                                        void *out, size_t count)
{
    rcmsg_status_t s = rcmsg_coll_op_reduce3(a->op, a->dtype, x, y, out, count);

    if (s != RCMSG_OK) {
        rcmsg_error("%s: reduction %s on %s failed: %s", rcmsg_coll_name(a->coll),
                    rcmsg_coll_op_name(a->op), rcmsg_coll_dtype_name(a->dtype), rcmsg_strerror(s));
    }
    return s;
}

rcmsg_status_t rcmsg_coll_reduce_local(const rcmsg_coll_args_t *a, const void *in, void *inout,
                                       size_t count)
{
    return rcmsg_coll_reduce_local3(a, in, inout, inout, count);
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
    if (a->sbuf != buf) {
        memcpy(buf, a->sbuf, bytes);
    }
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
            memcpy(b + off[mine] * a->esize, first, (off[mine + 1] - off[mine]) * a->esize);
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
