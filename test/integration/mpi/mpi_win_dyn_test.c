/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dynamic windows (MPI-3.1 11.2.4; issue 43): MPI_Win_create_dynamic, MPI_Win_attach,
 * MPI_Win_detach, target displacements that are the target's addresses (MPI_Get_address,
 * exchanged by MPI_Allgather of MPI_Aint):
 * - the window's attributes: flavor MPI_WIN_FLAVOR_DYNAMIC, base MPI_BOTTOM, size 0;
 * - regions attached after creation; Put, Get (a vector target type too), Accumulate,
 *   Get_accumulate, Fetch_and_op, Compare_and_swap from every rank (the counters on rank 0:
 *   exact), and Rput, Rget, Raccumulate, Rget_accumulate, under each synchronization: fence,
 *   Win_lock (shared) + Win_flush, Win_lock_all + Win_flush_all, PSCW;
 * - detach and attach again (the same memory, and new memory at other addresses), then every
 *   operation again;
 * - regions attached and detached by each rank while its left neighbour reads them (40 rounds,
 *   a new region each, told by a message; the oldest detached as they go);
 * - errors: an access beyond a region, straddling its end, into a detached region, for Put,
 *   Get, Accumulate, Fetch_and_op and Compare_and_swap (MPI_ERR_RMA_RANGE, nothing written);
 *   attaching overlapping memory (MPI_ERR_RMA_ATTACH); detaching what is not attached
 *   (MPI_ERR_RMA_RANGE); attach on another flavor (MPI_ERR_RMA_FLAVOR); a negative size;
 * - a Put and a Get across two adjacent regions.
 */
#include "mpi_test.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define N      64 /* ints in each rank's region (its buffer holds 2 N: the rest not attached) */
#define ROUNDS 40

enum { SYNC_FENCE, SYNC_LOCK, SYNC_LOCK_ALL, SYNC_PSCW, SYNC_COUNT };
static const char *const sync_name[SYNC_COUNT] = {"fence", "lock", "lock_all", "PSCW"};

static int right, left;
static MPI_Aint *mem_at, *ctr_at; /* [np]: each rank's region and counters, as addresses */

static void exchange(void *mem, long long *ctr)
{
    MPI_Aint mine;

    MPI_Get_address(mem, &mine);
    OK(MPI_Allgather(&mine, 1, MPI_AINT, mem_at, 1, MPI_AINT, MPI_COMM_WORLD));
    MPI_Get_address(ctr, &mine);
    OK(MPI_Allgather(&mine, 1, MPI_AINT, ctr_at, 1, MPI_AINT, MPI_COMM_WORLD));
}

static void epoch_open(MPI_Win win, int sync, MPI_Group world)
{
    switch (sync) {
    case SYNC_FENCE:
        OK(MPI_Win_fence(0, win));
        break;
    case SYNC_LOCK:
        OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
        if (right != 0) {
            OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        }
        if (left != 0 && left != right) {
            OK(MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win));
        }
        break;
    case SYNC_LOCK_ALL:
        OK(MPI_Win_lock_all(0, win));
        break;
    default:
        OK(MPI_Win_post(world, 0, win));
        OK(MPI_Win_start(world, 0, win));
    }
}

static void epoch_close(MPI_Win win, int sync)
{
    switch (sync) {
    case SYNC_FENCE:
        OK(MPI_Win_fence(0, win));
        break;
    case SYNC_LOCK:
        OK(MPI_Win_flush(right, win));
        OK(MPI_Win_unlock(right, win));
        if (right != 0) {
            OK(MPI_Win_unlock(0, win));
        }
        if (left != 0 && left != right) {
            OK(MPI_Win_unlock(left, win));
        }
        break;
    case SYNC_LOCK_ALL:
        OK(MPI_Win_flush_all(win));
        OK(MPI_Win_unlock_all(win));
        break;
    default:
        OK(MPI_Win_complete(win));
        OK(MPI_Win_wait(win));
    }
}

