/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Empty messages (issue 38 item 13): a receive of count 0 (Recv, Irecv, Recv_init, Mrecv,
 * Sendrecv's receive side, Sendrecv_replace) with any datatype, MPI_DATATYPE_NULL included,
 * is valid and completes with an empty status: the sender's rank and tag, Get_count and
 * Get_elements 0. Sends of count 0 with MPI_DATATYPE_NULL are valid too (MPICH accepts both;
 * Open MPI 4.1 refuses both with MPI_ERR_TYPE). MPI_DATATYPE_NULL with a count above 0 stays
 * MPI_ERR_TYPE. Each rank sends to right = rank + 1 and receives from left = rank - 1 (1 rank:
 * itself). Prints "ok: <phase>" (rank 0) and "rank R of N: F failure(s)".
 */
#include "mpi_test.h"

static int left, right;

/* the last one: a derived type (vector), built in main */
static MPI_Datatype types[] = {MPI_DATATYPE_NULL, MPI_INT, MPI_BYTE, MPI_DOUBLE_INT,
                               MPI_DATATYPE_NULL};
#define NTYPES (int)(sizeof(types) / sizeof(types[0]))

/* an empty status from left with tag (the status was filled with garbage before) */
static void check_empty(const MPI_Status *st, int tag, const char *what, int ti)
{
    int c = -1, e = -1;

    MPI_Get_count(st, MPI_INT, &c);
    MPI_Get_elements(st, MPI_INT, &e);
    CHECK(st->MPI_SOURCE == left && st->MPI_TAG == tag && c == 0 && e == 0,
          "%s (type %d): source %d tag %d count %d elements %d, want %d %d 0 0", what, ti,
          st->MPI_SOURCE, st->MPI_TAG, c, e, left, tag);
}

static void garbage(MPI_Status *st)
{
    memset(st, 0x5a, sizeof(*st));
}

/* each receive call of count 0 with type ti, from sends of count 0 with type si */
static void receives(int ti, int si)
{
    MPI_Datatype t = types[ti], s = types[si];
    MPI_Request rq, sq;
    MPI_Status st;
    MPI_Message msg;
    int tag = 10 * ti;

    garbage(&st);
    OK(MPI_Isend(NULL, 0, s, right, tag + 1, MPI_COMM_WORLD, &sq));
    OK(MPI_Recv(NULL, 0, t, MPI_ANY_SOURCE, tag + 1, MPI_COMM_WORLD, &st));
    OK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    check_empty(&st, tag + 1, "Recv", ti);

    garbage(&st);
    OK(MPI_Irecv(NULL, 0, t, left, MPI_ANY_TAG, MPI_COMM_WORLD, &rq));
    OK(MPI_Send(NULL, 0, s, right, tag + 2, MPI_COMM_WORLD));
    OK(MPI_Wait(&rq, &st));
    check_empty(&st, tag + 2, "Irecv", ti);

    OK(MPI_Recv_init(NULL, 0, t, left, tag + 3, MPI_COMM_WORLD, &rq));
    OK(MPI_Ssend_init(NULL, 0, s, right, tag + 3, MPI_COMM_WORLD, &sq));
    for (int round = 0; round < 2; round++) {
        garbage(&st);
        OK(MPI_Start(&rq));
        OK(MPI_Start(&sq));
        OK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
        OK(MPI_Wait(&rq, &st));
        check_empty(&st, tag + 3, "Recv_init", ti);
    }
    OK(MPI_Request_free(&rq));
    OK(MPI_Request_free(&sq));

    garbage(&st);
    OK(MPI_Sendrecv(NULL, 0, s, right, tag + 4, NULL, 0, t, left, tag + 4, MPI_COMM_WORLD, &st));
    check_empty(&st, tag + 4, "Sendrecv", ti);

    garbage(&st);
    OK(MPI_Sendrecv_replace(NULL, 0, t, right, tag + 5, left, tag + 5, MPI_COMM_WORLD, &st));
    check_empty(&st, tag + 5, "Sendrecv_replace", ti);

    garbage(&st);
    OK(MPI_Issend(NULL, 0, s, right, tag + 6, MPI_COMM_WORLD, &sq));
    OK(MPI_Mprobe(left, tag + 6, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE));
    OK(MPI_Mrecv(NULL, 0, t, &msg, &st));
    OK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    check_empty(&st, tag + 6, "Mrecv", ti);
}

/* MPI_DATATYPE_NULL with a count: still refused, on both sides */
static void refusals(void)
{
    MPI_Request rq;
    int x = 0;

    FAILS(MPI_Send(&x, 1, MPI_DATATYPE_NULL, right, 1, MPI_COMM_WORLD), MPI_ERR_TYPE);
    FAILS(MPI_Recv(&x, 1, MPI_DATATYPE_NULL, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          MPI_ERR_TYPE);
    FAILS(MPI_Irecv(&x, 2, MPI_DATATYPE_NULL, left, 1, MPI_COMM_WORLD, &rq), MPI_ERR_TYPE);
    FAILS(MPI_Recv_init(&x, 1, MPI_DATATYPE_NULL, left, 1, MPI_COMM_WORLD, &rq), MPI_ERR_TYPE);
    FAILS(MPI_Recv(&x, 0, (MPI_Datatype)0x03abcdef, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          MPI_ERR_TYPE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    phases_expected = 3;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    right = (me + 1) % np;
    left = (me + np - 1) % np;
    OK(MPI_Type_vector(3, 1, 2, MPI_INT, &types[NTYPES - 1]));
    OK(MPI_Type_commit(&types[NTYPES - 1]));
    for (int ti = 0; ti < NTYPES; ti++) {
        receives(ti, ti);
        test_barrier(MPI_COMM_WORLD);
    }
    phase("receives of count 0 (MPI_DATATYPE_NULL, INT, BYTE, DOUBLE_INT, a vector) from sends "
          "alike");
    for (int ti = 0; ti < NTYPES; ti++) {
        receives(ti, (ti + 1) % NTYPES);
        test_barrier(MPI_COMM_WORLD);
    }
    phase("receives of count 0 from sends of count 0 of another type");
    refusals();
    phase("MPI_DATATYPE_NULL with a count above 0 refused");
    OK(MPI_Type_free(&types[NTYPES - 1]));
    MPI_Finalize();
    return summary();
}
