/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_backend.h over rcmsg (include/rcmsg.h): messages on rcmsg_comm_world(), collectives
 * on bytes (RCMSG_UINT8) or doubles.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* program_invocation_short_name */
#endif
#include "bench_backend.h"

#include <errno.h>
#include <rcmsg.h>
#include <stdio.h>
#include <stdlib.h>

struct bench_reqs {
    size_t n;
    rcmsg_request_t req[];
};

static char library[64];

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
    snprintf(library, sizeof(library), "rcmsg %s", rcmsg_version());
    return check(rcmsg_init(), "rcmsg_init");
}

int bench_finalize(void)
{
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
    return check(rcmsg_isend(buf, len, dest, tag, rcmsg_comm_world(), &reqs->req[i]),
                 "rcmsg_isend");
}

int bench_irecv(void *buf, size_t len, int source, int tag, bench_reqs_t *reqs, size_t i)
{
    return check(rcmsg_irecv(buf, len, source, tag, rcmsg_comm_world(), &reqs->req[i]),
                 "rcmsg_irecv");
}

int bench_waitall(bench_reqs_t *reqs, size_t n)
{
    return check(rcmsg_waitall(n, reqs->req, NULL), "rcmsg_waitall");
}

int bench_send(const void *buf, size_t len, int dest, int tag)
{
    return check(rcmsg_send(buf, len, dest, tag, rcmsg_comm_world()), "rcmsg_send");
}

int bench_recv(void *buf, size_t len, int source, int tag)
{
    return check(rcmsg_recv(buf, len, source, tag, rcmsg_comm_world(), NULL), "rcmsg_recv");
}

int bench_barrier(void)
{
    return check(rcmsg_barrier(rcmsg_comm_world()), "rcmsg_barrier");
}

int bench_bcast(void *buf, size_t len, int root)
{
    return check(rcmsg_bcast(buf, len, RCMSG_UINT8, root, rcmsg_comm_world()), "rcmsg_bcast");
}

int bench_allreduce_sum(const double *sendbuf, double *recvbuf, size_t count)
{
    return check(
        rcmsg_allreduce(sendbuf, recvbuf, count, RCMSG_DOUBLE, RCMSG_SUM, rcmsg_comm_world()),
        "rcmsg_allreduce");
}

int bench_allgather(const void *sendbuf, void *recvbuf, size_t len)
{
    return check(rcmsg_allgather(sendbuf, recvbuf, len, RCMSG_UINT8, rcmsg_comm_world()),
                 "rcmsg_allgather");
}

int bench_alltoall(const void *sendbuf, void *recvbuf, size_t len)
{
    return check(rcmsg_alltoall(sendbuf, recvbuf, len, RCMSG_UINT8, rcmsg_comm_world()),
                 "rcmsg_alltoall");
}

int bench_reduce_sum(const double *sendbuf, double *recvbuf, size_t count, int root)
{
    return check(
        rcmsg_reduce(sendbuf, recvbuf, count, RCMSG_DOUBLE, RCMSG_SUM, root, rcmsg_comm_world()),
        "rcmsg_reduce");
}

int bench_gather(const void *sendbuf, void *recvbuf, size_t len, int root)
{
    return check(rcmsg_gather(sendbuf, recvbuf, len, RCMSG_UINT8, root, rcmsg_comm_world()),
                 "rcmsg_gather");
}

int bench_scatter(const void *sendbuf, void *recvbuf, size_t len, int root)
{
    return check(rcmsg_scatter(sendbuf, recvbuf, len, RCMSG_UINT8, root, rcmsg_comm_world()),
                 "rcmsg_scatter");
}

int bench_reduce_scatter_block_sum(const double *sendbuf, double *recvbuf, size_t count)
{
    return check(rcmsg_reduce_scatter_block(sendbuf, recvbuf, count, RCMSG_DOUBLE, RCMSG_SUM,
                                            rcmsg_comm_world()),
                 "rcmsg_reduce_scatter_block");
}
