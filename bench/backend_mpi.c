/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_backend.h over MPI (mpi.h; built with mpicc): messages of MPI_BYTE on MPI_COMM_WORLD,
 * so that Open MPI and MPICH run the same measurement code as rcmsg. Errors are returned, not
 * fatal, so that they are reported the same way as rcmsg's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* program_invocation_short_name */
#endif
#include "bench_backend.h"

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bench_reqs {
    size_t n;
    MPI_Request req[];
};

static char library[MPI_MAX_LIBRARY_VERSION_STRING];
static int world_rank = -1, world_size = -1;
/* BENCH_OP=user: the sums (allreduce, reduce, reduce_scatter_block) use a user operation
 * (MPI_Op_create, commutative) instead of MPI_SUM: the cost of a user op (issue 39). */
static MPI_Op sum_op = MPI_SUM;

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const double *a = in;
    double *b = inout;

    (void)dt;
    for (int i = 0; i < *len; i++) {
        b[i] += a[i];
    }
}

static int check(int err, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (err == MPI_SUCCESS) {
        return 0;
    }
    if (MPI_Error_string(err, text, &len) != MPI_SUCCESS) {
        snprintf(text, sizeof(text), "MPI error %d", err);
    }
    fprintf(stderr, "%s: rank %d: %s: %s\n", program_invocation_short_name, world_rank, what, text);
    return -1;
}

/* MPI counts are ints. */
static int count_of(size_t len, int *count_p)
{
    if (len > (size_t)INT_MAX) {
        fprintf(stderr, "%s: %zu bytes do not fit an MPI count\n", program_invocation_short_name,
                len);
        return -1;
    }
    *count_p = (int)len;
    return 0;
}

int bench_init(int *argc_p, char ***argv_p)
{
    int len = 0;

    if (check(MPI_Init(argc_p, argv_p), "MPI_Init") != 0) {
        return -1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Get_library_version(library, &len);
    if (getenv("BENCH_OP") != NULL && strcmp(getenv("BENCH_OP"), "user") == 0 &&
        check(MPI_Op_create(user_sum, 1, &sum_op), "MPI_Op_create") != 0) {
        return -1;
    }
    library[strcspn(library, ",\n")] = '\0'; /* "Open MPI v4.1.4", "MPICH Version:\t4.0.2" */
    if (strncmp(library, "MPICH Version:", 14) == 0) {
        size_t skip = 14 + strspn(library + 14, " \t");
        memmove(library + 6, library + skip, strlen(library + skip) + 1); /* "MPICH 4.0.2" */
    }
    return 0;
}

int bench_finalize(void)
{
    return check(MPI_Finalize(), "MPI_Finalize");
}

void bench_abort(int status)
{
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, status);
    exit(status);
}

int bench_rank(void)
{
    return world_rank;
}

int bench_size(void)
{
    return world_size;
}

const char *bench_library(void)
{
    return library;
}

bench_reqs_t *bench_reqs_new(size_t n)
{
    bench_reqs_t *reqs = malloc(sizeof(*reqs) + n * sizeof(reqs->req[0]));

    if (reqs != NULL) {
        reqs->n = n;
        for (size_t i = 0; i < n; i++) {
            reqs->req[i] = MPI_REQUEST_NULL;
        }
    }
    return reqs;
}

void bench_reqs_free(bench_reqs_t *reqs)
{
    free(reqs);
}

int bench_isend(const void *buf, size_t len, int dest, int tag, bench_reqs_t *reqs, size_t i)
{
    int count;

    if (count_of(len, &count) != 0) {
        return -1;
    }
    return check(MPI_Isend(buf, count, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &reqs->req[i]),
                 "MPI_Isend");
}

int bench_irecv(void *buf, size_t len, int source, int tag, bench_reqs_t *reqs, size_t i)
{
    int count;

    if (count_of(len, &count) != 0) {
        return -1;
    }
    return check(MPI_Irecv(buf, count, MPI_BYTE, source, tag, MPI_COMM_WORLD, &reqs->req[i]),
                 "MPI_Irecv");
}

