/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicator context ids agreed by the members (issue 38, item 3), through the public API:
 *   churn N  makes and frees N communicators (dup, split by parity, create_ranks of the
 *            neighbours in turn), holding the last HELD of them alive meanwhile so that the
 *            ids in use move around; every 64th one carries a ring message and an allreduce.
 *            Once, a message is sent to a rank that freed the communicator already (a late
 *            message): it must be refused there, never received on a later communicator that
 *            reuses its id (every communicator is probed for a message before its ring).
 *   exhaust  holds duplicates of the world until rcmsg_comm_dup fails: every rank must get
 *            RCMSG_ERR_NO_RESOURCE at the same count (the log names the limit); after they
 *            are freed, a dup and a split work again.
 *   cancel   (2+ ranks) world rank 1 sends on a split whose ranks are reversed, the split is
 *            freed unreceived, two dups reuse its id, then rank 1 cancels the send: the
 *            CANCEL must not be checked against the communicator now holding the id (rank 0
 *            took world rank 1 for a liar and lost it); the send is cancelled (dropped at the
 *            free) and the world and the dups still work.
 * Prints "rank R: ..." lines, then "rank R of N: F failure(s)"; exits 1 on any failure.
 */
#include <rcmsg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../test_check.h"

#define HELD      8
#define EXHAUST   20000 /* more than the limit: the dups must fail before */
#define LATE_ITER 999   /* the iteration of the late message (a dup) */

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

/* A new communicator holds no message (a late one of a freed communicator is never adopted);
 * then a barrier, a ring message on it and an allreduce over it. */
static void comm_use(rcmsg_comm_t c, long iter)
{
    int n = rcmsg_comm_size(c), me = rcmsg_comm_rank(c), flag = 1;
    long v = iter * 1000 + me, got = -1, sum = 0, one = 1;

    OK(rcmsg_iprobe(RCMSG_ANY_SOURCE, RCMSG_ANY_TAG, c, &flag, NULL));
    CHECK(flag == 0, "iteration %ld: a new communicator of %d holds a message already", iter, n);
    OK(rcmsg_barrier(c)); /* (nobody sends on c before every member probed it) */
    OK(rcmsg_sendrecv(&v, sizeof(v), (me + 1) % n, 3, &got, sizeof(got), (me + n - 1) % n, 3, c,
                      NULL));
    CHECK(got == iter * 1000 + (me + n - 1) % n, "iteration %ld: ring got %ld", iter, got);
    OK(rcmsg_allreduce(&one, &sum, 1, RCMSG_INT64, RCMSG_SUM, c));
    CHECK(sum == n, "iteration %ld: allreduce gave %ld for %d ranks", iter, sum, n);
}

/* The iter-th communicator: a dup, a split by parity, or the pair (rank, rank + 1) when
 * iter's pair index is this rank's (create_ranks: the others take no part). */
static rcmsg_comm_t comm_make(rcmsg_comm_t world, long iter)
{
    rcmsg_comm_t c = RCMSG_COMM_NULL;
    int pair[2];

    switch (iter % 3) {
    case 0:
        OK(rcmsg_comm_dup(world, &c));
        break;
    case 1:
        OK(rcmsg_comm_split(world, rank % 2, -rank, &c));
        break;
    default:
        pair[0] = (int)((iter / 3) % size);
        pair[1] = (pair[0] + 1) % size;
        if (rank == pair[0] || rank == pair[1]) {
            OK(rcmsg_comm_create_ranks(world, 2, pair, 0, &c));
        }
    }
    return c;
}

/* Rank 1 frees c first and says so; rank 0 then sends on c (erroneous: nobody can receive it)
 * and frees c. Rank 1 refuses the message (a warning), and no later communicator gets it. */
static void late_message(rcmsg_comm_t world, rcmsg_comm_t *c)
{
    long late = 424242;
    int freed = 0;

    if (rank == 1) {
        OK(rcmsg_comm_free(c));
        OK(rcmsg_send(&freed, sizeof(freed), 0, 99, world));
    } else if (rank == 0) {
        OK(rcmsg_recv(&freed, sizeof(freed), 1, 99, world, NULL));
        OK(rcmsg_send(&late, sizeof(late), 1, 3, *c)); /* eager: completes at once */
        OK(rcmsg_comm_free(c));
    } else {
        OK(rcmsg_comm_free(c));
    }
}

static void churn(long n)
{
    rcmsg_comm_t world = rcmsg_comm_world(), held[HELD] = {0};
    double t0 = now_s();

    for (long i = 0; i < n; i++) {
        rcmsg_comm_t c = comm_make(world, i);

        if (c != RCMSG_COMM_NULL && (i % 64 == 0 || (i > LATE_ITER && i < LATE_ITER + 64))) {
            comm_use(c, i);
        }
        if (i == LATE_ITER && size > 1 && i % 3 == 0) {
            late_message(world, &c);
        }
        if (held[i % HELD] != RCMSG_COMM_NULL) {
            OK(rcmsg_comm_free(&held[i % HELD]));
        }
        held[i % HELD] = c;
        if (failures > 10) {
            break;
        }
    }
    for (int i = 0; i < HELD; i++) {
        if (held[i] != RCMSG_COMM_NULL) {
            OK(rcmsg_comm_free(&held[i]));
        }
    }
    OK(rcmsg_barrier(world));
    printf("rank %d: churn: %ld communicators made and freed in %.1f s\n", rank, n, now_s() - t0);
}

