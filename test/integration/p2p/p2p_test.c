/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Point-to-point semantics through the public API only (linked against librcmsg.so).
 *
 *   p2p_test              the MPI-semantics set: sizes across the eager/rendezvous boundary,
 *                         ordering, wildcards, probe, issend, cancel, truncation, zero
 *                         length, self,
 *                         communicators reusing tags, invalid arguments, finalize refusal
 *   p2p_test --flood N    N sends from every rank to every rank before any receive is posted
 *   p2p_test --late MODE  rank 1 sends 2 s late; rank 0's wait reports its CPU time (with 4
 *                         ranks or more rank 2 sends: not a neighbour in the barrier's ring,
 *                         so with lazy connect the late message is the pair's first contact)
 *   p2p_test --kill       the last rank dies by SIGKILL; the others must see it reported
 *   p2p_test --swap N LEN N messages of LEN bytes to the next rank and from the previous one
 *   p2p_test --bad-read   rank 0 unmaps a rendezvous send's buffer before rank 1 reads it
 *                         (sm): the read fails, and so must the send, with no bytes counted
 *
 * Any number of ranks, 1 (a singleton, self only) included. Prints one "ok:" line per check
 * and "FAIL ..." on failure; exits non-zero on any failure.
 */
#include <rcmsg.h>

#include <signal.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int rank, size, failures;
static rcmsg_comm_t world;

static double now_s(void);

#include "../test_check.h"
#include "../test_kill.h"

#define OK(s) CHECK((s) == RCMSG_OK, "%s returned %s", #s, rcmsg_status_name(s))

static uint8_t pat(int src, int dst, int salt, size_t i)
{
    return (uint8_t)(src * 131 + dst * 71 + salt * 29 + (i * 7) + (i >> 8));
}

static void fill(uint8_t *b, size_t n, int src, int dst, int salt)
{
    for (size_t i = 0; i < n; i++) {
        b[i] = pat(src, dst, salt, i);
    }
}

static size_t verify(const uint8_t *b, size_t n, int src, int dst, int salt)
{
    for (size_t i = 0; i < n; i++) {
        if (b[i] != pat(src, dst, salt, i)) {
            return i;
        }
    }
    return SIZE_MAX;
}

static void barrier(void)
{
    char x = 0;
    /* a ring token twice around: enough for these tests (collectives come later) */
    for (int round = 0; round < 2 && size > 1; round++) {
        if (rank == 0) {
            rcmsg_send(&x, 1, 1, 999, world);
            rcmsg_recv(&x, 1, size - 1, 999, world, NULL);
        } else {
            rcmsg_recv(&x, 1, rank - 1, 999, world, NULL);
            rcmsg_send(&x, 1, (rank + 1) % size, 999, world);
        }
    }
}

/* A size variable's value in bytes (a number with an optional k or m), or dflt when unset. */
static size_t env_size(const char *name, size_t dflt)
{
    const char *e = getenv(name);
    char *end;
    size_t n;

    if (e == NULL) {
        return dflt;
    }
    n = (size_t)strtoul(e, &end, 10);
    return *end == 'k' ? n << 10 : *end == 'm' ? n << 20 : n;
}

/* The eager limits: rc's and self's (RCMSG_EAGER_LIMIT), and sm's (RCMSG_SM_EAGER_LIMIT). */
static size_t rc_eager_limit(void)
{
    return env_size("RCMSG_EAGER_LIMIT", 8192);
}

static size_t sm_eager_limit(void)
{
    return env_size("RCMSG_SM_EAGER_LIMIT", 8192);
}

/* The larger: a message longer than this goes by rendezvous whatever the transport. */
static size_t eager_limit(void)
{
    size_t rc = rc_eager_limit(), sm = sm_eager_limit();
    return rc > sm ? rc : sm;
}

/* Sizes across both boundaries, checked byte by byte, around a ring (self when alone). */
static void test_sizes(void)
{
    size_t L = rc_eager_limit(), S = sm_eager_limit();
    size_t sizes[] = {0, 1,     L > 0 ? L - 1 : 0, L,       L + 1, S > 0 ? S - 1 : 0,
                      S, S + 1, 1 << 20,           16 << 20};
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k];
        uint8_t *s = malloc(n + 1), *r = malloc(n + 16);
        rcmsg_msg_status_t st;
        size_t bad;

        fill(s, n, rank, next, (int)k);
        memset(r, 0xee, n + 16);
        OK(rcmsg_sendrecv(s, n, next, (int)k, r, n + 16, prev, (int)k, world, &st));
        bad = verify(r, n, prev, rank, (int)k);
        CHECK(bad == SIZE_MAX, "size %zu: byte %zu differs", n, bad);
        CHECK(st.count == n && st.source == prev && st.tag == (int)k,
              "size %zu: status count %zu source %d tag %d", n, st.count, st.source, st.tag);
        CHECK(r[n] == 0xee && r[n + 15] == 0xee, "size %zu: bytes past the message written", n);
        free(s);
        free(r);
    }
    printf("ok: rank %d sizes 0, 1, %zu-%zu, %zu-%zu, 1 MiB, 16 MiB checked byte by byte (each "
           "eager limit and one byte either side)\n",
           rank, sizes[2], sizes[4], sizes[5], sizes[7]);
}

