/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RCMSG_COLL_CHECK=yes through the public API, on 3 to 8 ranks: in each case one rank passes
 * something the others do not (a root, a count, a datatype, an op, another collective, an
 * argument only it refuses, an invalid split color, a dup against a split) and every rank
 * must get RCMSG_ERR_INVALID_PARAM, within CASE_BOUND_S seconds. After each case the same
 * communicator must still work: a correct allreduce on it gives the right sum (the check
 * fails a call before any of its data moves). At the end a dup and a split of it, made with
 * the check on, work too.
 *
 * Prints "rank R: <case>: RCMSG_ERR_INVALID_PARAM on this rank in N ms; the communicator
 * still works" per case, then "rank R of N: C cases, F failure(s)"; exits 1 on any failure.
 * With COLL_CHECK_LOG_DIR set, each process writes its log to COLL_CHECK_LOG_DIR/PID.log, and
 * checks there after each case that the check logged one line for it on this rank ("error:
 * rcmsg_CALL: ... (RCMSG_COLL_CHECK)"); the script reads what the lines say.
 */
#include <rcmsg.h>

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../test_check.h"
#include "../test_log.h"

#define CASE_BOUND_S 5.0
#define MAX_RANKS    20
#define BUF_INTS     (5 * MAX_RANKS) /* count 5 per block at most */

static int rank, size, failures;

typedef enum {
    BARRIER,
    BCAST,
    REDUCE,
    ALLREDUCE,
    ALLGATHER,
    ALLTOALL,
    GATHER,
    SCATTER,
    RSB
} op_kind_t;

typedef struct {
    op_kind_t kind;
    size_t count;
    rcmsg_datatype_t dtype;
    rcmsg_op_t op;
    int root;
    bool null_buf; /* a NULL send (or, for bcast, only) buffer: refused on this rank alone */
} call_t;

/* Each case: what every rank calls, and what rank `odd` calls instead (-1: the last rank). */
#define I32 RCMSG_INT32
static const struct {
    const char *what;
    call_t all, odd;
    int odd_rank;
} cases[] = {
    {"root: bcast", {BCAST, 4, I32, RCMSG_SUM, 0, false}, {BCAST, 4, I32, RCMSG_SUM, 1, false}, 2},
    {"root: reduce",
     {REDUCE, 4, I32, RCMSG_SUM, 0, false},
     {REDUCE, 4, I32, RCMSG_SUM, 1, false},
     2},
    {"root: gather",
     {GATHER, 4, I32, RCMSG_SUM, 0, false},
     {GATHER, 4, I32, RCMSG_SUM, 1, false},
     2},
    {"root: scatter",
     {SCATTER, 4, I32, RCMSG_SUM, 1, false},
     {SCATTER, 4, I32, RCMSG_SUM, 0, false},
     2},
    {"count: bcast", {BCAST, 4, I32, RCMSG_SUM, 0, false}, {BCAST, 5, I32, RCMSG_SUM, 0, false}, 2},
    {"count: reduce",
     {REDUCE, 4, I32, RCMSG_SUM, 0, false},
     {REDUCE, 5, I32, RCMSG_SUM, 0, false},
     2},
    {"count: allreduce",
     {ALLREDUCE, 4, I32, RCMSG_SUM, 0, false},
     {ALLREDUCE, 5, I32, RCMSG_SUM, 0, false},
     2},
    {"count: allgather",
     {ALLGATHER, 4, I32, RCMSG_SUM, 0, false},
     {ALLGATHER, 5, I32, RCMSG_SUM, 0, false},
     2},
    {"count: alltoall",
     {ALLTOALL, 4, I32, RCMSG_SUM, 0, false},
     {ALLTOALL, 5, I32, RCMSG_SUM, 0, false},
     2},
    {"count: gather",
     {GATHER, 4, I32, RCMSG_SUM, 0, false},
     {GATHER, 5, I32, RCMSG_SUM, 0, false},
     2},
    {"count: scatter",
     {SCATTER, 4, I32, RCMSG_SUM, 0, false},
     {SCATTER, 5, I32, RCMSG_SUM, 0, false},
     2},
    {"count: reduce_scatter_block",
     {RSB, 4, I32, RCMSG_SUM, 0, false},
     {RSB, 5, I32, RCMSG_SUM, 0, false},
     2},
    {"datatype: allreduce",
     {ALLREDUCE, 4, I32, RCMSG_SUM, 0, false},
     {ALLREDUCE, 4, RCMSG_FLOAT, RCMSG_SUM, 0, false},
     2},
    {"datatype: bcast",
     {BCAST, 4, I32, RCMSG_SUM, 0, false},
     {BCAST, 4, RCMSG_UINT32, RCMSG_SUM, 0, false},
     2},
    {"op: allreduce",
     {ALLREDUCE, 4, I32, RCMSG_SUM, 0, false},
     {ALLREDUCE, 4, I32, RCMSG_MAX, 0, false},
     2},
    {"op: reduce", {REDUCE, 4, I32, RCMSG_SUM, 0, false}, {REDUCE, 4, I32, RCMSG_MIN, 0, false}, 2},
    {"op: reduce_scatter_block",
     {RSB, 4, I32, RCMSG_SUM, 0, false},
     {RSB, 4, I32, RCMSG_PROD, 0, false},
     2},
    {"call: allreduce among bcasts",
     {BCAST, 4, I32, RCMSG_SUM, 0, false},
     {ALLREDUCE, 4, I32, RCMSG_SUM, 0, false},
     -1},
    {"call: barrier among alltoalls",
     {ALLTOALL, 1, I32, RCMSG_SUM, 0, false},
     {BARRIER, 0, I32, RCMSG_SUM, 0, false},
     0},
    {"local: bcast root out of range",
     {BCAST, 4, I32, RCMSG_SUM, 0, false},
     {BCAST, 4, I32, RCMSG_SUM, 99, false},
     1},
    {"local: allreduce NULL send buffer",
     {ALLREDUCE, 4, I32, RCMSG_SUM, 0, false},
     {ALLREDUCE, 4, I32, RCMSG_SUM, 0, true},
     1},
};
#undef I32
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))
#define NCOMM  3 /* the dup and split cases below */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static rcmsg_status_t call(const call_t *c, rcmsg_comm_t comm)
{
    static int sbuf[BUF_INTS], rbuf[BUF_INTS];
    const void *s = c->null_buf ? NULL : sbuf;

    switch (c->kind) {
    case BARRIER:
        return rcmsg_barrier(comm);
    case BCAST:
        return rcmsg_bcast(c->null_buf ? NULL : rbuf, c->count, c->dtype, c->root, comm);
    case REDUCE:
        return rcmsg_reduce(s, rbuf, c->count, c->dtype, c->op, c->root, comm);
    case ALLREDUCE:
        return rcmsg_allreduce(s, rbuf, c->count, c->dtype, c->op, comm);
    case ALLGATHER:
        return rcmsg_allgather(s, rbuf, c->count, c->dtype, comm);
    case ALLTOALL:
        return rcmsg_alltoall(s, rbuf, c->count, c->dtype, comm);
    case GATHER:
        return rcmsg_gather(s, rbuf, c->count, c->dtype, c->root, comm);
    case SCATTER:
        return rcmsg_scatter(s, rbuf, c->count, c->dtype, c->root, comm);
    case RSB:
        return rcmsg_reduce_scatter_block(s, rbuf, c->count, c->dtype, c->op, comm);
    }
    return RCMSG_ERR_INVALID_PARAM;
}