/* Every operation under one synchronization: mem's [0, 8) from left's Put, [8, 12) from its
 * Rput, [16, 24) read by right; rank 0's counters: ctr[0] by Accumulate and Fetch_and_op,
 * ctr[1] by Get_accumulate, ctr[2] by Compare_and_swap, ctr[3] by Raccumulate. */
static void ops(MPI_Win win, int sync, int *mem, long long *ctr, MPI_Datatype vec)
{
    int src[8], got[8], rgot[4], vsrc[4];
    long long one = 1, thousand = 1000, fetched = -1, gacc = -1, cas = -1, swap = me + 1;
    long long zero = 0, racc = -1;
    int won = 0, winners = 0;
    MPI_Group world;
    MPI_Request req[4];
    bool passive = sync == SYNC_LOCK || sync == SYNC_LOCK_ALL;

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = 0; i < 2 * N; i++) {
        mem[i] = i < 16 || i >= 24 ? -1 : me * 1000 + i;
    }
    for (int i = 0; i < 8; i++) {
        src[i] = me * 100 + i;
        got[i] = -1;
    }
    for (int i = 0; i < 4; i++) {
        vsrc[i] = me * 10 + i;
    }
    memset(ctr, 0, 4 * sizeof(*ctr));
    test_barrier(MPI_COMM_WORLD);
    epoch_open(win, sync, world);
    OK(MPI_Put(src, 8, MPI_INT, right, mem_at[right], 8, MPI_INT, win));
    OK(MPI_Get(got, 8, MPI_INT, left, mem_at[left] + 16 * (MPI_Aint)sizeof(int), 8, MPI_INT, win));
    /* the vector: ints 32, 34, 36, 38 of right's region */
    OK(MPI_Put(vsrc, 4, MPI_INT, right, mem_at[right] + 32 * (MPI_Aint)sizeof(int), 1, vec, win));
    OK(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, ctr_at[0], 1, MPI_LONG_LONG, MPI_SUM, win));
    OK(MPI_Fetch_and_op(&thousand, &fetched, MPI_LONG_LONG, 0, ctr_at[0], MPI_SUM, win));
    OK(MPI_Get_accumulate(&one, 1, MPI_LONG_LONG, &gacc, 1, MPI_LONG_LONG, 0, ctr_at[0] + 8, 1,
                          MPI_LONG_LONG, MPI_SUM, win));
    OK(MPI_Compare_and_swap(&swap, &zero, &cas, MPI_LONG_LONG, 0, ctr_at[0] + 16, win));
    if (passive) {
        OK(MPI_Rput(src, 4, MPI_INT, right, mem_at[right] + 8 * (MPI_Aint)sizeof(int), 4, MPI_INT,
                    win, &req[0]));
        OK(MPI_Rget(rgot, 4, MPI_INT, left, mem_at[left] + 20 * (MPI_Aint)sizeof(int), 4, MPI_INT,
                    win, &req[1]));
        OK(MPI_Raccumulate(&one, 1, MPI_LONG_LONG, 0, ctr_at[0] + 24, 1, MPI_LONG_LONG, MPI_SUM,
                           win, &req[2]));
        OK(MPI_Rget_accumulate(NULL, 0, MPI_LONG_LONG, &racc, 1, MPI_LONG_LONG, 0, ctr_at[0] + 24,
                               1, MPI_LONG_LONG, MPI_NO_OP, win, &req[3]));
        OK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 4; i++) {
            CHECK(rgot[i] == left * 1000 + 20 + i, "%s: Rget [%d] = %d", sync_name[sync], i,
                  rgot[i]);
        }
        CHECK(racc >= 0 && racc <= np, "%s: Rget_accumulate read %lld", sync_name[sync], racc);
    }
    if (sync == SYNC_LOCK) { /* flushed: read back what this rank put */
        int back[8] = {0};
        OK(MPI_Win_flush(right, win));
        OK(MPI_Get(back, 8, MPI_INT, right, mem_at[right], 8, MPI_INT, win));
        OK(MPI_Win_flush(right, win));
        CHECK(memcmp(back, src, sizeof(src)) == 0, "lock: the Put read back differs: %d", back[0]);
    }
    epoch_close(win, sync);
    test_barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 8; i++) {
        CHECK(mem[i] == left * 100 + i, "%s: Put: mem[%d] = %d", sync_name[sync], i, mem[i]);
        CHECK(got[i] == left * 1000 + 16 + i, "%s: Get [%d] = %d", sync_name[sync], i, got[i]);
    }
    for (int i = 0; i < 4; i++) {
        CHECK(mem[32 + 2 * i] == left * 10 + i && mem[33 + 2 * i] == -1,
              "%s: vector Put: mem[%d] = %d, mem[%d] = %d", sync_name[sync], 32 + 2 * i,
              mem[32 + 2 * i], 33 + 2 * i, mem[33 + 2 * i]);
        CHECK(mem[8 + i] == (passive ? left * 100 + i : -1), "%s: Rput: mem[%d] = %d",
              sync_name[sync], 8 + i, mem[8 + i]);
    }
    CHECK(fetched >= 0 && fetched % 1000 <= np && fetched / 1000 < np, "%s: Fetch_and_op %lld",
          sync_name[sync], fetched);
    CHECK(gacc >= 0 && gacc < np, "%s: Get_accumulate %lld", sync_name[sync], gacc);
    won = cas == 0;
    OK(MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(winners == 1, "%s: %d Compare_and_swap found 0", sync_name[sync], winners);
    if (me == 0) {
        CHECK(ctr[0] == 1001LL * np, "%s: ctr[0] = %lld", sync_name[sync], ctr[0]);
        CHECK(ctr[1] == np, "%s: ctr[1] = %lld", sync_name[sync], ctr[1]);
        CHECK(ctr[2] >= 1 && ctr[2] <= np, "%s: ctr[2] = %lld", sync_name[sync], ctr[2]);
        CHECK(ctr[3] == (passive ? np : 0), "%s: ctr[3] = %lld", sync_name[sync], ctr[3]);
    }
    for (int i = 2 * N - N; i < 2 * N; i++) {
        CHECK(mem[i] == -1, "%s: memory not attached was written: mem[%d] = %d", sync_name[sync], i,
              mem[i]);
    }
    MPI_Group_free(&world);
}