/* Non-overtaking: eager and rendezvous messages interleaved keep their order per sender. */
static void test_ordering(void)
{
    enum { N = 40 };
    size_t L = eager_limit();
    rcmsg_request_t *reqs = calloc((size_t)size * N * 2, sizeof(*reqs));
    uint8_t **bufs = calloc((size_t)size * N * 2, sizeof(*bufs));
    int k = 0;

    for (int peer = 0; peer < size; peer++) {
        for (int i = 0; i < N; i++) {
            size_t n = (i % 3 == 2) ? L * 4 + (size_t)i : (size_t)(i * 10);
            bufs[k] = malloc(n + 8);
            fill(bufs[k], n, rank, peer, i);
            OK(rcmsg_isend(bufs[k], n, peer, 5, world, &reqs[k]));
            k++;
        }
    }
    for (int peer = 0; peer < size; peer++) {
        for (int i = 0; i < N; i++) {
            bufs[k] = malloc(L * 4 + 64);
            OK(rcmsg_irecv(bufs[k], L * 4 + 64, peer, RCMSG_ANY_TAG, world, &reqs[k]));
            k++;
        }
    }
    OK(rcmsg_waitall((size_t)k, reqs, NULL));
    k = size * N;
    for (int peer = 0; peer < size; peer++) {
        for (int i = 0; i < N; i++, k++) {
            size_t n = (i % 3 == 2) ? L * 4 + (size_t)i : (size_t)(i * 10);
            CHECK(verify(bufs[k], n, peer, rank, i) == SIZE_MAX,
                  "message %d from %d out of order or corrupt", i, peer);
        }
    }
    for (int i = 0; i < size * N * 2; i++) {
        free(bufs[i]);
    }
    free(bufs);
    free(reqs);
    printf("ok: rank %d order kept for %d mixed eager/rendezvous messages per sender\n", rank, N);
}

/* ANY_SOURCE / ANY_TAG: rank 0 receives one message from everyone, sources seen once. */
static void test_wildcards(void)
{
    int msg = rank * 1000;

    if (rank == 0) {
        int seen[64] = {0};
        rcmsg_request_t self;
        OK(rcmsg_isend(&msg, sizeof(msg), 0, 0, world, &self));
        for (int i = 0; i < size; i++) {
            rcmsg_msg_status_t st;
            int v = -1;
            OK(rcmsg_recv(&v, sizeof(v), RCMSG_ANY_SOURCE, RCMSG_ANY_TAG, world, &st));
            CHECK(st.source >= 0 && st.source < size && v == st.source * 1000 &&
                      st.tag == st.source && st.count == sizeof(int),
                  "wildcard status source %d tag %d value %d", st.source, st.tag, v);
            if (st.source >= 0 && st.source < 64) {
                seen[st.source]++;
            }
        }
        OK(rcmsg_wait(&self, NULL));
        for (int i = 0; i < size && i < 64; i++) {
            CHECK(seen[i] == 1, "source %d seen %d times", i, seen[i]);
        }
        printf("ok: ANY_SOURCE/ANY_TAG received one message from each of %d ranks\n", size);
    } else {
        OK(rcmsg_send(&msg, sizeof(msg), 0, rank, world));
    }
    barrier();
}

/* probe tells source, tag and length before the receive. */
static void test_probe(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    size_t n = 100 + (size_t)rank * 3 + (size_t)eager_limit() * (rank % 2);
    uint8_t *s = malloc(n), *r;
    rcmsg_request_t req;
    rcmsg_msg_status_t st;
    int flag = 1;

    OK(rcmsg_iprobe(prev, 4242, world, &flag, &st));
    CHECK(flag == 0, "iprobe found a message nobody sent");
    fill(s, n, rank, next, 9);
    OK(rcmsg_isend(s, n, next, 77, world, &req));
    OK(rcmsg_probe(RCMSG_ANY_SOURCE, 77, world, &st));
    CHECK(st.source == prev && st.tag == 77, "probe: source %d tag %d", st.source, st.tag);
    r = malloc(st.count);
    OK(rcmsg_recv(r, st.count, st.source, 77, world, &st));
    CHECK(verify(r, st.count, prev, rank, 9) == SIZE_MAX, "probed message corrupt");
    OK(rcmsg_wait(&req, NULL));
    CHECK(req == RCMSG_REQUEST_NULL, "wait did not clear the request");
    free(s);
    free(r);
    printf("ok: rank %d probe gave source, tag and length (%zu bytes)\n", rank, st.count);
}

/* A synchronous send stays incomplete until its receive is posted: rank 1 posts it only after
 * rank 0's "go", which rank 0 sends after testing its issend for 0.3 s (eager-sized and empty
 * alike); the data then arrives intact. Ranks 0 and 1 only. */
static void test_issend(void)
{
    static const size_t lens[] = {0, 8};
    uint8_t s[8], r[8];
    char go = 0;

    for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]) && size > 1 && rank < 2; k++) {
        rcmsg_request_t sreq;
        rcmsg_msg_status_t st;
        double t0 = now_s();
        int flag = 0;

        if (rank == 1) {
            OK(rcmsg_recv(&go, 1, 0, 89, world, NULL));
            OK(rcmsg_recv(r, sizeof(r), 0, 88, world, &st));
            CHECK(st.count == lens[k] && verify(r, st.count, 0, 1, 11) == SIZE_MAX,
                  "issend delivered %zu bytes, wanted %zu, or corrupt", st.count, lens[k]);
            continue;
        }
        fill(s, sizeof(s), 0, 1, 11);
        OK(rcmsg_issend(s, lens[k], 1, 88, world, &sreq));
        while (now_s() - t0 < 0.3 && !flag) {
            OK(rcmsg_test(&sreq, &flag, NULL));
        }
        CHECK(!flag, "issend of %zu bytes completed before its receive was posted", lens[k]);
        OK(rcmsg_send(&go, 1, 1, 89, world));
        if (!flag) {
            OK(rcmsg_wait(&sreq, NULL));
        }
    }
    barrier();
    printf("ok: rank %d issend completed only after the receive was posted\n", rank);
}

/* Cancel: an unmatched receive is cancelled, a matched one completes; a send the receiver has
 * not matched is taken back from it, one it received completes. */