/* A correct allreduce on comm: the sum of (rank + 1) over its ranks. */
static bool comm_works(rcmsg_comm_t comm)
{
    int n = rcmsg_comm_size(comm), me = rcmsg_comm_rank(comm), in[4], out[4] = {0};
    rcmsg_status_t s;

    for (int i = 0; i < 4; i++) {
        in[i] = (me + 1) * (i + 1);
    }
    s = rcmsg_allreduce(in, out, 4, RCMSG_INT32, RCMSG_SUM, comm);
    for (int i = 0; i < 4; i++) {
        if (s != RCMSG_OK || out[i] != n * (n + 1) / 2 * (i + 1)) {
            printf("rank %d: allreduce afterwards: %s, element %d is %d\n", rank,
                   rcmsg_status_name(s), i, out[i]);
            return false;
        }
    }
    return true;
}

/* The check's lines ("... error: rcmsg_CALL: ... (RCMSG_COLL_CHECK)") this rank logged since the
 * last call, read from its own log file (COLL_CHECK_LOG_DIR/PID.log); -1 without one. */
static int check_lines_logged(void)
{
    static off_t done;
    static char line[4096];
    static size_t len;
    const char *dir = getenv("COLL_CHECK_LOG_DIR");
    const char *tail = " (RCMSG_COLL_CHECK)";
    char path[4096], buf[4096];
    int fd, n = 0;
    ssize_t got;

    if (dir == NULL) {
        return -1;
    }
    snprintf(path, sizeof(path), "%s/%d.log", dir, (int)getpid());
    if ((fd = open(path, O_RDONLY)) < 0) {
        return -1;
    }
    while ((got = pread(fd, buf, sizeof(buf), done)) > 0) {
        for (ssize_t i = 0; i < got; i++) {
            if (buf[i] != '\n') {
                line[len < sizeof(line) - 1 ? len++ : len] = buf[i];
                continue;
            }
            line[len] = '\0';
            n += strstr(line, " error: rcmsg_") != NULL && len >= strlen(tail) &&
                 strcmp(line + len - strlen(tail), tail) == 0;
            len = 0;
        }
        done += got;
    }
    close(fd);
    return n;
}

/* One case's outcome on this rank: RCMSG_ERR_INVALID_PARAM in time, one line of the check in
 * this rank's log (when it has a log file), then comm works. */