static void exhaust(void)
{
    rcmsg_comm_t world = rcmsg_comm_world(), *c = calloc(EXHAUST, sizeof(*c)), s2;
    rcmsg_status_t s = RCMSG_OK;
    int n = 0, counts[64] = {0};

    if (c == NULL) {
        CHECK(0, "out of memory");
        return;
    }
    while (n < EXHAUST && (s = rcmsg_comm_dup(world, &c[n])) == RCMSG_OK) {
        n++;
    }
    CHECK(s == RCMSG_ERR_NO_RESOURCE, "after %d dups: %s", n, rcmsg_status_name(s));
    /* the same count everywhere: an allgather over the world still works at the limit */
    OK(rcmsg_allgather(&n, counts, 1, RCMSG_INT32, world));
    for (int i = 0; i < size && i < 64; i++) {
        CHECK(counts[i] == n, "rank %d held %d communicators at the limit, this rank %d", i,
              counts[i], n);
    }
    printf("rank %d: exhaust: dup %d failed with %s\n", rank, n + 1, rcmsg_status_name(s));
    while (n > 0) {
        OK(rcmsg_comm_free(&c[--n]));
    }
    OK(rcmsg_comm_dup(world, &c[0]));
    OK(rcmsg_comm_split(world, rank % 2, rank, &s2));
    if (failures == 0) {
        comm_use(c[0], 1);
        comm_use(s2, 2);
        OK(rcmsg_comm_free(&s2));
        OK(rcmsg_comm_free(&c[0]));
    }
    printf("rank %d: exhaust: after freeing them, a dup and a split work\n", rank);
    free(c);
}

/* A cancel sent after its communicator was freed and its id reused (see the top). */
static void cancel_reuse(void)
{
    rcmsg_comm_t w = rcmsg_comm_world(), c = RCMSG_COMM_NULL, d1 = RCMSG_COMM_NULL,
                 d2 = RCMSG_COMM_NULL;
    rcmsg_request_t req = NULL;
    rcmsg_msg_status_t st = {0};
    int buf = 42, in = 0, one = 1, sum = 0;

    OK(rcmsg_comm_split(w, 0, -rank, &c)); /* reversed: world rank 1 is rank size - 2 */
    if (rank == 1) {
        OK(rcmsg_isend(&buf, sizeof(buf), rcmsg_comm_size(c) - 1, 5, c, &req)); /* to rank 0 */
    }
    OK(rcmsg_barrier(w));
    OK(rcmsg_comm_free(&c)); /* rank 0 drops the message unreceived */
    OK(rcmsg_comm_dup(w, &d1));
    OK(rcmsg_comm_dup(w, &d2));
    if (rank == 1) {
        OK(rcmsg_cancel(&req));
        OK(rcmsg_wait(&req, &st));
        CHECK(st.cancelled == 1, "the send dropped at the free was not cancelled");
    }
    OK(rcmsg_allreduce(&one, &sum, 1, RCMSG_INT32, RCMSG_SUM, d2));
    CHECK(sum == size, "allreduce on the second dup gave %d", sum);
    OK(rcmsg_sendrecv(&rank, sizeof(rank), (rank + 1) % size, 4, &in, sizeof(in),
                      (rank + size - 1) % size, 4, w, NULL));
    CHECK(in == (rank + size - 1) % size, "ring on the world got %d", in);
    OK(rcmsg_comm_free(&d1));
    OK(rcmsg_comm_free(&d2));
    printf("rank %d: cancel: a send on a freed communicator whose id was reused cancelled\n", rank);
}

int main(int argc, char **argv)
{
    rcmsg_status_t s;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2 || (strcmp(argv[1], "churn") != 0 && strcmp(argv[1], "exhaust") != 0 &&
                     strcmp(argv[1], "cancel") != 0)) {
        fprintf(stderr, "usage: %s churn N | exhaust | cancel\n", argv[0]);
        return 2;
    }
    s = rcmsg_init();
    if (s != RCMSG_OK) {
        printf("rcmsg_init: %s\n", rcmsg_strerror(s));
        return 1;
    }
    rank = rcmsg_rank();
    size = rcmsg_size();
    if (strcmp(argv[1], "churn") == 0) {
        churn(argc > 2 ? atol(argv[2]) : 100000);
    } else if (strcmp(argv[1], "exhaust") == 0) {
        exhaust();
    } else if (size >= 2) {
        cancel_reuse();
    }
    s = rcmsg_finalize();
    CHECK(s == RCMSG_OK, "rcmsg_finalize: %s", rcmsg_status_name(s));
    printf("rank %d of %d: %d failure(s)\n", rank, size, failures);
    return failures == 0 ? 0 : 1;
}