static void test_cancel(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, flag = 1;
    uint8_t b[16];
    rcmsg_request_t req, sreq;
    rcmsg_msg_status_t st;
    rcmsg_status_t s;

    OK(rcmsg_irecv(b, sizeof(b), prev, 4343, world, &req));
    OK(rcmsg_cancel(&req));
    CHECK(req != RCMSG_REQUEST_NULL, "cancel cleared the request");
    OK(rcmsg_wait(&req, &st));
    CHECK(st.cancelled == 1, "an unmatched receive was not cancelled");
    /* a send nobody receives: the receiver (in its own wait) answers the cancel */
    OK(rcmsg_isend(b, sizeof(b), next, 4344, world, &sreq));
    OK(rcmsg_cancel(&sreq));
    OK(rcmsg_cancel(&sreq)); /* twice: harmless */
    OK(rcmsg_wait(&sreq, &st));
    CHECK(st.cancelled == 1 && st.count == 0, "an unreceived send: cancelled %d count %zu",
          st.cancelled, st.count);
    barrier();
    OK(rcmsg_iprobe(prev, 4344, world, &flag, NULL));
    CHECK(!flag, "a cancelled send is still there to receive");
    /* a send received already: completes normally */
    OK(rcmsg_isend(b, sizeof(b), next, 4345, world, &sreq));
    OK(rcmsg_recv(b, sizeof(b), prev, 4345, world, NULL));
    barrier();
    OK(rcmsg_cancel(&sreq));
    OK(rcmsg_wait(&sreq, &st));
    CHECK(st.cancelled == 0, "a received send was cancelled");
    /* a receive matched already: completes with its message */
    OK(rcmsg_isend(b, sizeof(b), next, 4346, world, &sreq));
    OK(rcmsg_probe(prev, 4346, world, &st));
    OK(rcmsg_irecv(b, sizeof(b), prev, 4346, world, &req)); /* matched at once */
    OK(rcmsg_cancel(&req));
    OK(rcmsg_wait(&req, &st));
    CHECK(st.cancelled == 0 && st.count == sizeof(b), "a matched receive: cancelled %d",
          st.cancelled);
    OK(rcmsg_wait(&sreq, NULL)); /* after the receive: it may be a rendezvous (eager limit 0) */
    s = rcmsg_cancel(NULL);
    CHECK(s == RCMSG_ERR_INVALID_PARAM, "cancel(NULL): %s", rcmsg_status_name(s));
    barrier();
    printf("ok: rank %d cancel took back an unmatched receive and an unreceived send only\n", rank);
}

/* Truncation: the receive fails with TRUNCATED, the buffer is not overrun, the send is fine. */
static void test_truncation(void)
{
    size_t L = eager_limit();
    size_t lens[] = {100, L * 8};
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    for (int k = 0; k < 2; k++) {
        uint8_t *s = malloc(lens[k]), r[64 + 16];
        rcmsg_request_t reqs[2];
        rcmsg_msg_status_t st[2];
        rcmsg_status_t rs;

        fill(s, lens[k], rank, next, 3);
        memset(r, 0xee, sizeof(r));
        OK(rcmsg_irecv(r, 64, prev, 31, world, &reqs[0]));
        OK(rcmsg_isend(s, lens[k], next, 31, world, &reqs[1]));
        rs = rcmsg_wait(&reqs[0], &st[0]);
        CHECK(rs == RCMSG_ERR_TRUNCATED && st[0].error == RCMSG_ERR_TRUNCATED,
              "%zu bytes into 64: %s", lens[k], rcmsg_status_name(rs));
        CHECK(r[64] == 0xee && r[79] == 0xee, "truncated receive overran its buffer");
        OK(rcmsg_wait(&reqs[1], &st[1]));
        free(s);
    }
    printf("ok: rank %d truncation reported (eager and rendezvous), no overrun\n", rank);
}

/* Communicators reusing the same tag keep their messages apart; split orders by key. */
/* A communicator of some ranks only (rcmsg_comm_create_ranks): the last rank and rank 0, in
 * that order, without the others taking part; a message each way; the same list and key
 * again while the first lives makes another communicator; bad lists are refused. */
static void test_create_ranks(void)
{
    int ranks[2] = {size - 1, 0}, bad[2] = {0, 0};
    rcmsg_comm_t c = RCMSG_COMM_NULL, c2 = RCMSG_COMM_NULL, c3 = RCMSG_COMM_NULL;
    rcmsg_status_t s;
    int v = rank, got = -1;

    s = rcmsg_comm_create_ranks(world, 2, bad, 7, &c);
    CHECK(s == RCMSG_ERR_INVALID_PARAM, "create_ranks with a repeat: %s", rcmsg_status_name(s));
    if (size < 2 || (rank != 0 && rank != size - 1)) {
        barrier();
        printf("ok: rank %d create_ranks (not a member)\n", rank);
        return;
    }
    OK(rcmsg_comm_create_ranks(world, 2, ranks, 7, &c));
    CHECK(rcmsg_comm_size(c) == 2 && rcmsg_comm_rank(c) == (rank == size - 1 ? 0 : 1),
          "create_ranks: size %d rank %d", rcmsg_comm_size(c), rcmsg_comm_rank(c));
    OK(rcmsg_sendrecv(&v, sizeof(v), 1 - rcmsg_comm_rank(c), 5, &got, sizeof(got),
                      1 - rcmsg_comm_rank(c), 5, c, NULL));
    CHECK(got == (rank == 0 ? size - 1 : 0), "create_ranks: got %d from the other member", got);
    /* the same list and key again: another communicator (the members agree on its context) */
    OK(rcmsg_comm_create_ranks(world, 2, ranks, 7, &c2));
    OK(rcmsg_comm_create_ranks(world, 2, ranks, 8, &c3));
    v = rank + 100;
    OK(rcmsg_sendrecv(&v, sizeof(v), 1 - rcmsg_comm_rank(c2), 5, &got, sizeof(got),
                      1 - rcmsg_comm_rank(c2), 5, c2, NULL));
    CHECK(got == (rank == 0 ? size - 1 : 0) + 100, "create_ranks again: got %d", got);
    OK(rcmsg_comm_free(&c3));
    OK(rcmsg_comm_free(&c2));
    OK(rcmsg_comm_free(&c));
    barrier();
    printf("ok: rank %d create_ranks made a communicator of two ranks only\n", rank);
}

