/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An MPI program that asks MPI_THREAD_MULTIPLE (issue 41): T threads per rank (4; argv[1]) at
 * once: checked point-to-point around the ring with each thread's own tags; ANY_TAG receives
 * on each thread's own communicator (MPI_Comm_dup'ed by the threads at once, each from its own
 * parent) in the sender's order; MPI_ANY_SOURCE receives in thread 0 while the other threads
 * send; requests started by one thread and waited on by the next (MPI_Wait, MPI_Waitall);
 * blocking and nonblocking collectives on the per-thread communicators at once; attributes on
 * them. Prints "rank R of N: F failure(s)"; exits 0 only when F is 0.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXT   16
#define ROUNDS 30
#define BIG    (96 * 1024 / 4) /* ints: above the eager limits */

static int me, np, nthreads, failures;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t bar;
static MPI_Comm parents[MAXT], wild;
static MPI_Request handoff[MAXT][2];
static int handoff_in[MAXT], handoff_out[MAXT];

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            pthread_mutex_lock(&fail_lock);                                                        \
            failures++;                                                                            \
            printf("FAIL: rank %d line %d: %s: ", me, __LINE__, #cond);                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            fflush(stdout);                                                                        \
            pthread_mutex_unlock(&fail_lock);                                                      \
        }                                                                                          \
    } while (0)
#define OK(call) CHECK((call) == MPI_SUCCESS, "%s", "did not return MPI_SUCCESS")

static int val(int src, int t, int i, int k)
{
    return src * 1000003 + t * 10007 + i * 101 + k;
}

static void ring(int t, int *sb, int *rb)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;

    for (int i = 0; i < ROUNDS; i++) {
        int n = i % 4 == 3 ? BIG : 2, bad = -1;
        MPI_Request r[2];
        MPI_Status st;

        for (int k = 0; k < n; k++) {
            sb[k] = val(me, t, i, k);
        }
        OK(MPI_Irecv(rb, n, MPI_INT, left, t * ROUNDS + i, MPI_COMM_WORLD, &r[0]));
        OK(MPI_Isend(sb, n, MPI_INT, right, t * ROUNDS + i, MPI_COMM_WORLD, &r[1]));
        OK(MPI_Wait(&r[0], &st));
        OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
        for (int k = 0; k < n && bad < 0; k++) {
            bad = rb[k] != val(left, t, i, k) ? k : -1;
        }
        CHECK(bad < 0 && st.MPI_TAG == t * ROUNDS + i, "thread %d round %d: element %d", t, i, bad);
    }
}

static void any_tag(int t, MPI_Comm c)
{
    int right = (me + 1) % np, left = (me + np - 1) % np, out[ROUNDS], in;
    MPI_Request s[ROUNDS];
    MPI_Status st;

    for (int i = 0; i < ROUNDS; i++) {
        out[i] = val(me, t, i, 0);
        OK(MPI_Isend(&out[i], 1, MPI_INT, right, 100 + i % 5, c, &s[i]));
    }
    for (int i = 0; i < ROUNDS; i++) {
        OK(MPI_Recv(&in, 1, MPI_INT, left, MPI_ANY_TAG, c, &st));
        CHECK(in == val(left, t, i, 0) && st.MPI_TAG == 100 + i % 5,
              "thread %d: ANY_TAG receive %d out of order", t, i);
    }
    OK(MPI_Waitall(ROUNDS, s, MPI_STATUSES_IGNORE));
}

static void wildcard(int t)
{
    int m[3], next[MAXT * 64] = {0}, expect = 0;
    MPI_Status st;

    if (t != 0) {
        for (int i = 0; i < ROUNDS; i++) {
            int out[3] = {me, t, i};
            OK(MPI_Send(out, 3, MPI_INT, (me + i) % np, 9, wild));
        }
        return;
    }
    for (int src = 0; src < np; src++) {
        for (int i = 0; i < ROUNDS; i++) {
            expect += (src + i) % np == me ? nthreads - 1 : 0;
        }
    }
    for (int k = 0; k < expect; k++) {
        OK(MPI_Recv(m, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, wild, &st));
        CHECK(st.MPI_SOURCE == m[0] && st.MPI_TAG == 9, "source %d tag %d", st.MPI_SOURCE,
              st.MPI_TAG);
        CHECK(m[2] >= next[m[0] * MAXT + m[1]], "rank %d thread %d: message %d out of order", m[0],
              m[1], m[2]);
        next[m[0] * MAXT + m[1]] = m[2] + 1;
    }
}

