/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rcmsg_comm_create_ranks with a member lost between two exchanges of its agreement (4 ranks,
 * comm_create_kill.sh). Under RCMSG_THREAD_MULTIPLE the agreement first joins (one exchange
 * offering nothing), then offers the context tables (a second exchange). The script gives the
 * last rank RCMSG_TEST_AGREE_KILL=1: it dies right after posting its first message of the
 * agreement (the one to rank 0), so rank 0 goes on to the second exchange while the others
 * still wait in the first for the lost rank. Every survivor must then
 *   - get RCMSG_ERR_CONNECTION from that call within BOUND_S (docs/liveness.md: ~0.1 s for a
 *     local peer), none waiting for a survivor that gave up;
 *   - make the communicator of the survivors, and use it (a ring of checked messages, an
 *     allreduce): rank 0's second-exchange message, which the others never received, must
 *     not be taken by this agreement;
 *   - make ROUNDS more communicators back to back, of every pair and of all the survivors
 *     (each round's member list and key differ; each checked with a message), then finalize.
 * With argument "late" (RCMSG_TEST_AGREE_KILL=5) the last rank dies after its first message of
 * the second exchange: a survivor that got it may finish the call with RCMSG_OK (a
 * communicator holding the lost rank, broken from the start, freed here), the others fail
 * with RCMSG_ERR_CONNECTION; none may wait for the others, and the rest is as above.
 * Prints "rank R: ..." lines, then "rank R of N: F failure(s)"; exits 1 on any failure.
 */
#include <rcmsg.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../test_check.h"

#define BOUND_S 10.0 /* the liveness bound of a local peer (0.1 s) with a loaded machine's room */
#define ROUNDS  40

static int rank, size, failures;

#define OK(call)                                                                                   \
    do {                                                                                           \
        rcmsg_status_t s_ = (call);                                                                \
        CHECK(s_ == RCMSG_OK, "%s: %s", #call, rcmsg_status_name(s_));                             \
    } while (0)

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* c (of the n world ranks in ranks, made in round r): its ranks in order, a ring message
 * naming the round and the sender, and (for all the survivors) an allreduce. */
static void comm_check(rcmsg_comm_t c, int n, const int *ranks, int r)
{
    int me = rcmsg_comm_rank(c);
    int64_t v = r * 100 + rank, got = -1, sum = 0;

    CHECK(rcmsg_comm_size(c) == n && me >= 0 && ranks[me] == rank,
          "round %d: size %d rank %d in a communicator of %d", r, rcmsg_comm_size(c), me, n);
    if (me < 0) {
        return;
    }
    OK(rcmsg_sendrecv(&v, sizeof(v), (me + 1) % n, 5, &got, sizeof(got), (me + n - 1) % n, 5, c,
                      NULL));
    CHECK(got == r * 100 + ranks[(me + n - 1) % n], "round %d: got %lld from rank %d", r,
          (long long)got, ranks[(me + n - 1) % n]);
    if (n == 3) {
        OK(rcmsg_allreduce(&v, &sum, 1, RCMSG_INT64, RCMSG_SUM, c));
        CHECK(sum == 3 * r * 100 + 0 + 1 + 2, "round %d: allreduce gave %lld", r, (long long)sum);
    }
}

/* Round r among the survivors: a pair, or all three, by turns; the others skip it. */
static void survivors_round(rcmsg_comm_t world, int r)
{
    static const int sets[4][3] = {{0, 1, 2}, {0, 1, -1}, {1, 2, -1}, {2, 0, -1}};
    const int *set = sets[r % 4];
    int n = set[2] < 0 ? 2 : 3;
    rcmsg_comm_t c = RCMSG_COMM_NULL;

    if (rank != set[0] && rank != set[1] && (n == 2 || rank != set[2])) {
        return;
    }
    OK(rcmsg_comm_create_ranks(world, n, set, (uint32_t)(1000 + r), &c));
    if (c != RCMSG_COMM_NULL) {
        comm_check(c, n, set, r);
        OK(rcmsg_comm_free(&c));
    }
}

int main(int argc, char **argv)
{
    int late = argc > 1 && strcmp(argv[1], "late") == 0;
    int32_t ready = 0;
    static const int all[4] = {0, 1, 2, 3}, survivors[3] = {0, 1, 2};
    rcmsg_comm_t world, c = RCMSG_COMM_NULL;
    rcmsg_status_t s;
    int provided = 0;
    double t0, dt;

    s = rcmsg_init_thread(RCMSG_THREAD_MULTIPLE, &provided);
    if (s != RCMSG_OK) {
        printf("FAIL: rcmsg_init_thread: %s\n", rcmsg_status_name(s));
        return 1;
    }
    world = rcmsg_comm_world();
    rank = rcmsg_comm_rank(world);
    size = rcmsg_comm_size(world);
    if (size != 4 || provided != RCMSG_THREAD_MULTIPLE) {
        printf("SKIP: needs 4 ranks (%d) and RCMSG_THREAD_MULTIPLE (%d)\n", size, provided);
        rcmsg_finalize();
        return 77;
    }
    /* rank 3 dies only once every survivor left the barrier (else theirs would fail) */
    OK(rcmsg_barrier(world));
    for (int r = 0; r < 3; r++) {
        OK(rank == 3   ? rcmsg_recv(&ready, sizeof(ready), r, 1, world, NULL)
           : rank == r ? rcmsg_send(&ready, sizeof(ready), 3, 1, world)
                       : RCMSG_OK);
    }
    t0 = now_s();
    s = rcmsg_comm_create_ranks(world, 4, all, 1, &c);
    dt = now_s() - t0;
    /* (rank 3 is gone: RCMSG_TEST_AGREE_KILL) */
    printf("rank %d: create_ranks with rank 3 lost returned %s after %.2f s\n", rank,
           rcmsg_status_name(s), dt);
    fflush(stdout);
    CHECK((s == RCMSG_ERR_CONNECTION && c == RCMSG_COMM_NULL) ||
              (late && s == RCMSG_OK && c != RCMSG_COMM_NULL),
          "create_ranks with rank 3 lost: %s (RCMSG_ERR_CONNECTION expected%s)",
          rcmsg_status_name(s), late ? ", or RCMSG_OK" : "");
    if (s == RCMSG_OK && c != RCMSG_COMM_NULL) {
        OK(rcmsg_comm_free(&c));
    }
    CHECK(dt < BOUND_S, "create_ranks with rank 3 lost took %.2f s (bound %.0f s)", dt, BOUND_S);

    OK(rcmsg_comm_create_ranks(world, 3, survivors, 2, &c));
    if (c != RCMSG_COMM_NULL) {
        comm_check(c, 3, survivors, 0);
        OK(rcmsg_comm_free(&c));
        printf("rank %d: the survivors' communicator works\n", rank);
    }
    for (int r = 1; r <= ROUNDS; r++) {
        survivors_round(world, r);
    }
    printf("rank %d: %d more communicators of the survivors made back to back\n", rank, ROUNDS);
    s = rcmsg_finalize();
    CHECK(s == RCMSG_OK, "rcmsg_finalize: %s", rcmsg_status_name(s));
    printf("rank %d of %d: %d failure(s)\n", rank, size, failures);
    fflush(stdout);
    return failures > 0;
}