static void test_comms(void)
{
    rcmsg_comm_t d1, d2, sp;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int v[3] = {-1, -1, -1};
    int color = rank % 2, n_color = (size + 1 - color) / 2;
    rcmsg_request_t reqs[6];

    OK(rcmsg_comm_dup(world, &d1));
    OK(rcmsg_comm_dup(world, &d2));
    CHECK(rcmsg_comm_size(d1) == size && rcmsg_comm_rank(d2) == rank, "dup ranks");
    {
        int a = 1, b = 2, c = 3;
        /* sent in the reverse order of the receives, same tag on every communicator */
        OK(rcmsg_isend(&c, sizeof(c), next, 7, d2, &reqs[0]));
        OK(rcmsg_isend(&b, sizeof(b), next, 7, d1, &reqs[1]));
        OK(rcmsg_isend(&a, sizeof(a), next, 7, world, &reqs[2]));
        OK(rcmsg_irecv(&v[0], sizeof(int), prev, 7, world, &reqs[3]));
        OK(rcmsg_irecv(&v[1], sizeof(int), prev, 7, d1, &reqs[4]));
        OK(rcmsg_irecv(&v[2], sizeof(int), RCMSG_ANY_SOURCE, RCMSG_ANY_TAG, d2, &reqs[5]));
        OK(rcmsg_waitall(6, reqs, NULL));
    }
    CHECK(v[0] == 1 && v[1] == 2 && v[2] == 3, "communicators mixed: %d %d %d", v[0], v[1], v[2]);

    OK(rcmsg_comm_split(world, color, -rank, &sp));
    CHECK(sp != RCMSG_COMM_NULL && rcmsg_comm_size(sp) == n_color, "split size %d, want %d",
          rcmsg_comm_size(sp), n_color);
    /* key = -rank: the highest world rank of the color is rank 0 of the new communicator */
    CHECK(rcmsg_comm_rank(sp) == (n_color - 1 - rank / 2), "split rank %d", rcmsg_comm_rank(sp));
    {
        int me = rank, got = -1, snext = (rcmsg_comm_rank(sp) + 1) % n_color;
        int sprev = (rcmsg_comm_rank(sp) + n_color - 1) % n_color;
        rcmsg_msg_status_t st;
        OK(rcmsg_sendrecv(&me, sizeof(me), snext, 7, &got, sizeof(got), sprev, 7, sp, &st));
        CHECK(got % 2 == color && st.source == sprev, "split exchange got %d from %d", got,
              st.source);
    }
    {
        rcmsg_comm_t none = world;
        OK(rcmsg_comm_split(world, rank == 0 ? RCMSG_UNDEFINED : 1, 0, &none));
        CHECK((rank == 0) == (none == RCMSG_COMM_NULL), "UNDEFINED color");
        if (none != RCMSG_COMM_NULL) {
            OK(rcmsg_comm_free(&none));
        }
    }
    OK(rcmsg_comm_free(&sp));
    OK(rcmsg_comm_free(&d2));
    OK(rcmsg_comm_free(&d1));
    CHECK(d1 == RCMSG_COMM_NULL, "comm_free did not clear");
    CHECK(rcmsg_comm_free(&world) == RCMSG_ERR_INVALID_PARAM, "world must not be freed");
    printf("ok: rank %d dup and split keep same-tag messages apart; split orders by key\n", rank);
}

/* More unmatched messages than eager credits, and the receiver wants the last one first: the
 * sender must not wait for credits that only matching the earlier messages would return. */
static void test_credit_starvation(void)
{
    enum { N = 100 };
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int out[N], in[N];
    rcmsg_request_t sreq[N], rreq[N];
    rcmsg_comm_t dup;

    OK(rcmsg_comm_dup(world, &dup));
    for (int i = 0; i < N; i++) {
        out[i] = rank * 1000 + i;
        OK(rcmsg_isend(&out[i], sizeof(int), next, i, dup, &sreq[i]));
    }
    /* the communicator may be freed while its requests are pending */
    OK(rcmsg_irecv(&in[N - 1], sizeof(int), prev, N - 1, dup, &rreq[N - 1]));
    OK(rcmsg_wait(&rreq[N - 1], NULL));
    CHECK(in[N - 1] == prev * 1000 + N - 1, "last message first: %d", in[N - 1]);
    for (int i = 0; i < N - 1; i++) {
        OK(rcmsg_irecv(&in[i], sizeof(int), prev, i, dup, &rreq[i]));
    }
    OK(rcmsg_comm_free(&dup));
    OK(rcmsg_waitall(N - 1, rreq, NULL));
    OK(rcmsg_waitall(N, sreq, NULL));
    for (int i = 0; i < N - 1; i++) {
        CHECK(in[i] == prev * 1000 + i, "message %d: %d", i, in[i]);
    }
    printf("ok: rank %d the last of %d unmatched messages received first (beyond the credits)\n",
           rank, N);
}

static void test_invalid(void)
{
    rcmsg_request_t req = RCMSG_REQUEST_NULL;
    char b[4] = {0};

    CHECK(rcmsg_isend(b, 4, size, 0, world, &req) == RCMSG_ERR_INVALID_PARAM, "dest = size");
    CHECK(rcmsg_isend(b, 4, -1, 0, world, &req) == RCMSG_ERR_INVALID_PARAM, "dest = -1");
    CHECK(rcmsg_isend(b, 4, 0, -5, world, &req) == RCMSG_ERR_INVALID_PARAM, "negative tag");
    CHECK(rcmsg_isend(NULL, 4, 0, 0, world, &req) == RCMSG_ERR_INVALID_PARAM, "NULL buffer");
    CHECK(rcmsg_irecv(b, 4, size + 3, 0, world, &req) == RCMSG_ERR_INVALID_PARAM, "source");
    CHECK(rcmsg_irecv(b, 4, 0, -7, world, &req) == RCMSG_ERR_INVALID_PARAM, "recv tag -7");
    CHECK(rcmsg_isend(b, 4, 0, 0, NULL, &req) == RCMSG_ERR_INVALID_PARAM, "NULL comm");
    CHECK(req == RCMSG_REQUEST_NULL, "a refused call set the request");
    OK(rcmsg_send(NULL, 0, rank, 1, world)); /* NULL with zero length is fine */
    OK(rcmsg_recv(NULL, 0, rank, 1, world, NULL));
    printf("ok: rank %d invalid arguments refused\n", rank);
}

