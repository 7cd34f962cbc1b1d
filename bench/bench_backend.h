/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The few communication calls bench/bench.c measures, so that the very same measurement code
 * runs over rcmsg (bench/backend_rcmsg.c) and over MPI (bench/backend_mpi.c, built with an
 * MPI compiler wrapper). Messages are bytes on the world communicator (over rcmsg, on its
 * duplicate with BENCH_COMM=dup).
 *
 * Every call returns 0 on success. On failure the backend prints one line to stderr naming
 * the call and the library's error text, and returns -1; the caller then gives up with
 * bench_abort(), which ends every rank of the job.
 */
#ifndef BENCH_BACKEND_H
#define BENCH_BACKEND_H

#include <stddef.h>

/* A fixed set of request slots, allocated before timing (no allocation in timed loops). */
typedef struct bench_reqs bench_reqs_t;

int bench_init(int *argc_p, char ***argv_p);
int bench_finalize(void);
/* Ends the whole job at once with this exit status (after an error on one rank). */
void bench_abort(int status);
int bench_rank(void);
int bench_size(void);
/* The library and its version, e.g. "rcmsg 0.1.0" or "Open MPI v4.1.4". */
const char *bench_library(void);
/* Seconds since some fixed point in the past (bench.c: CLOCK_MONOTONIC for every library). */
double bench_wtime(void);

/* n slots; NULL when out of memory. */
bench_reqs_t *bench_reqs_new(size_t n);
void bench_reqs_free(bench_reqs_t *reqs);
/* Start an operation in slot i (i < n; the slot must be free). */
int bench_isend(const void *buf, size_t len, int dest, int tag, bench_reqs_t *reqs, size_t i);
int bench_irecv(void *buf, size_t len, int source, int tag, bench_reqs_t *reqs, size_t i);
/* Completes slots 0..n-1, which become free again. */
int bench_waitall(bench_reqs_t *reqs, size_t n);

int bench_send(const void *buf, size_t len, int dest, int tag);
int bench_recv(void *buf, size_t len, int source, int tag);

int bench_barrier(void);
int bench_bcast(void *buf, size_t len, int root);
/* Element-wise sum of count doubles. */
int bench_allreduce_sum(const double *sendbuf, double *recvbuf, size_t count);
/* The same, nonblocking, in slot i (bench_waitall completes it): rcmsg_iallreduce,
 * MPI_Iallreduce. */
int bench_iallreduce_sum(const double *sendbuf, double *recvbuf, size_t count, bench_reqs_t *reqs,
                         size_t i);
/* len bytes from each rank; rank i's block at recvbuf + i * len. */
int bench_allgather(const void *sendbuf, void *recvbuf, size_t len);
/* Block j (len bytes) of sendbuf goes to rank j; block i of recvbuf comes from rank i. */
int bench_alltoall(const void *sendbuf, void *recvbuf, size_t len);
/* Element-wise sum of count doubles into recvbuf at root (recvbuf matters there only). */
int bench_reduce_sum(const double *sendbuf, double *recvbuf, size_t count, int root);
/* len bytes from each rank to root; rank i's block at recvbuf + i * len (at root only). */
int bench_gather(const void *sendbuf, void *recvbuf, size_t len, int root);
/* Block i (len bytes) of root's sendbuf goes to rank i's recvbuf (sendbuf matters at root). */
int bench_scatter(const void *sendbuf, void *recvbuf, size_t len, int root);
/* Element-wise sum of size * count doubles; rank i gets block i of the sum (count doubles). */
int bench_reduce_scatter_block_sum(const double *sendbuf, double *recvbuf, size_t count);

#endif /* BENCH_BACKEND_H */
