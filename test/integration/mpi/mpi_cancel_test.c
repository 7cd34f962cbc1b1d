/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Cancel never hangs (issue 38, items 7 and 8); every rank sends to the next and receives
 * from the previous (one rank: itself).
 *   mpi_cancel_test         receives (plain, persistent) and sends in each state (eager in the
 *                           receiver's unexpected queue, rendezvous, synchronous, persistent,
 *                           queued here for want of credits, to itself) are cancelled; matched
 *                           ones complete normally; a buffered send's cancel fails; a receiver
 *                           that computes answers when it next progresses (with
 *                           RCMSG_ASYNC_PROGRESS=full at once: its progress thread answers)
 *                           and sends a communicator freed at the receiver discarded are
 *                           cancelled
 *   mpi_cancel_test freed   receives freed unmatched by MPI_Request_free are cancelled by
 *                           MPI_Finalize (one warning), which takes seconds; a freed receive
 *                           that matched and a freed send complete
 *   mpi_cancel_test freed_sends  a rendezvous send to itself and one to the next rank,
 *                           each freed by MPI_Request_free, and a buffered one of each, are
 *                           never received: MPI_Finalize cancels them (one warning), those to
 *                           itself at once, the others after its bounded wait
 *   mpi_cancel_test fini    (2 ranks) rank 0 cancels sends rank 1 never received, while rank 1
 *                           is in MPI_Finalize: cancelled at once; a send it received is not
 *   mpi_cancel_test pending (2 ranks) rank 0 calls MPI_Finalize with a rendezvous send pending
 *                           while rank 1 computes for a second: rank 1's MPI_Finalize refuses
 *                           it, so rank 0's ends within seconds, without an error
 */
#include "mpi_test.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BIG (1 << 20) /* a rendezvous over every transport */

static int right, left;
static char *big, *big_in;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits for a request after MPI_Cancel; whether it was cancelled. */
static int wait_cancelled(MPI_Request *req)
{
    MPI_Status st;
    int c = -1;

    OK(MPI_Wait(req, &st));
    OK(MPI_Test_cancelled(&st, &c));
    return c;
}