/* waitany / test / testall on a few self messages. */
static void test_completion_calls(void)
{
    int a = 11, b = 22, x = 0, y = 0, flag = 0;
    rcmsg_request_t reqs[4];
    size_t idx = 99;
    rcmsg_msg_status_t st;

    OK(rcmsg_irecv(&x, sizeof(x), rank, 1, world, &reqs[0]));
    OK(rcmsg_irecv(&y, sizeof(y), rank, 2, world, &reqs[1]));
    OK(rcmsg_test(&reqs[1], &flag, NULL));
    CHECK(flag == 0 && reqs[1] != RCMSG_REQUEST_NULL, "test completed an unmatched receive");
    OK(rcmsg_isend(&b, sizeof(b), rank, 2, world, &reqs[2]));
    OK(rcmsg_waitany(2, reqs, &idx, &st));
    CHECK(idx == 1 && y == 22 && st.tag == 2, "waitany index %zu", idx);
    OK(rcmsg_isend(&a, sizeof(a), rank, 1, world, &reqs[3]));
    do {
        OK(rcmsg_testall(2, &reqs[2], &flag, NULL));
    } while (!flag);
    OK(rcmsg_wait(&reqs[0], NULL));
    CHECK(x == 11, "self message");
    OK(rcmsg_waitany(2, reqs, &idx, NULL));
    CHECK(idx == 2, "waitany on NULL requests gives n");
    printf("ok: rank %d test, testall, waitany\n", rank);
}

/* Misuse: stale request handles, impossible lengths, a bad split color on one rank. */
/* Handles that are no request: refused with RCMSG_ERR_INVALID_PARAM, never followed (a small
 * integer, a pointer to the program's own memory, one into the middle of a live request). */
static void test_garbage_handles(void)
{
    uint64_t mine[128] = {0};
    rcmsg_request_t live, bad[3] = {(rcmsg_request_t)(uintptr_t)16, (rcmsg_request_t)(void *)mine,
                                    RCMSG_REQUEST_NULL};
    int x = 0, y = 3, flag = 0;

    OK(rcmsg_irecv(&x, sizeof(x), rank, 74, world, &live));
    bad[2] = (rcmsg_request_t)(void *)((char *)live + 8);
    for (int i = 0; i < 3; i++) {
        rcmsg_request_t h = bad[i];
        CHECK(rcmsg_test(&h, &flag, NULL) == RCMSG_ERR_INVALID_PARAM, "test of garbage %d", i);
        CHECK(rcmsg_wait(&h, NULL) == RCMSG_ERR_INVALID_PARAM, "wait of garbage %d", i);
        CHECK(rcmsg_cancel(&h) == RCMSG_ERR_INVALID_PARAM, "cancel of garbage %d", i);
        CHECK(h == bad[i], "a refused handle %d was changed", i);
    }
    OK(rcmsg_send(&y, sizeof(y), rank, 74, world));
    OK(rcmsg_wait(&live, NULL));
    CHECK(x == 3, "the live request beside the garbage: %d", x);
}

/* A test of one request costs the same however many are outstanding (issue 43: the check of
 * the handle walked every chunk of 256 requests). Times rcmsg_test of a pending receive with
 * 256 and with n receives outstanding (medians of 5 batches); a cost growing with n fails. */
static double test_cost(rcmsg_request_t *reqs, int n)
{
    double best[5];
    int flag = 0;

    for (int b = 0; b < 5; b++) {
        double t0 = now_s();
        for (int i = 0; i < 20000; i++) {
            (void)rcmsg_test(&reqs[n - 1 - i % 64], &flag, NULL);
        }
        best[b] = (now_s() - t0) / 20000;
    }
    for (int i = 1; i < 5; i++) { /* sorted, for the median */
        for (int j = i; j > 0 && best[j] < best[j - 1]; j--) {
            double t = best[j];
            best[j] = best[j - 1];
            best[j - 1] = t;
        }
    }
    return best[2];
}

static void test_many_reqs(void)
{
    enum { MANY = 128 * 1024 };
    rcmsg_request_t *reqs = calloc(MANY, sizeof(*reqs));
    int x = 0;
    double few, many;

    if (size > 1) { /* a timing: on the singleton only (p2p_singleton.sh) */
        free(reqs);
        return;
    }
    if (reqs == NULL) {
        CHECK(0, "out of memory");
        return;
    }
    for (int i = 0; i < 256; i++) {
        OK(rcmsg_irecv(&x, sizeof(x), rank, 5000, world, &reqs[i]));
    }
    few = test_cost(reqs, 256);
    for (int i = 256; i < MANY; i++) {
        OK(rcmsg_irecv(&x, sizeof(x), rank, 5000, world, &reqs[i]));
    }
    many = test_cost(reqs, MANY);
    printf("ok: rank %d rcmsg_test of a pending receive: %.0f ns with 256 outstanding, %.0f ns "
           "with %d\n",
           rank, few * 1e9, many * 1e9, MANY);
    CHECK(many < 4 * few + 40e-9, "rcmsg_test costs %.0f ns with %d outstanding, %.0f with 256",
          many * 1e9, MANY, few * 1e9);
    for (int i = 0; i < MANY; i++) {
        OK(rcmsg_cancel(&reqs[i]));
        OK(rcmsg_wait(&reqs[i], NULL));
    }
    free(reqs);
}

