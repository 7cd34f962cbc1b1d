/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RCMSG_THREAD_MULTIPLE (issue 41 items 1 and 4): T threads per rank (4; argv[1]) at once,
 * each checking what it receives:
 *  1. point-to-point around the ring on the world with the thread's own tag range, eager and
 *     rendezvous sizes, every message's content checked;
 *  2. ANY_TAG receives on the thread's own communicator, made by the threads at once (each
 *     dup'ing its own parent: concurrent context agreements), the order of each sender kept;
 *  3. wildcard (ANY_SOURCE, ANY_TAG) receives in thread 0 on a shared communicator while the
 *     other threads of every rank send on it: per sending thread, in its order;
 *  4. requests started by one thread, waited on by the next one;
 *  5. collectives, blocking and nonblocking, on the per-thread communicators at once, and a
 *     split of them at once;
 *  6. communicators dup'ed, split and freed again and again by every thread at once.
 * Prints "rank R of N: F failure(s)" and exits 0 only when F is 0.
 */
#include <pthread.h>
#include <rcmsg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT    16
#define ROUNDS  40
#define BIG     (96 * 1024) /* above the eager limits: rendezvous */
#define WILDTAG 7

static int rank, size, nthreads;
static int failures; /* (under fail_lock) */
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t bar;
static rcmsg_comm_t parents[MAXT], wild;
static rcmsg_request_t handoff[MAXT][2];
static uint32_t handoff_in[MAXT], handoff_out[MAXT];

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            pthread_mutex_lock(&fail_lock);                                                        \
            failures++;                                                                            \
            printf("FAIL rank %d line %d: ", rank, __LINE__);                                      \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            fflush(stdout);                                                                        \
            pthread_mutex_unlock(&fail_lock);                                                      \
        }                                                                                          \
    } while (0)
#define OK(call)                                                                                   \
    do {                                                                                           \
        rcmsg_status_t s_ = (call);                                                                \
        CHECK(s_ == RCMSG_OK, "%s: %s", #call, rcmsg_strerror(s_));                                \
    } while (0)

static uint32_t word(int src, int t, int i, size_t k)
{
    return (uint32_t)src * 2654435761u ^ (uint32_t)t * 40503u ^ (uint32_t)i * 977u ^ (uint32_t)k;
}

static void fill(uint32_t *b, size_t n, int src, int t, int i)
{
    for (size_t k = 0; k < n; k++) {
        b[k] = word(src, t, i, k);
    }
}

static size_t bad_at(const uint32_t *b, size_t n, int src, int t, int i)
{
    for (size_t k = 0; k < n; k++) {
        if (b[k] != word(src, t, i, k)) {
            return k;
        }
    }
    return n;
}

/* 1. the ring on the world, tags t * ROUNDS + i, sizes alternating 8 B and BIG */
static void ring_tags(int t, uint32_t *sb, uint32_t *rb)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    for (int i = 0; i < ROUNDS; i++) {
        size_t n = (i % 4 == 3 ? BIG : 8) / sizeof(uint32_t);
        rcmsg_request_t r[2];
        rcmsg_msg_status_t st;

        fill(sb, n, rank, t, i);
        OK(rcmsg_irecv(rb, n * 4, left, t * ROUNDS + i, rcmsg_comm_world(), &r[0]));
        OK(rcmsg_isend(sb, n * 4, right, t * ROUNDS + i, rcmsg_comm_world(), &r[1]));
        OK(rcmsg_wait(&r[0], &st));
        OK(rcmsg_wait(&r[1], NULL));
        CHECK(st.count == n * 4 && st.tag == t * ROUNDS + i, "thread %d round %d: %zu B tag %d", t,
              i, st.count, st.tag);
        CHECK(bad_at(rb, n, left, t, i) == n, "thread %d round %d: word %zu wrong", t, i,
              bad_at(rb, n, left, t, i));
    }
}