/* Nothing of tag from left is left to receive (after a barrier: its cancels are answered). */
static void nothing_left(int tag)
{
    int flag = 1;

    test_barrier(MPI_COMM_WORLD);
    OK(MPI_Iprobe(left, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a cancelled message of tag %d can still be received", tag);
    test_barrier(MPI_COMM_WORLD); /* before anyone sends that tag again */
}

/* After the cancels: a message of tag still goes through, with its own data. */
static void still_works(int tag, int count)
{
    MPI_Request r;

    for (int i = 0; i < count; i++) {
        big[i] = (char)(me + i);
    }
    OK(MPI_Isend(big, count, MPI_CHAR, right, tag, MPI_COMM_WORLD, &r));
    OK(MPI_Recv(big_in, count, MPI_CHAR, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < count; i++) {
        if (big_in[i] != (char)(left + i)) {
            CHECK(0, "tag %d: byte %d is %d, not %d", tag, i, big_in[i], (char)(left + i));
            break;
        }
    }
}

static void test_receives(void)
{
    MPI_Request req;
    int v = -1;

    OK(MPI_Irecv(&v, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &req));
    OK(MPI_Cancel(&req));
    CHECK(wait_cancelled(&req) == 1, "an unmatched receive was not cancelled");
    /* persistent: cancelled once, then started again and matched */
    OK(MPI_Recv_init(&v, 1, MPI_INT, left, 2, MPI_COMM_WORLD, &req));
    OK(MPI_Start(&req));
    OK(MPI_Cancel(&req));
    CHECK(wait_cancelled(&req) == 1, "an unmatched persistent receive was not cancelled");
    test_barrier(MPI_COMM_WORLD); /* before the message comes */
    OK(MPI_Start(&req));
    OK(MPI_Send(&me, 1, MPI_INT, right, 2, MPI_COMM_WORLD));
    CHECK(wait_cancelled(&req) == 0 && v == left, "the restarted receive got %d", v);
    OK(MPI_Request_free(&req));
    phase("unmatched receives, plain and persistent, are cancelled");
}

/* Eager sends the receiver holds as unexpected: standard, ready, persistent. */
static void test_eager(void)
{
    MPI_Request req;
    int v = -1;

    OK(MPI_Isend(&v, 1, MPI_INT, right, 10, MPI_COMM_WORLD, &req));
    OK(MPI_Cancel(&req));
    CHECK(wait_cancelled(&req) == 1, "an unreceived eager send was not cancelled");
    OK(MPI_Irsend(&v, 1, MPI_INT, right, 10, MPI_COMM_WORLD, &req));
    OK(MPI_Cancel(&req));
    CHECK(wait_cancelled(&req) == 1, "an unreceived ready send was not cancelled");
    OK(MPI_Send_init(&v, 1, MPI_INT, right, 10, MPI_COMM_WORLD, &req));
    for (int i = 0; i < 2; i++) {
        OK(MPI_Start(&req));
        OK(MPI_Cancel(&req));
        CHECK(wait_cancelled(&req) == 1, "start %d of a persistent send was not cancelled", i);
    }
    OK(MPI_Request_free(&req));
    nothing_left(10);
    still_works(10, 4);
    phase("eager sends in the receiver's unexpected queue are cancelled");
}

/* Rendezvous sends: the data stays here; standard (large), synchronous, persistent. */
static void test_rndv(void)
{
    MPI_Request req;
    int v = -1;

    OK(MPI_Isend(big, BIG, MPI_CHAR, right, 20, MPI_COMM_WORLD, &req));
    OK(MPI_Cancel(&req));
    CHECK(wait_cancelled(&req) == 1, "an unreceived rendezvous send was not cancelled");
    OK(MPI_Issend(&v, 1, MPI_INT, right, 20, MPI_COMM_WORLD, &req));
    OK(MPI_Cancel(&req));
    CHECK(wait_cancelled(&req) == 1, "an unreceived synchronous send was not cancelled");
    OK(MPI_Ssend_init(big, BIG, MPI_CHAR, right, 20, MPI_COMM_WORLD, &req));
    OK(MPI_Start(&req));
    OK(MPI_Cancel(&req));
    CHECK(wait_cancelled(&req) == 1, "a persistent synchronous send was not cancelled");
    OK(MPI_Request_free(&req));
    nothing_left(20);
    still_works(20, BIG);
    phase("rendezvous and synchronous sends not yet received are cancelled");
}

/* More sends than eager credits: the last ones wait here (no credit) when cancelled, the
 * first ones sit in the receiver's unexpected queue. */
static void test_queued(void)
{
    const char *env = getenv("RCMSG_EAGER_CREDITS");
    int n = 2 * (env != NULL ? atoi(env) : 32) + 2, bad = 0;
    MPI_Request *reqs = calloc((size_t)n, sizeof(*reqs));
    int *vals = calloc((size_t)n, sizeof(int));

    for (int i = 0; i < n; i++) {
        OK(MPI_Isend(&vals[i], 1, MPI_INT, right, 30, MPI_COMM_WORLD, &reqs[i]));
    }
    for (int i = n - 1; i >= 0; i--) {
        OK(MPI_Cancel(&reqs[i]));
    }
    for (int i = 0; i < n; i++) {
        bad += wait_cancelled(&reqs[i]) != 1;
    }
    CHECK(bad == 0, "%d of %d sends beyond the eager credits were not cancelled", bad, n);
    nothing_left(30);
    for (int i = 0; i < 3; i++) {
        still_works(30, 4); /* the credits came back */
    }
    free(reqs);
    free(vals);
    phase("sends queued for want of eager credits are cancelled");
}

static void test_self(void)
{
    MPI_Request req;
    int v = -1, flag = 1;

    OK(MPI_Isend(&v, 1, MPI_INT, me, 40, MPI_COMM_WORLD, &req));
    OK(MPI_Cancel(&req));
    CHECK(wait_cancelled(&req) == 1, "an eager send to itself was not cancelled");
    OK(MPI_Isend(big, BIG, MPI_CHAR, me, 40, MPI_COMM_WORLD, &req));
    OK(MPI_Cancel(&req));
    CHECK(wait_cancelled(&req) == 1, "a rendezvous send to itself was not cancelled");
    OK(MPI_Iprobe(me, 40, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a cancelled send to itself can still be received");
    OK(MPI_Isend(&me, 1, MPI_INT, me, 40, MPI_COMM_WORLD, &req));
    OK(MPI_Recv(&v, 1, MPI_INT, me, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(v == me, "a send to itself after the cancels: %d", v);
    phase("sends to itself are cancelled");
}

/* Matched already: the cancel fails, the operation completes with its data. */
static void test_matched(void)
{
    MPI_Request rr[2], sr[2];
    int v = -1, got = -1;
    char c[2] = {0};

    OK(MPI_Irecv(&got, 1, MPI_INT, left, 50, MPI_COMM_WORLD, &rr[0]));
    OK(MPI_Irecv(big_in, BIG, MPI_CHAR, left, 51, MPI_COMM_WORLD, &rr[1]));
    test_barrier(MPI_COMM_WORLD); /* both receives are posted: the sends match on arrival */
    big[0] = (char)me;
    OK(MPI_Isend(&me, 1, MPI_INT, right, 50, MPI_COMM_WORLD, &sr[0]));
    OK(MPI_Isend(big, BIG, MPI_CHAR, right, 51, MPI_COMM_WORLD, &sr[1]));
    OK(MPI_Cancel(&sr[0]));
    OK(MPI_Cancel(&sr[1]));
    CHECK(wait_cancelled(&sr[0]) == 0, "an eager send to a posted receive was cancelled");
    CHECK(wait_cancelled(&sr[1]) == 0, "a rendezvous send to a posted receive was cancelled");
    CHECK(wait_cancelled(&rr[0]) == 0 && got == left, "eager data %d", got);
    CHECK(wait_cancelled(&rr[1]) == 0 && big_in[0] == (char)left, "rendezvous data %d", big_in[0]);
    /* received, then cancelled */
    OK(MPI_Isend(&me, 1, MPI_INT, right, 52, MPI_COMM_WORLD, &sr[0]));
    OK(MPI_Recv(&v, 1, MPI_INT, left, 52, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    test_barrier(MPI_COMM_WORLD);
    OK(MPI_Cancel(&sr[0]));
    CHECK(wait_cancelled(&sr[0]) == 0 && v == left, "a received send was cancelled");
    /* a buffered send: copied and on its way, its cancel fails; it is delivered */
    char *bbuf = malloc(64 + MPI_BSEND_OVERHEAD);
    OK(MPI_Buffer_attach(bbuf, 64 + MPI_BSEND_OVERHEAD));
    OK(MPI_Ibsend(c, 1, MPI_CHAR, right, 53, MPI_COMM_WORLD, &sr[0]));
    OK(MPI_Cancel(&sr[0]));
    CHECK(wait_cancelled(&sr[0]) == 0, "a buffered send was cancelled");
    OK(MPI_Recv(&c[1], 1, MPI_CHAR, left, 53, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int size;
    OK(MPI_Buffer_detach(&bbuf, &size));
    free(bbuf);
    phase("matched sends and receives, and a buffered send, complete normally");
}

/* The receiver computes (no MPI call) for a second: the sender's wait ends when it is back;
 * with RCMSG_ASYNC_PROGRESS=full (both ranks), at once: the receiver's progress thread answers. */
static void test_busy_receiver(void)
{
    const char *mode = getenv("RCMSG_ASYNC_PROGRESS");
    bool full = mode != NULL && strcmp(mode, "full") == 0;
    MPI_Request req;
    int v = 0;

    if (np > 1 && me == 1) {
        test_barrier(MPI_COMM_WORLD);
        sleep(1);
    } else if (np > 1 && me == 0) {
        test_barrier(MPI_COMM_WORLD);
        usleep(200000); /* rank 1 may still be finishing the barrier (answering at once) */
        double t0 = MPI_Wtime(), t;
        OK(MPI_Isend(&v, 1, MPI_INT, 1, 60, MPI_COMM_WORLD, &req));
        OK(MPI_Cancel(&req));
        CHECK(wait_cancelled(&req) == 1, "the send to a computing receiver was not cancelled");
        t = MPI_Wtime() - t0;
        if (full) { /* rank 1's progress thread answers while it computes */
            printf("rank 0: the cancel was answered after %.2f s, the receiver computing\n", t);
            CHECK(t < 0.5, "answered after %.2f s, not while the receiver computed (full)", t);
        } else {
            printf("rank 0: the cancel was answered after %.2f s, when the receiver was back\n", t);
            CHECK(t > 0.5, "answered after %.2f s, while the receiver computed", t);
        }
    } else {
        test_barrier(MPI_COMM_WORLD);
    }
    phase("a receiver that computes answers the cancel when it is back");
}

/* Sends on a communicator their receiver freed without receiving them: discarded there, so a
 * cancel takes (eager and rendezvous, whether the rendezvous refusal came before or not); one
 * it received before the free completes. */
static void test_comm_freed(void)
{
    MPI_Comm dup;
    MPI_Request req[3];
    int w = -1;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Isend(&me, 1, MPI_INT, right, 70, dup, &req[0]));
    OK(MPI_Isend(big, BIG, MPI_CHAR, right, 71, dup, &req[1]));
    OK(MPI_Isend(&me, 1, MPI_INT, right, 72, dup, &req[2]));
    OK(MPI_Recv(&w, 1, MPI_INT, left, 72, dup, MPI_STATUS_IGNORE));
    test_barrier(MPI_COMM_WORLD);
    OK(MPI_Comm_free(&dup)); /* discards the messages of tags 70 and 71 (a warning) */
    test_barrier(MPI_COMM_WORLD);
    OK(MPI_Cancel(&req[0]));
    CHECK(wait_cancelled(&req[0]) == 1, "an eager send its receiver discarded was not cancelled");
    OK(MPI_Cancel(&req[1]));
    CHECK(wait_cancelled(&req[1]) == 1, "a rendezvous its receiver discarded was not cancelled");
    OK(MPI_Cancel(&req[2]));
    CHECK(wait_cancelled(&req[2]) == 0 && w == left,
          "a send received before the free was "
          "cancelled (data %d)",
          w);
    phase("sends discarded by a communicator freed at the receiver are cancelled");
}

/* Item 7 at finalize: rank 0's sends to rank 1, which goes into MPI_Finalize without receiving
 * them, are cancelled at once, whether rank 1 is still in its MPI_Finalize's flush or waits
 * in its closing barrier; the one rank 1 received is not. */
static int fini_cancel(void)
{
    MPI_Request req[5];
    int v = 0, w = -1, tags[5] = {80, 81, 82, 83, 84};
    double t0;

    if (me == 0) {
        for (int i = 0; i < 5; i++) {
            int large = i == 1 || i == 3;
            OK(MPI_Isend(large ? (void *)big : &v, large ? BIG : 1, large ? MPI_CHAR : MPI_INT, 1,
                         tags[i], MPI_COMM_WORLD, &req[i]));
        }
    } else {
        OK(MPI_Recv(&w, 1, MPI_INT, 0, 84, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    test_barrier(MPI_COMM_WORLD);
    if (me == 0) {
        t0 = now_s();
        for (int i = 0; i < 5; i++) {
            if (i == 2) {
                usleep(300000); /* rank 1 waits in its closing barrier by now */
            }
            OK(MPI_Cancel(&req[i]));
            CHECK(wait_cancelled(&req[i]) == (i < 4),
                  "send %d (tag %d) to a rank in "
                  "MPI_Finalize: cancelled is not %d",
                  i, tags[i], i < 4);
        }
        printf("rank 0: the cancels were answered within %.1f s\n", now_s() - t0);
        CHECK(now_s() - t0 < 5, "the cancels took %.1f s", now_s() - t0);
    }
    fflush(stdout);
    t0 = now_s();
    OK(MPI_Finalize());
    printf("rank %d: MPI_Finalize took %.1f s\n", me, now_s() - t0);
    CHECK(me == 0 || w == 0, "rank 1 received %d", w);
    return summary();
}

/* Item 11 with a send its receiver never receives: rank 1 refuses it at its MPI_Finalize. */
static int fini_pending(void)
{
    MPI_Request req;
    double t0;

    if (me == 0) {
        OK(MPI_Isend(big, BIG, MPI_CHAR, 1, 90, MPI_COMM_WORLD, &req)); /* left pending */
    } else {
        sleep(1);
    }
    t0 = now_s();
    OK(MPI_Finalize());
    printf("rank %d: MPI_Finalize took %.1f s\n", me, now_s() - t0);
    return summary();
}

/* Item 8: receives freed unmatched are cancelled by MPI_Finalize; it takes seconds. */
static int freed(void)
{
    MPI_Request req;
    MPI_Comm dup;
    int a = -1, b = -1, c = -1;
    double t0;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_set_name(dup, "cancel_dup"));
    OK(MPI_Irecv(&a, 1, MPI_INT, left, 90, MPI_COMM_WORLD, &req));
    OK(MPI_Request_free(&req));
    OK(MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &req));
    OK(MPI_Request_free(&req));
    /* a freed receive a message matches, a freed send that is received: they complete */
    OK(MPI_Irecv(&c, 1, MPI_INT, left, 92, MPI_COMM_WORLD, &req));
    OK(MPI_Request_free(&req));
    OK(MPI_Send(&me, 1, MPI_INT, right, 92, MPI_COMM_WORLD));
    OK(MPI_Isend(big, BIG, MPI_CHAR, right, 93, MPI_COMM_WORLD, &req));
    OK(MPI_Request_free(&req));
    OK(MPI_Recv(big_in, BIG, MPI_CHAR, left, 93, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Comm_free(&dup));
    test_barrier(MPI_COMM_WORLD);
    printf("rank %d: finalizing\n", me);
    fflush(stdout);
    t0 = now_s();
    OK(MPI_Finalize());
    printf("rank %d: MPI_Finalize took %.1f s\n", me, now_s() - t0);
    CHECK(c == left, "the freed receive that matched got %d", c);
    CHECK(a == -1 && b == -1, "a cancelled receive got data (%d %d)", a, b);
    return summary();
}

/* Item 8: freed and buffered sends nobody receives do not keep MPI_Finalize. */
static int freed_sends(void)
{
    int size = 2 * (BIG + MPI_BSEND_OVERHEAD) + 64;
    char *attached = malloc((size_t)size);
    MPI_Request req;
    double t0;

    OK(MPI_Buffer_attach(attached, size));
    OK(MPI_Isend(big, BIG, MPI_CHAR, me, 94, MPI_COMM_WORLD, &req));
    OK(MPI_Request_free(&req));
    OK(MPI_Isend(big, BIG, MPI_CHAR, right, 95, MPI_COMM_WORLD, &req));
    OK(MPI_Request_free(&req));
    OK(MPI_Bsend(big, BIG, MPI_CHAR, right, 96, MPI_COMM_WORLD));
    OK(MPI_Bsend(big, BIG, MPI_CHAR, me, 97, MPI_COMM_WORLD));
    test_barrier(MPI_COMM_WORLD);
    printf("rank %d: finalizing\n", me);
    fflush(stdout);
    t0 = now_s();
    OK(MPI_Finalize());
    printf("rank %d: MPI_Finalize took %.1f s\n", me, now_s() - t0);
    free(attached);
    return summary();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    right = (me + 1) % np;
    left = (me + np - 1) % np;
    big = calloc(BIG, 1);
    big_in = calloc(BIG, 1);
    if (argc > 1 && strcmp(argv[1], "freed") == 0) {
        return freed();
    }
    if (argc > 1 && strcmp(argv[1], "freed_sends") == 0) {
        return freed_sends();
    }
    if (argc > 1 && (strcmp(argv[1], "fini") == 0 || strcmp(argv[1], "pending") == 0)) {
        CHECK(np == 2, "mpi_cancel_test %s needs 2 ranks, not %d", argv[1], np);
        return np != 2 ? summary() : argv[1][0] == 'f' ? fini_cancel() : fini_pending();
    }
    phases_expected = 8;
    test_receives();
    test_eager();
    test_rndv();
    test_queued();
    test_self();
    test_matched();
    test_busy_receiver();
    test_comm_freed();
    free(big);
    free(big_in);
    MPI_Finalize();
    return summary();
}