static void test_misuse(void)
{
    rcmsg_request_t req, copy;
    rcmsg_comm_t c = RCMSG_COMM_NULL;
    rcmsg_status_t s;
    int x = 0, y = 5;
    char b[4];

    /* a second wait (or test) on a stale copy of a completed handle is refused */
    OK(rcmsg_irecv(&x, sizeof(x), rank, 71, world, &req));
    copy = req;
    OK(rcmsg_send(&y, sizeof(y), rank, 71, world));
    OK(rcmsg_wait(&req, NULL));
    CHECK(rcmsg_wait(&copy, NULL) == RCMSG_ERR_INVALID_PARAM, "second wait on a stale copy");
    {
        int flag = 0;
        CHECK(rcmsg_test(&copy, &flag, NULL) == RCMSG_ERR_INVALID_PARAM, "test on a stale copy");
    }
    /* ... and matching still works (it used to loop forever on a doubly freed request) */
    for (int i = 0; i < 3; i++) {
        x = 0;
        OK(rcmsg_irecv(&x, sizeof(x), rank, 72, world, &req));
        OK(rcmsg_send(&y, sizeof(y), rank, 72, world));
        OK(rcmsg_wait(&req, NULL));
        CHECK(x == 5, "self message after a stale wait: %d", x);
    }
    /* the same handle twice in one testall: refused, and the free list stays sound (it used
     * to hand out one request twice 256 allocations later) */
    {
        enum { M = 300 };
        rcmsg_request_t dup2[2], many[M];
        int flag = 0;
        OK(rcmsg_irecv(&x, sizeof(x), rank, 73, world, &dup2[0]));
        dup2[1] = dup2[0];
        OK(rcmsg_send(&y, sizeof(y), rank, 73, world));
        do {
            s = rcmsg_testall(2, dup2, &flag, NULL);
        } while (s == RCMSG_OK && !flag);
        CHECK(s == RCMSG_ERR_INVALID_PARAM, "testall with one handle twice: %s",
              rcmsg_status_name(s));
        for (int i = 0; i < M; i++) {
            OK(rcmsg_irecv(&x, sizeof(x), rank, 1000 + i, world, &many[i]));
            for (int j = 0; j < i; j++) {
                CHECK(many[j] != many[i], "requests %d and %d are the same object", j, i);
            }
        }
        for (int i = 0; i < M; i++) {
            OK(rcmsg_send(&y, sizeof(y), rank, 1000 + i, world));
        }
        OK(rcmsg_waitall(M, many, NULL));
    }
    /* lengths no buffer can have */
    req = RCMSG_REQUEST_NULL;
    CHECK(rcmsg_isend(b, SIZE_MAX, rank, 0, world, &req) == RCMSG_ERR_INVALID_PARAM,
          "send of SIZE_MAX bytes");
    CHECK(rcmsg_isend(b, (size_t)1 << 40, rank, 0, world, &req) == RCMSG_ERR_INVALID_PARAM,
          "send of 1 TiB");
    CHECK(rcmsg_irecv(b, SIZE_MAX, rank, 0, world, &req) == RCMSG_ERR_INVALID_PARAM,
          "receive of SIZE_MAX bytes");
    CHECK(rcmsg_irecv(b, (size_t)1 << 40, rank, 0, world, &req) == RCMSG_ERR_INVALID_PARAM,
          "receive of 1 TiB");
    CHECK(req == RCMSG_REQUEST_NULL, "a refused call set the request");
    /* a bad color on one rank: every rank's split is refused, none waits for it */
    CHECK(rcmsg_comm_split(world, rank == size - 1 ? -5 : 0, 0, &c) == RCMSG_ERR_INVALID_PARAM,
          "a split with a bad color on rank %d", size - 1);
    CHECK(c == RCMSG_COMM_NULL, "a refused split made a communicator");
    test_garbage_handles();
    printf("ok: rank %d stale handles, impossible lengths and a bad split color refused\n", rank);
}

/* Unreceived messages of a freed communicator give their eager credits back: afterwards half
 * a window of small sends completes at once (eagerly), before the receiver posts anything.
 * (Up to half the credits may still be owed by the receiver, unreturned, from earlier tests.) */
static void test_comm_free_credits(void)
{
    enum { N = 32, HALF = N / 2 }; /* RCMSG_EAGER_CREDITS' default */
    int v[N], in[HALF], done = 0;
    rcmsg_request_t reqs[N];
    rcmsg_comm_t dup;
    rcmsg_status_t s;
    double t0;

    if (rc_eager_limit() < sizeof(int) || sm_eager_limit() < sizeof(int)) {
        printf("skip: rank %d: credits given back by a freed communicator: an eager limit is "
               "below %zu bytes, nothing goes eagerly\n",
               rank, sizeof(int));
        return;
    }
    OK(rcmsg_comm_dup(world, &dup));
    if (size > 1 && rank == 0) {
        for (int i = 0; i < N; i++) {
            v[i] = i;
            OK(rcmsg_isend(&v[i], sizeof(int), 1, i, dup, &reqs[i]));
        }
    } else if (size > 1 && rank == 1) {
        int flag = 0;
        while (!flag) { /* until the last one arrived */
            OK(rcmsg_iprobe(0, N - 1, dup, &flag, NULL));
        }
    }
    OK(rcmsg_comm_free(&dup)); /* rank 1 frees with N messages unreceived */
    if (size > 1 && rank == 0) {
        /* eager ones completed; any that had to go by rendezvous fail: never received */
        for (int i = 0; i < N; i++) {
            s = rcmsg_wait(&reqs[i], NULL);
            CHECK(s == RCMSG_OK || s == RCMSG_ERR_STATE, "send %d on the freed communicator: %s", i,
                  rcmsg_status_name(s));
        }
    }
    barrier();
    if (size > 1 && rank == 0) {
        for (int i = 0; i < HALF; i++) {
            OK(rcmsg_isend(&v[i], sizeof(int), 1, 500 + i, world, &reqs[i]));
        }
        for (t0 = now_s(); !done && now_s() - t0 < 5;) {
            OK(rcmsg_testall(HALF, reqs, &done, NULL));
        }
        CHECK(done,
              "%d small sends did not complete eagerly: the eager credits of the freed "
              "communicator's messages were not given back",
              HALF);
    }
    barrier();
    if (size > 1 && rank == 1) {
        for (int i = 0; i < HALF; i++) {
            OK(rcmsg_recv(&in[i], sizeof(int), 0, 500 + i, world, NULL));
            CHECK(in[i] == i, "message %d after the free: %d", i, in[i]);
        }
    }
    if (size > 1 && rank == 0 && !done) {
        OK(rcmsg_waitall(HALF, reqs, NULL));
    }
    barrier();
    printf("ok: rank %d freeing a communicator with unreceived messages gives their credits "
           "back\n",
           rank);
}