/* 2. ANY_TAG on the thread's own communicator: in the order the left neighbour sent */
static void own_any_tag(int t, rcmsg_comm_t c, uint32_t *sb, uint32_t *rb)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    rcmsg_request_t s[ROUNDS];

    for (int i = 0; i < ROUNDS; i++) {
        sb[i] = word(rank, t, i, 0);
        OK(rcmsg_isend(&sb[i], 4, right, 1000 + (i * 7) % 13, c, &s[i]));
    }
    for (int i = 0; i < ROUNDS; i++) {
        rcmsg_msg_status_t st;

        OK(rcmsg_recv(&rb[0], 4, left, RCMSG_ANY_TAG, c, &st));
        CHECK(st.tag == 1000 + (i * 7) % 13 && rb[0] == word(left, t, i, 0),
              "thread %d: ANY_TAG receive %d got tag %d (order per sender lost)", t, i, st.tag);
    }
    OK(rcmsg_waitall(ROUNDS, s, NULL));
}

/* 3. thread 0 receives everything the other threads of every rank send on wild */
static void wildcard(int t)
{
    int next[MAXT * 64] = {0}, expect = 0;
    uint32_t m[3];

    if (t != 0) {
        for (int i = 0; i < ROUNDS; i++) {
            uint32_t out[3] = {(uint32_t)rank, (uint32_t)t, (uint32_t)i};
            OK(rcmsg_send(out, sizeof(out), (rank + i) % size, WILDTAG, wild));
        }
        return;
    }
    for (int src = 0; src < size; src++) { /* sender (rank + i) % size == me */
        for (int i = 0; i < ROUNDS; i++) {
            expect += (src + i) % size == rank ? nthreads - 1 : 0;
        }
    }
    for (int k = 0; k < expect; k++) {
        rcmsg_msg_status_t st;

        OK(rcmsg_recv(m, sizeof(m), RCMSG_ANY_SOURCE, RCMSG_ANY_TAG, wild, &st));
        int who = (int)m[0] * MAXT + (int)m[1];
        CHECK(st.source == (int)m[0] && st.tag == WILDTAG, "wildcard: source %d tag %d", st.source,
              st.tag);
        CHECK((int)m[2] >= next[who], "wildcard: rank %u thread %u message %u after %d", m[0], m[1],
              m[2], next[who] - 1);
        next[who] = (int)m[2] + 1;
    }
}

/* 4. thread t starts a receive and a send; thread (t + 1) % T waits for them */
static void handed(int t)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size,
        from = (t + nthreads - 1) % nthreads;

    handoff_out[t] = word(rank, t, 99, 0);
    OK(rcmsg_irecv(&handoff_in[t], 4, left, 5000 + t, rcmsg_comm_world(), &handoff[t][0]));
    OK(rcmsg_isend(&handoff_out[t], 4, right, 5000 + t, rcmsg_comm_world(), &handoff[t][1]));
    pthread_barrier_wait(&bar);
    OK(rcmsg_wait(&handoff[from][1], NULL));
    OK(rcmsg_wait(&handoff[from][0], NULL));
    CHECK(handoff_in[from] == word(left, from, 99, 0), "request of thread %d waited by %d: wrong",
          from, t);
}

