/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_backend.h over rcmsg (include/rcmsg.h): messages on rcmsg_comm_world(), collectives
 * on bytes (RCMSG_UINT8) or doubles. BENCH_THREAD=multiple initializes with
 * RCMSG_THREAD_MULTIPLE (still one thread). BENCH_COMM=dup in the environment runs everything on a
 * duplicate of the world instead (the cost of a communicator other than the world's).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* program_invocation_short_name */
#endif
#include "bench_backend.h"

#include <errno.h>
#include <rcmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bench_reqs {
    size_t n;
    rcmsg_request_t req[];
};

static char library[64];
static rcmsg_comm_t comm; /* the world, or its duplicate (BENCH_COMM=dup) */

static int check(rcmsg_status_t s, const char *what)
{
    if (s == RCMSG_OK) {
        return 0;
    }
    fprintf(stderr, "%s: rank %d: %s: %s (%s)\n", program_invocation_short_name, rcmsg_rank(), what,
            rcmsg_strerror(s), rcmsg_status_name(s));
    return -1;
}

int bench_init(int *argc_p, char ***argv_p)
{
    (void)argc_p;
    (void)argv_p;
    const char *which = getenv("BENCH_COMM"), *thread = getenv("BENCH_THREAD");
    int level = RCMSG_THREAD_SINGLE, provided;

    snprintf(library, sizeof(library), "rcmsg %s", rcmsg_version());
    if (thread != NULL && strcmp(thread, "multiple") == 0) {
        level = RCMSG_THREAD_MULTIPLE; /* one thread still: the lock's cost (docs/threads.md) */
    } else if (thread != NULL && strcmp(thread, "single") != 0) {
        fprintf(stderr, "%s: BENCH_THREAD=%s: not single or multiple\n",
                program_invocation_short_name, thread);
        return -1;
    }
    if (check(rcmsg_init_thread(level, &provided), "rcmsg_init_thread") != 0) {
        return -1;
    }
    comm = rcmsg_comm_world();
    if (which == NULL || strcmp(which, "world") == 0) {
        return 0;
    }
    if (strcmp(which, "dup") != 0) {
        fprintf(stderr, "%s: BENCH_COMM=%s: not world or dup\n", program_invocation_short_name,
                which);
        return -1;
    }
    return check(rcmsg_comm_dup(rcmsg_comm_world(), &comm), "rcmsg_comm_dup");
}

int bench_finalize(void)
{
    if (comm != rcmsg_comm_world() && check(rcmsg_comm_free(&comm), "rcmsg_comm_free") != 0) {
        return -1;
    }
    return check(rcmsg_finalize(), "rcmsg_finalize");
}

void bench_abort(int status)
{
    /* rcmsg has no abort: the launcher ends the job when a rank exits with an error, and the
     * peers of a vanished local rank fail their operations within about 0.1 s. */
    fflush(stdout);
    fflush(stderr);
    exit(status);
}

int bench_rank(void)
{
    return rcmsg_rank();
}

int bench_size(void)
{
    return rcmsg_size();
}

const char *bench_library(void)
{
    return library;
}

bench_reqs_t *bench_reqs_new(size_t n)
{
    bench_reqs_t *reqs = calloc(1, sizeof(*reqs) + n * sizeof(reqs->req[0]));

    if (reqs != NULL) {
        reqs->n = n;
    }
    return reqs;
}

void bench_reqs_free(bench_reqs_t *reqs)
{
    free(reqs);
}

int bench_isend(const void *buf, size_t len, int dest, int tag, bench_reqs_t *reqs, size_t i)
{
    return check(rcmsg_isend(buf, len, dest, tag, comm, &reqs->req[i]), "rcmsg_isend");
}

int bench_irecv(void *buf, size_t len, int source, int tag, bench_reqs_t *reqs, size_t i)
{
    return check(rcmsg_irecv(buf, len, source, tag, comm, &reqs->req[i]), "rcmsg_irecv");
}

int bench_waitall(bench_reqs_t *reqs, size_t n)
{
    return check(rcmsg_waitall(n, reqs->req, NULL), "rcmsg_waitall");
}

int bench_send(const void *buf, size_t len, int dest, int tag)
{
    return check(rcmsg_send(buf, len, dest, tag, comm), "rcmsg_send");
}

int bench_recv(void *buf, size_t len, int source, int tag)
{
    return check(rcmsg_recv(buf, len, source, tag, comm, NULL), "rcmsg_recv");
}

int bench_barrier(void)
{
    return check(rcmsg_barrier(comm), "rcmsg_barrier");
}

int bench_bcast(void *buf, size_t len, int root)
{
    return check(rcmsg_bcast(buf, len, RCMSG_UINT8, root, comm), "rcmsg_bcast");
}

int bench_allreduce_sum(const double *sendbuf, double *recvbuf, size_t count)
{
    return check(rcmsg_allreduce(sendbuf, recvbuf, count, RCMSG_DOUBLE, RCMSG_SUM, comm),
                 "rcmsg_allreduce");
}

int bench_iallreduce_sum(const double *sendbuf, double *recvbuf, size_t count, bench_reqs_t *reqs,
                         size_t i)
{
    return check(
        rcmsg_iallreduce(sendbuf, recvbuf, count, RCMSG_DOUBLE, RCMSG_SUM, comm, &reqs->req[i]),
        "rcmsg_iallreduce");
}

int bench_allgather(const void *sendbuf, void *recvbuf, size_t len)
{
    return check(rcmsg_allgather(sendbuf, recvbuf, len, RCMSG_UINT8, comm), "rcmsg_allgather");
}

int bench_alltoall(const void *sendbuf, void *recvbuf, size_t len)
{
    return check(rcmsg_alltoall(sendbuf, recvbuf, len, RCMSG_UINT8, comm), "rcmsg_alltoall");
}

int bench_reduce_sum(const double *sendbuf, double *recvbuf, size_t count, int root)
{
    return check(rcmsg_reduce(sendbuf, recvbuf, count, RCMSG_DOUBLE, RCMSG_SUM, root, comm),
                 "rcmsg_reduce");
}

int bench_gather(const void *sendbuf, void *recvbuf, size_t len, int root)
{
    return check(rcmsg_gather(sendbuf, recvbuf, len, RCMSG_UINT8, root, comm), "rcmsg_gather");
}

int bench_scatter(const void *sendbuf, void *recvbuf, size_t len, int root)
{
    return check(rcmsg_scatter(sendbuf, recvbuf, len, RCMSG_UINT8, root, comm), "rcmsg_scatter");
}

int bench_reduce_scatter_block_sum(const double *sendbuf, double *recvbuf, size_t count)
{
    return check(rcmsg_reduce_scatter_block(sendbuf, recvbuf, count, RCMSG_DOUBLE, RCMSG_SUM, comm),
                 "rcmsg_reduce_scatter_block");
}