static void test_finalize_refused(void)
{
    int x;
    rcmsg_request_t req;

    OK(rcmsg_irecv(&x, sizeof(x), rank, 4343, world, &req));
    CHECK(rcmsg_finalize() == RCMSG_ERR_PENDING, "finalize with a pending receive");
    OK(rcmsg_send(&rank, sizeof(rank), rank, 4343, world));
    OK(rcmsg_wait(&req, NULL));
    printf("ok: rank %d finalize refused while a request was pending\n", rank);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* N messages from every rank to every rank before any receive is posted. */
static void flood(int n)
{
    size_t total = (size_t)n * (size_t)size;
    rcmsg_request_t *reqs = calloc(total * 2, sizeof(*reqs));
    uint32_t *out = calloc(total, 64), *in = calloc(total, 64);
    long rss0 = maxrss_kb();
    double t0 = now_s();

    for (int i = 0; i < n; i++) {
        for (int peer = 0; peer < size; peer++) {
            uint32_t *m = out + ((size_t)i * size + peer) * 16;
            m[0] = (uint32_t)rank;
            m[1] = (uint32_t)i;
            OK(rcmsg_isend(m, 64, peer, 3, world, &reqs[(size_t)i * size + peer]));
        }
    }
    /* give the messages time to arrive as unexpected before anything is posted */
    for (double t = now_s(); now_s() - t < 1.0;) {
        int flag;
        rcmsg_iprobe(RCMSG_ANY_SOURCE, 12345, world, &flag, NULL);
    }
    for (int i = 0; i < n; i++) {
        for (int peer = 0; peer < size; peer++) {
            uint32_t *m = in + ((size_t)i * size + peer) * 16;
            OK(rcmsg_irecv(m, 64, peer, 3, world, &reqs[total + (size_t)i * size + peer]));
        }
    }
    OK(rcmsg_waitall(total * 2, reqs, NULL));
    for (int i = 0; i < n; i++) {
        for (int peer = 0; peer < size; peer++) {
            uint32_t *m = in + ((size_t)i * size + peer) * 16;
            CHECK(m[0] == (uint32_t)peer && m[1] == (uint32_t)i,
                  "flood message %d from %d: got %u/%u", i, peer, m[0], m[1]);
            if (failures > 5) {
                goto out;
            }
        }
    }
out:
    printf("ok: rank %d flood of %d messages to each of %d ranks received in order in %.1f s; "
           "max rss grew %ld KiB\n",
           rank, n, size, now_s() - t0, maxrss_kb() - rss0);
    {
        /* 80,000 live requests cost memory of their own; the sanitizers multiply it */
        const char *san = getenv("SANITIZER_BUILD");
        long limit_kb = (san != NULL && strcmp(san, "yes") == 0 ? 1024 : 256) * 1024;
        CHECK(maxrss_kb() - rss0 < limit_kb, "memory grew by %ld KiB (limit %ld KiB)",
              maxrss_kb() - rss0, limit_kb);
    }
    free(reqs);
    free(out);
    free(in);
}

/* Rank 1 (rank 2 from 4 ranks up) sends 2 s late; rank 0 reports the CPU it used waiting. */
static void late(const char *mode)
{
    int v = 0, sender = size >= 4 ? 2 : 1;

    if (size < 2) {
        printf("SKIP: --late needs 2 ranks\n");
        exit(77);
    }
    barrier();
    if (rank == sender) {
        sleep(2);
        v = 42;
        OK(rcmsg_send(&v, sizeof(v), 0, 1, world));
    } else if (rank == 0) {
        double w0 = now_s(), c0 = cpu_s(), wall, cpu;
        OK(rcmsg_recv(&v, sizeof(v), sender, 1, world, NULL));
        wall = now_s() - w0;
        cpu = cpu_s() - c0;
        CHECK(v == 42, "late message value %d", v);
        printf("late message, wait mode %s: waited %.2f s wall, %.2f s cpu (%.0f%%)\n", mode, wall,
               cpu, 100 * cpu / wall);
    }
    barrier();
}

/* Every rank streams n messages of len bytes to the next rank while receiving as many from
 * the previous one, all posted before any wait: with rendezvous in both directions at once. */
static void swap(int n, size_t len)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    uint8_t *out = malloc((size_t)n * len), *in = malloc((size_t)n * len);
    rcmsg_request_t *reqs = calloc((size_t)n * 2, sizeof(*reqs));

    for (int i = 0; i < n; i++) {
        fill(out + (size_t)i * len, len, rank, next, i);
        OK(rcmsg_isend(out + (size_t)i * len, len, next, i, world, &reqs[i]));
    }
    for (int i = 0; i < n; i++) {
        OK(rcmsg_irecv(in + (size_t)i * len, len, prev, i, world, &reqs[n + i]));
    }
    OK(rcmsg_waitall((size_t)n * 2, reqs, NULL));
    for (int i = 0; i < n; i++) {
        CHECK(verify(in + (size_t)i * len, len, prev, rank, i) == SIZE_MAX, "message %d", i);
        if (failures > 3) {
            break;
        }
    }
    printf("ok: rank %d swapped %d messages of %zu bytes both ways\n", rank, n, len);
    free(out);
    free(in);
    free(reqs);
}

