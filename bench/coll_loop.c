/* SPDX-License-Identifier: BSD-3-Clause */
/* A loop of one blocking collective, for instruction counts (bench/coll_instr.sh):
 *   coll_loop COLL BYTES ITERS    COLL: allreduce, bcast, barrier, alltoall over rcmsg.h;
 *                                 mpi_allreduce_user: MPI_Allreduce of doubles with an
 *                                 MPI_Op_create sum (built with rcmsg-mpicc);
 *                                 mpi_inter_bcast, mpi_inter_allreduce: MPI_Bcast and
 *                                 MPI_Allreduce (doubles, MPI_SUM) over an intercommunicator of
 *                                 the world's two halves (even ranks, odd ranks) */
#include <rcmsg.h>
#ifdef COLL_LOOP_MPI
#include <mpi.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef COLL_LOOP_MPI
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const double *a = in;
    double *b = inout;

    (void)dt;
    for (int i = 0; i < *len; i++) {
        b[i] += a[i];
    }
}

/* one call over an intercommunicator of the even and the odd ranks: the even group's rank 0
 * is the bcast root */
static int mpi_inter_one(const char *c, MPI_Comm ic, double *x, double *y, int n, int even)
{
    int lrank;

    MPI_Comm_rank(ic, &lrank);
    if (strcmp(c, "mpi_inter_bcast") == 0) {
        return MPI_Bcast(y, n, MPI_DOUBLE, even ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic);
    }
    return MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, ic);
}

static int mpi_inter_loop(int argc, char **argv, const char *c, size_t bytes, int iters)
{
    double *x = calloc(bytes / 8 + 1, 8), *y = calloc(bytes / 8 + 1, 8);
    MPI_Comm half, ic;
    int rank, err = MPI_SUCCESS;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &ic);
    for (int i = 0; i < iters && err == MPI_SUCCESS; i++) {
        err = mpi_inter_one(c, ic, x, y, (int)(bytes / 8), rank % 2 == 0);
    }
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
    MPI_Finalize();
    free(x);
    free(y);
    return err == MPI_SUCCESS ? 0 : 1;
}

static int mpi_loop(int argc, char **argv, size_t bytes, int iters)
{
    double *x = calloc(bytes / 8 + 1, 8), *y = calloc(bytes / 8 + 1, 8);
    MPI_Op op;
    int err = MPI_SUCCESS;

    MPI_Init(&argc, &argv);
    MPI_Op_create(user_sum, 1, &op);
    for (int i = 0; i < iters && err == MPI_SUCCESS; i++) {
        err = MPI_Allreduce(x, y, (int)(bytes / 8), MPI_DOUBLE, op, MPI_COMM_WORLD);
    }
    MPI_Op_free(&op);
    MPI_Finalize();
    free(x);
    free(y);
    return err == MPI_SUCCESS ? 0 : 1;
}
#endif

static rcmsg_status_t one(const char *c, char *s, char *r, size_t bytes, rcmsg_comm_t w)
{
    if (strcmp(c, "allreduce") == 0) {
        return rcmsg_allreduce(s, r, bytes / 8, RCMSG_DOUBLE, RCMSG_SUM, w);
    }
    if (strcmp(c, "bcast") == 0) {
        return rcmsg_bcast(r, bytes, RCMSG_UINT8, 0, w);
    }
    if (strcmp(c, "barrier") == 0) {
        return rcmsg_barrier(w);
    }
    if (strcmp(c, "alltoall") == 0) {
        return rcmsg_alltoall(s, r, bytes, RCMSG_UINT8, w);
    }
    fprintf(stderr, "coll_loop: unknown collective '%s'\n", c);
    return RCMSG_ERR_INVALID_PARAM;
}

int main(int argc, char **argv)
{
    rcmsg_status_t st = RCMSG_OK;
    size_t bytes;
    int iters;
    char *s, *r;

    if (argc != 4) {
        fprintf(stderr, "usage: coll_loop COLL BYTES ITERS\n");
        return 2;
    }
    bytes = strtoul(argv[2], NULL, 0);
    iters = atoi(argv[3]);
#ifdef COLL_LOOP_MPI
    if (strcmp(argv[1], "mpi_allreduce_user") == 0) {
        return mpi_loop(argc, argv, bytes, iters);
    }
    if (strncmp(argv[1], "mpi_inter_", 10) == 0) {
        return mpi_inter_loop(argc, argv, argv[1], bytes, iters);
    }
#endif
    if (rcmsg_init() != RCMSG_OK) {
        return 1;
    }
    s = calloc(bytes * (size_t)rcmsg_size() + 64, 1);
    r = calloc(bytes * (size_t)rcmsg_size() + 64, 1);
    for (int i = 0; i < iters && st == RCMSG_OK && s != NULL && r != NULL; i++) {
        st = one(argv[1], s, r, bytes, rcmsg_comm_world());
    }
    free(s);
    free(r);
    return rcmsg_finalize() == RCMSG_OK && st == RCMSG_OK ? 0 : 1;
}