static void expect_refused(const char *what, rcmsg_status_t s, double t0, rcmsg_comm_t comm)
{
    double ms = (now_s() - t0) * 1e3;
    int lines;

    CHECK(s == RCMSG_ERR_INVALID_PARAM, "%s: got %s, not RCMSG_ERR_INVALID_PARAM", what,
          rcmsg_status_name(s));
    CHECK(ms < CASE_BOUND_S * 1e3, "%s: took %.0f ms (bound %.0f s)", what, ms, CASE_BOUND_S);
    fflush(stderr);
    lines = check_lines_logged();
    CHECK(lines < 0 || lines == 1, "%s: %d lines of RCMSG_COLL_CHECK in this rank's log, not 1",
          what, lines);
    if (comm_works(comm)) {
        printf("rank %d: %s: %s on this rank in %.1f ms; the communicator still works\n", rank,
               what, rcmsg_status_name(s), ms);
    } else {
        CHECK(0, "%s: the communicator does not work afterwards", what);
    }
    fflush(stdout);
}

static void comm_cases(rcmsg_comm_t comm)
{
    rcmsg_comm_t nc = RCMSG_COMM_NULL;
    double t0 = now_s();
    rcmsg_status_t s = rcmsg_comm_split(comm, rank == 2 ? -5 : rank % 2, rank, &nc);

    expect_refused("split: color -5 on rank 2", s, t0, comm);
    CHECK(nc == RCMSG_COMM_NULL, "split: a communicator came out of a refused split");

    t0 = now_s();
    s = rank == size - 1 ? rcmsg_comm_dup(comm, &nc) : rcmsg_comm_split(comm, 0, rank, &nc);
    expect_refused("call: dup among splits", s, t0, comm);
    CHECK(nc == RCMSG_COMM_NULL, "dup/split: a communicator came out of a refused call");

    t0 = now_s();
    s = rank == 1 ? rcmsg_comm_dup(comm, NULL) : rcmsg_comm_dup(comm, &nc);
    expect_refused("local: dup NULL newcomm_p on rank 1", s, t0, comm);
    CHECK(nc == RCMSG_COMM_NULL, "dup: a communicator came out of a refused dup");
}

/* With the check on, agreeing calls work: a dup and a split, used. */
static void fresh_comms(rcmsg_comm_t comm)
{
    rcmsg_comm_t dup = RCMSG_COMM_NULL, half = RCMSG_COMM_NULL;
    int v[4] = {0};

    CHECK(rcmsg_comm_dup(comm, &dup) == RCMSG_OK, "a correct dup failed");
    if (rank == 1) {
        memcpy(v, (int[4]){7, 8, 9, 10}, sizeof(v));
    }
    CHECK(dup != RCMSG_COMM_NULL && rcmsg_bcast(v, 4, RCMSG_INT32, 1, dup) == RCMSG_OK &&
              v[0] == 7 && v[3] == 10,
          "bcast on the fresh dup: %d..%d", v[0], v[3]);
    CHECK(dup != RCMSG_COMM_NULL && comm_works(dup), "allreduce on the fresh dup failed");
    CHECK(rcmsg_comm_split(comm, rank % 2, -rank, &half) == RCMSG_OK, "a correct split failed");
    CHECK(half != RCMSG_COMM_NULL && rcmsg_comm_size(half) == (size + 1 - rank % 2) / 2 &&
              comm_works(half),
          "the fresh split does not work");
    if (dup != RCMSG_COMM_NULL) {
        rcmsg_comm_free(&dup);
    }
    if (half != RCMSG_COMM_NULL) {
        rcmsg_comm_free(&half);
    }
    printf("rank %d: a dup and a split made with the check on work\n", rank);
}

int main(void)
{
    rcmsg_comm_t comm = RCMSG_COMM_NULL;

    test_log_to_file("COLL_CHECK_LOG_DIR");
    if (rcmsg_init() != RCMSG_OK) {
        printf("FAIL: rcmsg_init failed\n");
        return 1;
    }
    rank = rcmsg_rank();
    size = rcmsg_size();
    if (size < 3 || size > MAX_RANKS) {
        printf("FAIL: coll_check_test runs on 3 to %d ranks, not %d\n", MAX_RANKS, size);
        rcmsg_finalize();
        return 1;
    }
    CHECK(rcmsg_comm_dup(rcmsg_comm_world(), &comm) == RCMSG_OK, "the first dup failed");
    for (int i = 0; i < NCASES && comm != RCMSG_COMM_NULL; i++) {
        int odd = cases[i].odd_rank < 0 ? size - 1 : cases[i].odd_rank;
        double t0 = now_s();
        rcmsg_status_t s = call(rank == odd ? &cases[i].odd : &cases[i].all, comm);

        expect_refused(cases[i].what, s, t0, comm);
    }
    if (comm != RCMSG_COMM_NULL) {
        comm_cases(comm);
        fresh_comms(comm);
        rcmsg_comm_free(&comm);
    }
    printf("rank %d of %d: %d cases, %d failure(s)\n", rank, size, NCASES + NCOMM, failures);
    rcmsg_finalize();
    return failures ? 1 : 0;
}