/* The last rank dies by SIGKILL mid-job; the others must see their receive from it fail. */
static void killed(void)
{
    int v = 0;
    double t0;
    rcmsg_status_t s;

    rcmsg_comm_t pair;
    rcmsg_request_t any, doomed;
    rcmsg_msg_status_t st;
    int a = 0, flag = 0;

    if (size < 2) {
        printf("SKIP: --kill needs at least 2 ranks\n");
        exit(77);
    }
    /* rank 0 and the doomed rank alone in a communicator: an ANY_SOURCE receive there can
     * only be matched by the doomed rank */
    OK(rcmsg_comm_split(world, rank == 0 || rank == size - 1 ? 1 : RCMSG_UNDEFINED, 0, &pair));
    if (rank == 0) {
        OK(rcmsg_irecv(&a, sizeof(a), RCMSG_ANY_SOURCE, 3, pair, &any));
        OK(rcmsg_isend(&v, sizeof(v), size - 1, 6, world, &doomed)); /* never received */
    }
    barrier();
    if (rank == size - 1) {
        test_kill_self(rank);
    }
    if (rank == 0) {
        /* its cancel is never answered (unless the doomed rank does before it dies): the
         * wait ends when the loss is known */
        t0 = now_s();
        OK(rcmsg_cancel(&doomed));
        s = rcmsg_wait(&doomed, &st);
        printf("rank 0: the wait for a send to the killed rank, cancelled, returned %s "
               "(cancelled %d) after %.1f s\n",
               rcmsg_status_name(s), st.cancelled, now_s() - t0);
        CHECK(s == RCMSG_ERR_CONNECTION || (s == RCMSG_OK && st.cancelled),
              "the cancelled send to the killed rank: %s", rcmsg_status_name(s));
    }
    t0 = now_s();
    s = rcmsg_recv(&v, sizeof(v), size - 1, 1, world, NULL);
    printf("rank %d: receive from the killed rank %d returned %s after %.1f s\n", rank, size - 1,
           rcmsg_status_name(s), now_s() - t0);
    CHECK(s == RCMSG_ERR_CONNECTION, "the lost peer was not reported");
    /* a receive posted once the loss is known fails at once (it used to wait forever) */
    s = rcmsg_recv(&v, sizeof(v), size - 1, 2, world, NULL);
    CHECK(s == RCMSG_ERR_CONNECTION, "a receive posted after the loss returned %s",
          rcmsg_status_name(s));
    s = rcmsg_probe(size - 1, RCMSG_ANY_TAG, world, NULL);
    CHECK(s == RCMSG_ERR_CONNECTION, "a probe of the lost rank returned %s", rcmsg_status_name(s));
    if (rank == 0) {
        /* the ANY_SOURCE receive posted before the loss, one posted after, and a probe: no
         * live rank of the communicator can match them */
        s = rcmsg_wait(&any, NULL);
        printf("rank 0: ANY_SOURCE receive posted before the loss returned %s\n",
               rcmsg_status_name(s));
        CHECK(s == RCMSG_ERR_CONNECTION, "ANY_SOURCE receive posted before the loss: %s",
              rcmsg_status_name(s));
        s = rcmsg_recv(&a, sizeof(a), RCMSG_ANY_SOURCE, 4, pair, NULL);
        CHECK(s == RCMSG_ERR_CONNECTION, "ANY_SOURCE receive posted after the loss: %s",
              rcmsg_status_name(s));
        s = rcmsg_iprobe(RCMSG_ANY_SOURCE, RCMSG_ANY_TAG, pair, &flag, NULL);
        CHECK(s == RCMSG_ERR_CONNECTION, "ANY_SOURCE iprobe after the loss: %s",
              rcmsg_status_name(s));
        OK(rcmsg_comm_free(&pair));
    }
    s = rcmsg_finalize();
    CHECK(s == RCMSG_OK, "rcmsg_finalize after a lost peer: %s", rcmsg_status_name(s));
    printf("rank %d of %d: %d failure(s)\n", rank, size, failures);
    exit(failures != 0);
}

/* Rank 0's rendezvous send buffer is unmapped before rank 1 reads it (an application bug):
 * over sm the read fails, rank 1's receive reports no bytes, and rank 0's send fails too. */
static void bad_read(void)
{
    const size_t len = 1 << 20;
    rcmsg_request_t req;
    rcmsg_msg_status_t st;
    rcmsg_status_t s;
    char *buf;

    if (size != 2) {
        printf("SKIP: --bad-read needs 2 ranks\n");
        exit(77);
    }
    if (rank == 0) {
        buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(buf != MAP_FAILED, "mmap");
        memset(buf, 1, len);
        OK(rcmsg_isend(buf, len, 1, 9, world, &req));
        munmap(buf, len);
        barrier();
        s = rcmsg_wait(&req, NULL);
        printf("rank 0: send whose buffer was unmapped returned %s\n", rcmsg_status_name(s));
        CHECK(s != RCMSG_OK, "the send completed with success although its data never arrived");
    } else {
        buf = malloc(len);
        barrier();
        s = rcmsg_recv(buf, len, 0, 9, world, &st);
        printf("rank 1: receive from the unmapped buffer returned %s, count %zu\n",
               rcmsg_status_name(s), st.count);
        CHECK(s != RCMSG_OK && st.count == 0, "receive: %s, count %zu", rcmsg_status_name(s),
              st.count);
        free(buf);
    }
}

/* the semantics set: every group, then this rank's verdict on them ("G of G groups passed") */
static void test_all(void)
{
    static void (*const groups[])(void) = {
        test_sizes,
        test_ordering,
        test_wildcards,
        test_probe,
        test_issend,
        test_cancel,
        test_truncation,
        test_comms,
        test_create_ranks,
        test_credit_starvation,
        test_invalid,
        test_completion_calls,
        test_misuse,
        test_comm_free_credits,
        test_finalize_refused,
        test_many_reqs,
    };
    int n = (int)(sizeof groups / sizeof groups[0]), passed = 0;

    for (int i = 0; i < n; i++) {
        int before = failures;

        groups[i]();
        passed += failures == before;
    }
    printf("rank %d of %d: %d of %d test groups passed\n", rank, size, passed, n);
}

int main(int argc, char **argv)
{
    rcmsg_status_t s;

    setvbuf(stdout, NULL, _IOLBF, 0);
    s = rcmsg_init();
    if (s != RCMSG_OK) {
        printf("rcmsg_init: %s\n", rcmsg_strerror(s));
        return s == RCMSG_ERR_NO_DEVICE ? 77 : 1;
    }
    rank = rcmsg_rank();
    size = rcmsg_size();
    world = rcmsg_comm_world();
    if (argc > 2 && strcmp(argv[1], "--flood") == 0) {
        flood(atoi(argv[2]));
    } else if (argc > 3 && strcmp(argv[1], "--swap") == 0) {
        swap(atoi(argv[2]), (size_t)atol(argv[3]));
    } else if (argc > 1 && strcmp(argv[1], "--kill") == 0) {
        killed();
    } else if (argc > 2 && strcmp(argv[1], "--late") == 0) {
        late(argv[2]);
    } else if (argc > 1 && strcmp(argv[1], "--bad-read") == 0) {
        bad_read();
    } else {
        test_all();
    }
    barrier();
    s = rcmsg_finalize();
    CHECK(s == RCMSG_OK, "rcmsg_finalize: %s", rcmsg_status_name(s));
    printf("rank %d of %d: %d failure(s)\n", rank, size, failures);
    return failures != 0;
}