/* GCC 12 takes MPICH's MPI_STATUSES_IGNORE ((MPI_Status *)1) for an array of size 0 and warns
 * (-Wstringop-overflow); statuses are ignored on purpose, as rcmsg's waitall is given NULL. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
int bench_waitall(bench_reqs_t *reqs, size_t n)
{
    return check(MPI_Waitall((int)n, reqs->req, MPI_STATUSES_IGNORE), "MPI_Waitall");
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

int bench_send(const void *buf, size_t len, int dest, int tag)
{
    int count;

    if (count_of(len, &count) != 0) {
        return -1;
    }
    return check(MPI_Send(buf, count, MPI_BYTE, dest, tag, MPI_COMM_WORLD), "MPI_Send");
}

int bench_recv(void *buf, size_t len, int source, int tag)
{
    int count;

    if (count_of(len, &count) != 0) {
        return -1;
    }
    return check(MPI_Recv(buf, count, MPI_BYTE, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 "MPI_Recv");
}

int bench_barrier(void)
{
    return check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

int bench_bcast(void *buf, size_t len, int root)
{
    int count;

    if (count_of(len, &count) != 0) {
        return -1;
    }
    return check(MPI_Bcast(buf, count, MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
}

int bench_allreduce_sum(const double *sendbuf, double *recvbuf, size_t count)
{
    int n;

    if (count_of(count, &n) != 0) {
        return -1;
    }
    return check(MPI_Allreduce(sendbuf, recvbuf, n, MPI_DOUBLE, sum_op, MPI_COMM_WORLD),
                 "MPI_Allreduce");
}

int bench_iallreduce_sum(const double *sendbuf, double *recvbuf, size_t count, bench_reqs_t *reqs,
                         size_t i)
{
    int n;

    if (count_of(count, &n) != 0) {
        return -1;
    }
    return check(
        MPI_Iallreduce(sendbuf, recvbuf, n, MPI_DOUBLE, sum_op, MPI_COMM_WORLD, &reqs->req[i]),
        "MPI_Iallreduce");
}

int bench_allgather(const void *sendbuf, void *recvbuf, size_t len)
{
    int count;

    if (count_of(len, &count) != 0) {
        return -1;
    }
    return check(MPI_Allgather(sendbuf, count, MPI_BYTE, recvbuf, count, MPI_BYTE, MPI_COMM_WORLD),
                 "MPI_Allgather");
}

int bench_alltoall(const void *sendbuf, void *recvbuf, size_t len)
{
    int count;

    if (count_of(len, &count) != 0) {
        return -1;
    }
    return check(MPI_Alltoall(sendbuf, count, MPI_BYTE, recvbuf, count, MPI_BYTE, MPI_COMM_WORLD),
                 "MPI_Alltoall");
}

int bench_reduce_sum(const double *sendbuf, double *recvbuf, size_t count, int root)
{
    int n;

    if (count_of(count, &n) != 0) {
        return -1;
    }
    return check(MPI_Reduce(sendbuf, recvbuf, n, MPI_DOUBLE, sum_op, root, MPI_COMM_WORLD),
                 "MPI_Reduce");
}

int bench_gather(const void *sendbuf, void *recvbuf, size_t len, int root)
{
    int count;

    if (count_of(len, &count) != 0) {
        return -1;
    }
    return check(
        MPI_Gather(sendbuf, count, MPI_BYTE, recvbuf, count, MPI_BYTE, root, MPI_COMM_WORLD),
        "MPI_Gather");
}

int bench_scatter(const void *sendbuf, void *recvbuf, size_t len, int root)
{
    int count;

    if (count_of(len, &count) != 0) {
        return -1;
    }
    return check(
        MPI_Scatter(sendbuf, count, MPI_BYTE, recvbuf, count, MPI_BYTE, root, MPI_COMM_WORLD),
        "MPI_Scatter");
}

int bench_reduce_scatter_block_sum(const double *sendbuf, double *recvbuf, size_t count)
{
    int n;

    if (count_of(count, &n) != 0) {
        return -1;
    }
    return check(MPI_Reduce_scatter_block(sendbuf, recvbuf, n, MPI_DOUBLE, sum_op, MPI_COMM_WORLD),
                 "MPI_Reduce_scatter_block");
}