/* 5. collectives on the thread's communicator, and a split of it */
static void collectives(int t, rcmsg_comm_t c)
{
    int64_t v = rank + t, sum = 0, b = rank == 0 ? 42 + t : 0;
    int64_t *all = calloc((size_t)size, sizeof(int64_t));
    rcmsg_request_t r;
    rcmsg_comm_t half;

    for (int i = 0; i < ROUNDS / 4; i++) {
        OK(rcmsg_allreduce(&v, &sum, 1, RCMSG_INT64, RCMSG_SUM, c));
        CHECK(sum == (int64_t)size * (size - 1) / 2 + (int64_t)t * size, "allreduce %lld",
              (long long)sum);
        OK(rcmsg_bcast(&b, 1, RCMSG_INT64, 0, c));
        CHECK(b == 42 + t, "bcast %lld", (long long)b);
        OK(rcmsg_allgather(&v, all, 1, RCMSG_INT64, c));
        for (int k = 0; k < size; k++) {
            CHECK(all[k] == k + t, "allgather [%d] = %lld", k, (long long)all[k]);
        }
        OK(rcmsg_iallreduce(&v, &sum, 1, RCMSG_INT64, RCMSG_MAX, c, &r));
        OK(rcmsg_wait(&r, NULL));
        CHECK(sum == size - 1 + t, "iallreduce max %lld", (long long)sum);
        OK(rcmsg_ibarrier(c, &r));
        OK(rcmsg_wait(&r, NULL));
        OK(rcmsg_barrier(c));
    }
    OK(rcmsg_comm_split(c, rank % 2, -rank, &half));
    if (half != RCMSG_COMM_NULL) {
        int n = rcmsg_comm_size(half);
        OK(rcmsg_allreduce(&v, &sum, 1, RCMSG_INT64, RCMSG_SUM, half));
        CHECK(n == (size + 1 - rank % 2) / 2, "split size %d", n);
        OK(rcmsg_comm_free(&half));
    }
    free(all);
}

/* 6. communicators made and freed again and again by every thread at once (each from its own
 * parent: the context agreements of the threads interleave), each used once */
static void churn(int t)
{
    for (int i = 0; i < ROUNDS / 2; i++) {
        rcmsg_comm_t c = RCMSG_COMM_NULL;
        int64_t v = 1, sum = 0;

        OK(i % 2 == 0 ? rcmsg_comm_dup(parents[t], &c) : rcmsg_comm_split(parents[t], 0, rank, &c));
        if (c == RCMSG_COMM_NULL) {
            continue;
        }
        OK(rcmsg_allreduce(&v, &sum, 1, RCMSG_INT64, RCMSG_SUM, c));
        CHECK(sum == size, "thread %d: communicator %d: allreduce %lld", t, i, (long long)sum);
        OK(rcmsg_comm_free(&c));
    }
}

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint32_t *sb = malloc(BIG), *rb = malloc(BIG);
    rcmsg_comm_t mine;

    ring_tags(t, sb, rb);
    OK(rcmsg_comm_dup(parents[t], &mine)); /* at once on every thread: different parents */
    own_any_tag(t, mine, sb, rb);
    wildcard(t);
    handed(t);
    collectives(t, mine);
    churn(t);
    OK(rcmsg_comm_free(&mine));
    free(sb);
    free(rb);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[MAXT];
    int provided = -1, q = -1;

    nthreads = argc > 1 ? atoi(argv[1]) : 4;
    if (nthreads < 2 || nthreads > MAXT) {
        fprintf(stderr, "usage: threads_test [THREADS: 2..%d]\n", MAXT);
        return 2;
    }
    if (rcmsg_init_thread(RCMSG_THREAD_MULTIPLE, &provided) != RCMSG_OK) {
        return 1;
    }
    rank = rcmsg_rank();
    size = rcmsg_size();
    CHECK(provided == RCMSG_THREAD_MULTIPLE, "provided %d", provided);
    OK(rcmsg_query_thread(&q));
    CHECK(q == RCMSG_THREAD_MULTIPLE, "query %d", q);
    for (int t = 0; t < nthreads; t++) {
        OK(rcmsg_comm_dup(rcmsg_comm_world(), &parents[t]));
    }
    OK(rcmsg_comm_dup(rcmsg_comm_world(), &wild));
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    for (int t = 0; t < nthreads; t++) {
        pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t);
    }
    for (int t = 0; t < nthreads; t++) {
        pthread_join(th[t], NULL);
    }
    pthread_barrier_destroy(&bar);
    for (int t = 0; t < nthreads; t++) {
        OK(rcmsg_comm_free(&parents[t]));
    }
    OK(rcmsg_comm_free(&wild));
    OK(rcmsg_barrier(rcmsg_comm_world()));
    printf("rank %d of %d: %d thread(s): %d failure(s)\n", rank, size, nthreads, failures);
    fflush(stdout);
    OK(rcmsg_finalize());
    return failures == 0 ? 0 : 1;
}
