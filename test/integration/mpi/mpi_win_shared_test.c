/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared windows (MPI-3.1 11.2.3): Win_allocate_shared with a different size on each rank
 * (rank 1's 0 bytes); Win_shared_query gives each rank's size, disp_unit and base, the memory
 * contiguous in rank order (MPI's default), MPI_PROC_NULL the lowest rank with memory; stores
 * into a neighbour's memory through the queried pointer are seen by it (Win_sync and a barrier
 * in a lock_all epoch), Put and Get work on the window as on any other; MPI_WIN_FLAVOR_SHARED;
 * Win_shared_query of a window of Win_allocate fails with MPI_ERR_RMA_FLAVOR.
 */
#include "mpi_test.h"

#include <stdint.h>

#define N 8

static int elems(int r)
{
    return r == 1 ? 0 : N + r; /* rank 1 holds nothing */
}

static void test_query(MPI_Win win, int *mine)
{
    MPI_Aint sz;
    int du, *base, *prev_end = NULL, *flavor, flag;

    OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED, "flavor %d", flag ? *flavor : -1);
    for (int r = 0; r < np; r++) {
        OK(MPI_Win_shared_query(win, r, &sz, &du, &base));
        CHECK(sz == (MPI_Aint)(elems(r) * sizeof(int)) && du == (int)sizeof(int),
              "rank %d: size %ld, disp_unit %d", r, (long)sz, du);
        CHECK(r != me || sz == 0 || base == mine, "my own base %p, queried %p", (void *)mine,
              (void *)base);
        CHECK(sz == 0 || prev_end == NULL || base == prev_end, "rank %d's memory not contiguous",
              r);
        if (sz > 0) {
            prev_end = base + elems(r);
        }
    }
    OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &base));
    CHECK(sz == (MPI_Aint)(elems(0) * sizeof(int)), "PROC_NULL: rank 0's size %ld", (long)sz);
}

static void test_load_store(MPI_Win win, int *mine)
{
    int right = (me + 1) % np, left = (me + np - 1) % np, *rb, du, got = -1;
    MPI_Aint sz;

    for (int i = 0; i < elems(me); i++) {
        mine[i] = -1;
    }
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Win_shared_query(win, right, &sz, &du, &rb));
    if (sz > 0) {
        rb[0] = 1000 + me; /* a plain store into the neighbour's memory */
    }
    OK(MPI_Win_sync(win));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_sync(win));
    if (elems(me) > 0) {
        CHECK(mine[0] == 1000 + left, "store from %d: %d", left, mine[0]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (elems(right) > 1) {
        int v = 2000 + me;

        OK(MPI_Put(&v, 1, MPI_INT, right, 1, 1, MPI_INT, win));
        OK(MPI_Win_flush(right, win));
        OK(MPI_Get(&got, 1, MPI_INT, right, 1, 1, MPI_INT, win));
        OK(MPI_Win_flush(right, win));
        CHECK(got == v, "Put then Get on a shared window: %d", got);
    }
    OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int *mine, *mem;
    MPI_Win win, plain;
    MPI_Aint sz;
    int du;
    void *b;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    phases_expected = 3;
    OK(MPI_Win_allocate_shared(elems(me) * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                               &mine, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    test_query(win, mine);
    phase("Win_allocate_shared, Win_shared_query: sizes, disp_units, contiguous bases, PROC_NULL");
    test_load_store(win, mine);
    phase("stores through queried pointers, Win_sync; Put and Get on the shared window");
    OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &plain));
    MPI_Win_set_errhandler(plain, MPI_ERRORS_RETURN);
    FAILS(MPI_Win_shared_query(plain, 0, &sz, &du, &b), MPI_ERR_RMA_FLAVOR);
    OK(MPI_Win_free(&plain));
    phase("Win_shared_query of a Win_allocate window: MPI_ERR_RMA_FLAVOR");
    OK(MPI_Win_free(&win));
    MPI_Finalize();
    return summary();
}