static void handed(int t)
{
    int right = (me + 1) % np, left = (me + np - 1) % np, from = (t + nthreads - 1) % nthreads;

    handoff_out[t] = val(me, t, 99, 0);
    OK(MPI_Irecv(&handoff_in[t], 1, MPI_INT, left, 500 + t, MPI_COMM_WORLD, &handoff[t][0]));
    OK(MPI_Isend(&handoff_out[t], 1, MPI_INT, right, 500 + t, MPI_COMM_WORLD, &handoff[t][1]));
    pthread_barrier_wait(&bar);
    OK(MPI_Waitall(2, handoff[from], MPI_STATUSES_IGNORE));
    CHECK(handoff_in[from] == val(left, from, 99, 0), "thread %d's request waited by %d", from, t);
}

static void collectives(int t, MPI_Comm c)
{
    int v = me + t, sum = -1, b = me == 0 ? 7 + t : 0, flag = 0, *got = NULL,
        key = MPI_KEYVAL_INVALID;
    MPI_Request r;

    for (int i = 0; i < ROUNDS / 3; i++) {
        OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK(sum == np * (np - 1) / 2 + t * np, "allreduce %d", sum);
        OK(MPI_Bcast(&b, 1, MPI_INT, 0, c));
        CHECK(b == 7 + t, "bcast %d", b);
        OK(MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_MAX, c, &r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(sum == np - 1 + t, "iallreduce %d", sum);
        OK(MPI_Ibarrier(c, &r));
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    OK(MPI_Comm_set_attr(c, key, &handoff_in[t]));
    OK(MPI_Comm_get_attr(c, key, &got, &flag));
    CHECK(flag && got == &handoff_in[t], "attribute of thread %d", t);
    OK(MPI_Comm_delete_attr(c, key));
    OK(MPI_Comm_free_keyval(&key));
}

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    int *sb = malloc(BIG * sizeof(int)), *rb = malloc(BIG * sizeof(int));
    MPI_Comm mine;

    ring(t, sb, rb);
    OK(MPI_Comm_dup(parents[t], &mine));
    any_tag(t, mine);
    wildcard(t);
    handed(t);
    collectives(t, mine);
    OK(MPI_Comm_free(&mine));
    free(sb);
    free(rb);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[MAXT];
    int provided = -1, q = -1, main_flag = 0;

    nthreads = argc > 1 ? atoi(argv[1]) : 4;
    if (nthreads < 2 || nthreads > MAXT) {
        fprintf(stderr, "usage: mpi_threads_test [THREADS: 2..%d]\n", MAXT);
        return 2;
    }
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    OK(MPI_Query_thread(&q));
    CHECK(q == MPI_THREAD_MULTIPLE, "query %d", q);
    OK(MPI_Is_thread_main(&main_flag));
    CHECK(main_flag == 1, "MPI_Is_thread_main in main: %d", main_flag);
    for (int t = 0; t < nthreads; t++) {
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]));
    }
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &wild));
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    for (int t = 0; t < nthreads; t++) {
        pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t);
    }
    for (int t = 0; t < nthreads; t++) {
        pthread_join(th[t], NULL);
    }
    pthread_barrier_destroy(&bar);
    for (int t = 0; t < nthreads; t++) {
        OK(MPI_Comm_free(&parents[t]));
    }
    OK(MPI_Comm_free(&wild));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    printf("rank %d of %d: %d thread(s): %d failure(s)\n", me, np, nthreads, failures);
    fflush(stdout);
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