static void all_ops(MPI_Win win, int *mem, long long *ctr, MPI_Datatype vec)
{
    for (int sync = 0; sync < SYNC_COUNT; sync++) {
        ops(win, sync, mem, ctr, vec);
    }
}

/* Each rank attaches a new region every round and tells its left neighbour, which reads it
 * (and the first one) at once and says so; the region of two rounds before is detached (read
 * and done), so the table changes while the others read it. */
static void moving(MPI_Win win, int *mem)
{
    int *reg[ROUNDS];
    MPI_Aint mine, theirs;
    int got[4], first = -1, ack = -1;

    OK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < ROUNDS; k++) {
        if (k >= 2) {
            OK(MPI_Win_detach(win, reg[k - 2]));
            free(reg[k - 2]);
        }
        reg[k] = malloc(4 * sizeof(int));
        for (int i = 0; i < 4; i++) {
            reg[k][i] = me * 10000 + k * 10 + i;
        }
        OK(MPI_Win_attach(win, reg[k], 4 * sizeof(int)));
        MPI_Get_address(reg[k], &mine);
        OK(MPI_Sendrecv(&mine, 1, MPI_AINT, left, 7, &theirs, 1, MPI_AINT, right, 7, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        OK(MPI_Get(got, 4, MPI_INT, right, theirs, 4, MPI_INT, win));
        OK(MPI_Get(&first, 1, MPI_INT, right, mem_at[right] + 16 * (MPI_Aint)sizeof(int), 1,
                   MPI_INT, win));
        OK(MPI_Win_flush(right, win));
        for (int i = 0; i < 4; i++) {
            CHECK(got[i] == right * 10000 + k * 10 + i, "round %d: got[%d] = %d", k, i, got[i]);
        }
        CHECK(first == right * 1000 + 16, "round %d: the first region's int 16 = %d", k, first);
        /* right's region k is read (and left has read this rank's) */
        OK(MPI_Sendrecv(&k, 1, MPI_INT, right, 9, &ack, 1, MPI_INT, left, 9, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        CHECK(ack == k, "round %d: left's acknowledgement of round %d", k, ack);
    }
    OK(MPI_Win_unlock_all(win));
    test_barrier(MPI_COMM_WORLD);
    for (int k = ROUNDS - 2; k < ROUNDS; k++) {
        OK(MPI_Win_detach(win, reg[k]));
        free(reg[k]);
    }
    (void)mem;
}

static void errors(MPI_Win win, int *mem, long long *ctr)
{
    int src[4] = {1, 2, 3, 4}, got[4];
    long long one = 1, res, cmp = 0;
    MPI_Aint end = mem_at[right] + N * (MPI_Aint)sizeof(int);
    MPI_Win other;
    int *gone = malloc(4 * sizeof(int));
    MPI_Aint gone_at, gone_right;

    MPI_Get_address(gone, &gone_at);
    OK(MPI_Win_attach(win, gone, 4 * sizeof(int)));
    OK(MPI_Sendrecv(&gone_at, 1, MPI_AINT, left, 8, &gone_right, 1, MPI_AINT, right, 8,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Win_detach(win, gone));
    test_barrier(MPI_COMM_WORLD); /* every rank's gone is detached */
    OK(MPI_Win_lock_all(0, win));
    FAILS(MPI_Put(src, 4, MPI_INT, right, end, 4, MPI_INT, win), MPI_ERR_RMA_RANGE);
    FAILS(MPI_Put(src, 4, MPI_INT, right, end - 2 * (MPI_Aint)sizeof(int), 4, MPI_INT, win),
          MPI_ERR_RMA_RANGE);
    FAILS(MPI_Get(got, 4, MPI_INT, right, gone_right, 4, MPI_INT, win), MPI_ERR_RMA_RANGE);
    FAILS(MPI_Get(got, 1, MPI_INT, right, 64, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    FAILS(MPI_Accumulate(&one, 1, MPI_LONG_LONG, right, end, 1, MPI_LONG_LONG, MPI_SUM, win),
          MPI_ERR_RMA_RANGE);
    FAILS(MPI_Fetch_and_op(&one, &res, MPI_LONG_LONG, right, end, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    FAILS(MPI_Compare_and_swap(&one, &cmp, &res, MPI_LONG_LONG, right, gone_right, win),
          MPI_ERR_RMA_RANGE);
    OK(MPI_Win_unlock_all(win));
    test_barrier(MPI_COMM_WORLD);
    for (int i = N; i < 2 * N; i++) {
        CHECK(mem[i] == -1, "a refused access wrote mem[%d] = %d", i, mem[i]);
    }
    /* attach and detach */
    FAILS(MPI_Win_attach(win, mem + 4, 8 * sizeof(int)), MPI_ERR_RMA_ATTACH);
    FAILS(MPI_Win_attach(win, mem, N * sizeof(int)), MPI_ERR_RMA_ATTACH);
    FAILS(MPI_Win_attach(win, mem + N - 1, 8 * sizeof(int)), MPI_ERR_RMA_ATTACH);
    FAILS(MPI_Win_attach(win, mem + N, -1), MPI_ERR_SIZE);
    FAILS(MPI_Win_detach(win, mem + 1), MPI_ERR_RMA_RANGE);
    FAILS(MPI_Win_detach(win, gone), MPI_ERR_RMA_RANGE);
    OK(MPI_Win_create(ctr, 4 * sizeof(*ctr), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &other));
    MPI_Win_set_errhandler(other, MPI_ERRORS_RETURN);
    FAILS(MPI_Win_attach(other, mem + N, 4), MPI_ERR_RMA_FLAVOR);
    FAILS(MPI_Win_detach(other, mem), MPI_ERR_RMA_FLAVOR);
    OK(MPI_Win_free(&other));
    free(gone);
}

/* Two adjacent regions (mem's two halves): one Put and one Get cross them. */
static void adjacent(MPI_Win win, int *mem)
{
    int src[4], back[4] = {0};

    for (int i = 0; i < 4; i++) {
        src[i] = me * 10 + i + 1;
    }
    OK(MPI_Win_attach(win, mem + N, N * sizeof(int)));
    test_barrier(MPI_COMM_WORLD);
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Put(src, 4, MPI_INT, right, mem_at[right] + (N - 2) * (MPI_Aint)sizeof(int), 4, MPI_INT,
               win));
    OK(MPI_Win_flush(right, win));
    OK(MPI_Get(back, 4, MPI_INT, right, mem_at[right] + (N - 2) * (MPI_Aint)sizeof(int), 4, MPI_INT,
               win));
    OK(MPI_Win_unlock_all(win));
    CHECK(memcmp(back, src, sizeof(src)) == 0, "across two regions: read back %d %d %d %d", back[0],
          back[1], back[2], back[3]);
    test_barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++) {
        CHECK(mem[N - 2 + i] == left * 10 + i + 1, "across two regions: mem[%d] = %d", N - 2 + i,
              mem[N - 2 + i]);
    }
    OK(MPI_Win_detach(win, mem + N));
}

int main(int argc, char **argv)
{
    int *mem, *mem2, flag = 0, *flavor = NULL, *unit = NULL;
    long long *ctr, *ctr2;
    MPI_Aint *size = NULL;
    void *base = &flag;
    MPI_Win win;
    MPI_Datatype vec;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    right = (me + 1) % np;
    left = (me + np - 1) % np;
    phases_expected = 6;
    mem_at = calloc((size_t)np, sizeof(MPI_Aint));
    ctr_at = calloc((size_t)np, sizeof(MPI_Aint));
    mem = malloc(2 * N * sizeof(int));
    ctr = malloc(4 * sizeof(*ctr));
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);

    OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC, "flavor %d", flag ? *flavor : -1);
    OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
    CHECK(flag && base == MPI_BOTTOM, "base %p", base);
    OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag));
    CHECK(flag && *size == 0, "size %lld", flag ? (long long)*size : -1LL);
    OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
    CHECK(flag && *unit == 1, "disp_unit %d", flag ? *unit : -1);
    phase("Win_create_dynamic: flavor DYNAMIC, base MPI_BOTTOM, size 0, disp_unit 1");

    OK(MPI_Win_attach(win, mem, N * sizeof(int)));
    OK(MPI_Win_attach(win, ctr, 4 * sizeof(*ctr)));
    exchange(mem, ctr);
    all_ops(win, mem, ctr, vec);
    phase("attached after creation: every operation under fence, lock, lock_all, PSCW");

    test_barrier(MPI_COMM_WORLD); /* no one accesses the regions while they change */
    OK(MPI_Win_detach(win, mem));
    OK(MPI_Win_detach(win, ctr));
    OK(MPI_Win_attach(win, mem, N * sizeof(int))); /* the same memory again */
    OK(MPI_Win_attach(win, ctr, 4 * sizeof(*ctr)));
    test_barrier(MPI_COMM_WORLD);
    all_ops(win, mem, ctr, vec);
    test_barrier(MPI_COMM_WORLD);
    mem2 = malloc(2 * N * sizeof(int)); /* new memory, at other addresses */
    ctr2 = malloc(4 * sizeof(*ctr2));
    OK(MPI_Win_detach(win, mem));
    OK(MPI_Win_detach(win, ctr));
    OK(MPI_Win_attach(win, ctr2, 4 * sizeof(*ctr2)));
    OK(MPI_Win_attach(win, mem2, N * sizeof(int)));
    exchange(mem2, ctr2);
    all_ops(win, mem2, ctr2, vec);
    phase("detached and attached again (the same memory, then new memory): every operation");

    moving(win, mem2);
    phase("regions attached and detached while the left neighbour reads them");

    errors(win, mem2, ctr2);
    adjacent(win, mem2);
    phase("errors: outside every region (RMA_RANGE), overlapping attach, detach not attached; "
          "an access across two adjacent regions");

    OK(MPI_Win_free(&win)); /* with regions still attached */
    phase("Win_free with regions attached");
    MPI_Type_free(&vec);
    free(mem);
    free(ctr);
    free(mem2);
    free(ctr2);
    free(mem_at);
    free(ctr_at);
    MPI_Finalize();
    return summary();
}
