/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The request-based one-sided calls (MPI-3.1 11.3.5): Rput, Rget, Raccumulate and
 * Rget_accumulate inside Win_lock_all and Win_lock epochs: data checked once the request is
 * waited for (Rget's buffer, Rget_accumulate's result), Raccumulate's sums exact from every
 * rank, Test and Waitall on their requests, MPI_PROC_NULL targets; outside a passive-target
 * epoch (under fence) each fails with MPI_ERR_RMA_SYNC and leaves MPI_REQUEST_NULL.
 */
#include "mpi_test.h"

#define N 16

static void test_put_get(MPI_Win win, int *mem)
{
    int right = (me + 1) % np, src[N], got[N], flag = 0;
    MPI_Request rq[2];

    for (int i = 0; i < N; i++) {
        src[i] = me * 1000 + i;
    }
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Rput(src, N, MPI_INT, right, 0, N, MPI_INT, win, &rq[0]));
    OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK(rq[0] == MPI_REQUEST_NULL, "Wait released the Rput request");
    OK(MPI_Rget(got, N, MPI_INT, right, 0, N, MPI_INT, win, &rq[0]));
    OK(MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE));
    if (!flag) {
        OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < N; i++) {
        CHECK(got[i] == me * 1000 + i, "Rget [%d] = %d, expected %d", i, got[i], me * 1000 + i);
    }
    OK(MPI_Rput(src, N, MPI_INT, MPI_PROC_NULL, 0, N, MPI_INT, win, &rq[0]));
    OK(MPI_Rget(got, N, MPI_INT, MPI_PROC_NULL, 0, N, MPI_INT, win, &rq[1]));
    OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        int from = (me + np - 1) % np;

        CHECK(mem[i] == from * 1000 + i, "Rput from %d: [%d] = %d", from, i, mem[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void test_accumulate(MPI_Win win, int *mem)
{
    int one[N], old[N];
    MPI_Request rq;

    for (int i = 0; i < N; i++) {
        one[i] = i + 1;
        mem[N + i] = 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    OK(MPI_Raccumulate(one, N, MPI_INT, 0, N, N, MPI_INT, MPI_SUM, win, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    OK(MPI_Win_unlock(0, win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        for (int i = 0; i < N; i++) {
            CHECK(mem[N + i] == np * (i + 1), "Raccumulate SUM [%d] = %d, expected %d", i,
                  mem[N + i], np * (i + 1));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    OK(MPI_Rget_accumulate(one, N, MPI_INT, old, N, MPI_INT, 0, N, N, MPI_INT, MPI_NO_OP, win,
                           &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    OK(MPI_Win_unlock(0, win));
    for (int i = 0; i < N; i++) {
        CHECK(old[i] == np * (i + 1), "Rget_accumulate NO_OP [%d] = %d", i, old[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void test_sync_error(MPI_Win win)
{
    int v = 1;
    MPI_Request rq = (MPI_Request)12345;

    OK(MPI_Win_fence(0, win));
    FAILS(MPI_Rput(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win, &rq), MPI_ERR_RMA_SYNC);
    CHECK(rq == MPI_REQUEST_NULL, "a failed Rput leaves MPI_REQUEST_NULL");
    FAILS(MPI_Rget(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win, &rq), MPI_ERR_RMA_SYNC);
    FAILS(MPI_Raccumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win, &rq), MPI_ERR_RMA_SYNC);
    FAILS(MPI_Rget_accumulate(&v, 1, MPI_INT, &v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win, &rq),
          MPI_ERR_RMA_SYNC);
    OK(MPI_Win_fence(0, win));
}

int main(int argc, char **argv)
{
    int *mem;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    phases_expected = 3;
    OK(MPI_Win_allocate(2 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                        &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    test_put_get(win, mem);
    phase("Rput, Rget in a lock_all epoch: data after Wait / Test, PROC_NULL, Waitall");
    test_accumulate(win, mem);
    phase("Raccumulate (SUM, exact from every rank), Rget_accumulate (NO_OP) under locks");
    test_sync_error(win);
    phase("outside a passive-target epoch: MPI_ERR_RMA_SYNC, MPI_REQUEST_NULL");
    OK(MPI_Win_free(&win));
    MPI_Finalize();
    return summary();
}
