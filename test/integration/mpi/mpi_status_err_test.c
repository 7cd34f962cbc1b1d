/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A status's error field (MPI-3.1 3.2.5): calls that give one status leave MPI_ERROR as the
 * program set it: Recv, Probe, Iprobe, Mprobe, Improbe, Mrecv, Sendrecv, Wait, Test,
 * Waitany, Request_get_status, and a receive or probe of MPI_PROC_NULL (whose source and
 * tag are still set); source, tag and count are filled in as always. Ring: each rank sends
 * to its right neighbour and receives from its left (1 rank: itself).
 */
#include "mpi_test.h"

#define MARK 12345 /* what the program leaves in MPI_ERROR */

static MPI_Status fresh(void)
{
    MPI_Status st;

    memset(&st, 0xab, sizeof(st));
    st.MPI_ERROR = MARK;
    return st;
}

#define KEPT(st, what, src)                                                                        \
    CHECK((st).MPI_ERROR == MARK && (st).MPI_SOURCE == (src), "%s: error field %d, source %d",     \
          what, (st).MPI_ERROR, (st).MPI_SOURCE)

static void test_single(void)
{
    int right = (me + 1) % np, left = (me + np - 1) % np, v = me, got = -1, flag = 0, idx;
    MPI_Status st;
    MPI_Request rq;
    MPI_Message msg;

    OK(MPI_Isend(&v, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &rq));
    st = fresh();
    OK(MPI_Probe(left, 1, MPI_COMM_WORLD, &st));
    KEPT(st, "Probe", left);
    st = fresh();
    do {
        OK(MPI_Iprobe(left, 1, MPI_COMM_WORLD, &flag, &st));
    } while (!flag);
    KEPT(st, "Iprobe", left);
    st = fresh();
    OK(MPI_Recv(&got, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
    KEPT(st, "Recv", left);
    CHECK(got == left, "Recv: %d", got);
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    OK(MPI_Isend(&v, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &rq));
    st = fresh();
    OK(MPI_Mprobe(left, 2, MPI_COMM_WORLD, &msg, &st));
    KEPT(st, "Mprobe", left);
    st = fresh();
    OK(MPI_Mrecv(&got, 1, MPI_INT, &msg, &st));
    KEPT(st, "Mrecv", left);
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    st = fresh();
    OK(MPI_Sendrecv(&v, 1, MPI_INT, right, 3, &got, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &st));
    KEPT(st, "Sendrecv", left);
    OK(MPI_Irecv(&got, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &rq));
    OK(MPI_Send(&v, 1, MPI_INT, right, 4, MPI_COMM_WORLD));
    st = fresh();
    do {
        OK(MPI_Request_get_status(rq, &flag, &st));
    } while (!flag);
    KEPT(st, "Request_get_status", left);
    st = fresh();
    OK(MPI_Wait(&rq, &st));
    KEPT(st, "Wait", left);
    OK(MPI_Irecv(&got, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &rq));
    OK(MPI_Send(&v, 1, MPI_INT, right, 5, MPI_COMM_WORLD));
    st = fresh();
    OK(MPI_Waitany(1, &rq, &idx, &st));
    KEPT(st, "Waitany", left);
    OK(MPI_Irecv(&got, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &rq));
    OK(MPI_Send(&v, 1, MPI_INT, right, 6, MPI_COMM_WORLD));
    st = fresh();
    do {
        OK(MPI_Test(&rq, &flag, &st));
    } while (!flag);
    KEPT(st, "Test", left);
}

static void test_proc_null(void)
{
    int got, flag = 0;
    MPI_Status st;
    MPI_Message msg;

    st = fresh();
    OK(MPI_Recv(&got, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    KEPT(st, "Recv from PROC_NULL", MPI_PROC_NULL);
    CHECK(st.MPI_TAG == MPI_ANY_TAG, "PROC_NULL: tag %d", st.MPI_TAG);
    st = fresh();
    OK(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    KEPT(st, "Probe of PROC_NULL", MPI_PROC_NULL);
    st = fresh();
    OK(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &msg, &st));
    KEPT(st, "Improbe of PROC_NULL", MPI_PROC_NULL);
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "Improbe of PROC_NULL: flag %d", flag);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    phases_expected = 2;
    test_single();
    phase("the single-status calls leave MPI_ERROR as the program set it");
    test_proc_null();
    phase("receives and probes of MPI_PROC_NULL: source and tag set, MPI_ERROR left");
    MPI_Finalize();
    return summary();
}
