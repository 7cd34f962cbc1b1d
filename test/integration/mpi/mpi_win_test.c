/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI face's one-sided calls (mpi.h's one-sided block): windows made by Win_create and
 * Win_allocate, their attributes, group, name and error handler; Put and Get (contiguous and
 * vector origin types) under fence; Accumulate (SUM, MAX, REPLACE), Get_accumulate (NO_OP),
 * Fetch_and_op and Compare_and_swap with exact results from every rank; exclusive and shared
 * locks (a counter incremented under an exclusive lock by get and put), lock_all and the
 * flushes; PSCW between neighbours; errors: a target outside the window (MPI_ERR_RMA_RANGE),
 * a bad rank, an unlock without a lock, a bad lock type; 10000 Compare_and_swap in one epoch
 * complete in time linear in their number.
 * "kill" (2 ranks, mpi_win_kill.sh): rank 0 holds an exclusive lock on rank 1, which dies by
 * SIGKILL; rank 0's Put and Win_unlock then fail (no hang), and it says after how long.
 */
#include "mpi_test.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define N 64

static void test_create(void)
{
    int buf[N], *mem = NULL, flag = 0, *du, *flavor, *model;
    MPI_Aint *sz;
    void *base;
    MPI_Win win, wa;
    MPI_Group g, wg;
    int result, len;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Errhandler eh;

    OK(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
    CHECK(flag && base == buf, "MPI_WIN_BASE");
    OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
    CHECK(flag && *sz == (MPI_Aint)sizeof(buf), "MPI_WIN_SIZE");
    OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
    CHECK(flag && *du == (int)sizeof(int), "MPI_WIN_DISP_UNIT");
    OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE, "MPI_WIN_CREATE_FLAVOR");
    OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && *model == MPI_WIN_UNIFIED, "MPI_WIN_MODEL");
    OK(MPI_Win_get_group(win, &wg));
    OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    OK(MPI_Group_compare(g, wg, &result));
    CHECK(result == MPI_IDENT, "Win_get_group");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    OK(MPI_Win_set_name(win, "w1"));
    OK(MPI_Win_get_name(win, name, &len));
    CHECK(strcmp(name, "w1") == 0 && len == 2, "name");
    OK(MPI_Win_get_errhandler(win, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "a window's default handler");
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    OK(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &wa));
    CHECK(mem != NULL && mem[0] == 0, "Win_allocate");
    OK(MPI_Win_get_attr(wa, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(*flavor == MPI_WIN_FLAVOR_ALLOCATE, "allocate flavor");
    OK(MPI_Win_free(&wa));
    OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "Win_free");
}

static void test_put_get(MPI_Win win, int *mem)
{
    int right = (me + 1) % np, left = (me + np - 1) % np, src[8], got[8], strided[16];
    MPI_Datatype vec;

    for (int i = 0; i < 8; i++) {
        src[i] = me * 100 + i;
    }
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put(src, 8, MPI_INT, right, 8, 8, MPI_INT, win));
    OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 8; i++) {
        CHECK(mem[8 + i] == left * 100 + i, "Put from %d: [%d] = %d", left, i, mem[8 + i]);
    }
    OK(MPI_Get(got, 8, MPI_INT, right, 8, 8, MPI_INT, win));
    OK(MPI_Win_fence(0, win));
    CHECK(memcmp(got, src, sizeof(got)) == 0, "Get back what was put");
    /* a vector origin type: every other int */
    MPI_Type_vector(8, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (int i = 0; i < 16; i++) {
        strided[i] = i % 2 == 0 ? me * 1000 + i / 2 : -1;
    }
    OK(MPI_Put(strided, 1, vec, right, 16, 8, MPI_INT, win));
    OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 8; i++) {
        CHECK(mem[16 + i] == left * 1000 + i, "vector Put: [%d] = %d", i, mem[16 + i]);
    }
    memset(strided, 0, sizeof(strided));
    OK(MPI_Get(strided, 1, vec, right, 16, 8, MPI_INT, win));
    OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 8; i++) {
        CHECK(strided[2 * i] == me * 1000 + i && strided[2 * i + 1] == 0, "vector Get [%d]", i);
    }
    MPI_Type_free(&vec);
}

static void test_atomics(MPI_Win win, int *mem)
{
    int one = 1, vals[4], mx = me, old = -1, res = -1, cmp = 0, mine = me + 1, winners;
    long long add = 1, fetched;

    OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 4; i++) {
        vals[i] = me + i;
    }
    for (int k = 0; k < 5; k++) {
        OK(MPI_Accumulate(vals, 4, MPI_INT, 0, 32, 4, MPI_INT, MPI_SUM, win));
    }
    OK(MPI_Accumulate(&mx, 1, MPI_INT, 0, 36, 1, MPI_INT, MPI_MAX, win));
    OK(MPI_Win_fence(0, win));
    if (me == 0) {
        for (int i = 0; i < 4; i++) {
            int want = 5 * (np * (np - 1) / 2 + np * i);
            CHECK(mem[32 + i] == want, "Accumulate SUM [%d] = %d, expected %d", i, mem[32 + i],
                  want);
        }
        CHECK(mem[36] == np - 1, "Accumulate MAX = %d", mem[36]);
        memset(&mem[40], 0, 16);
    }
    OK(MPI_Win_fence(0, win));
    /* Fetch_and_op on a 64-bit counter: the old values are 0 .. np*10-1 */
    for (int k = 0; k < 10; k++) {
        OK(MPI_Fetch_and_op(&add, &fetched, MPI_LONG_LONG, 0, 40, MPI_SUM, win));
        OK(MPI_Win_flush(0, win) == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_OTHER);
        CHECK(fetched >= 0 && fetched < np * 10, "Fetch_and_op old %lld", fetched);
    }
    OK(MPI_Compare_and_swap(&mine, &cmp, &res, MPI_INT, 0, 42, win));
    OK(MPI_Win_fence(0, win));
    {
        int won = res == 0;
        MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(winners == 1, "Compare_and_swap: %d winners", winners);
    }
    if (me == 0) {
        long long c;
        memcpy(&c, &mem[40], 8);
        CHECK(c == np * 10, "Fetch_and_op counter %lld", c);
    }
    OK(MPI_Get_accumulate(NULL, 0, MPI_INT, &old, 1, MPI_INT, 0, 36, 1, MPI_INT, MPI_NO_OP, win));
    OK(MPI_Win_fence(0, win));
    CHECK(old == np - 1, "Get_accumulate NO_OP read %d", old);
    OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 44, 1, MPI_INT, MPI_REPLACE, win));
    OK(MPI_Win_fence(0, win));
    if (me == 0) {
        CHECK(mem[44] == 1, "REPLACE");
    }
}

/* A counter read and written under an exclusive lock by every rank; shared locks; flushes. */
static void test_locks(MPI_Win win, int *mem)
{
    int v, got;

    if (me == 0) {
        mem[48] = 0;
    }
    OK(MPI_Win_fence(0, win));
    for (int k = 0; k < 5; k++) {
        OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        OK(MPI_Get(&v, 1, MPI_INT, 0, 48, 1, MPI_INT, win));
        OK(MPI_Win_flush(0, win));
        v++;
        OK(MPI_Put(&v, 1, MPI_INT, 0, 48, 1, MPI_INT, win));
        OK(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    OK(MPI_Get(&got, 1, MPI_INT, 0, 48, 1, MPI_INT, win));
    OK(MPI_Win_unlock(0, win));
    CHECK(got == 5 * np, "counter under the exclusive lock: %d, expected %d", got, 5 * np);
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Get(&got, 1, MPI_INT, (me + 1) % np, 0, 1, MPI_INT, win));
    OK(MPI_Win_flush_local((me + 1) % np, win));
    OK(MPI_Win_flush_all(win));
    OK(MPI_Win_flush_local_all(win));
    OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Epochs of empty groups (MPI_GROUP_EMPTY, or a group made empty) are epochs: their
 * Win_complete, Win_wait and Win_test succeed (issue 43: they were refused "no MPI_Win_start"),
 * a second Start or Post inside one is refused, and after they close the calls without an
 * epoch are refused again. */
static void test_pscw_empty(MPI_Win win, MPI_Group world)
{
    MPI_Group none;
    int flag = 0, nobody = 0;

    MPI_Group_incl(world, 0, &nobody, &none);
    OK(MPI_Win_post(MPI_GROUP_EMPTY, 0, win));
    OK(MPI_Win_start(MPI_GROUP_EMPTY, 0, win));
    FAILS(MPI_Win_start(none, 0, win), MPI_ERR_RMA_SYNC);
    FAILS(MPI_Win_post(none, 0, win), MPI_ERR_RMA_SYNC);
    OK(MPI_Win_complete(win));
    OK(MPI_Win_wait(win));
    FAILS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    FAILS(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    OK(MPI_Win_post(none, 0, win));
    OK(MPI_Win_start(none, 0, win));
    OK(MPI_Win_complete(win));
    OK(MPI_Win_test(win, &flag));
    CHECK(flag == 1, "Win_test of an empty exposure epoch: flag %d", flag);
    FAILS(MPI_Win_test(win, &flag), MPI_ERR_RMA_SYNC);
    FAILS(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    MPI_Group_free(&none);
}

static void test_pscw(MPI_Win win, int *mem)
{
    int right = (me + 1) % np, left = (me + np - 1) % np, v = me + 7000;
    MPI_Group world, to, from;

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &right, &to);
    MPI_Group_incl(world, 1, &left, &from);
    OK(MPI_Win_post(from, 0, win));
    OK(MPI_Win_start(to, 0, win));
    OK(MPI_Put(&v, 1, MPI_INT, right, 50, 1, MPI_INT, win));
    OK(MPI_Win_complete(win));
    OK(MPI_Win_wait(win));
    CHECK(mem[50] == left + 7000, "PSCW: %d", mem[50]);
    /* again, the exposure epoch ended by Win_test */
    {
        int flag = 0;
        v += 1000;
        OK(MPI_Win_post(from, 0, win));
        OK(MPI_Win_start(to, 0, win));
        OK(MPI_Put(&v, 1, MPI_INT, right, 51, 1, MPI_INT, win));
        OK(MPI_Win_complete(win));
        while (!flag) {
            OK(MPI_Win_test(win, &flag));
        }
        CHECK(mem[51] == left + 8000, "PSCW with Win_test: %d", mem[51]);
    }
    test_pscw_empty(win, world);
    MPI_Group_free(&to);
    MPI_Group_free(&from);
    MPI_Group_free(&world);
}

static void test_errors(MPI_Win win)
{
    int v = 0;

    FAILS(MPI_Put(&v, 1, MPI_INT, 0, N, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    FAILS(MPI_Get(&v, 1, MPI_INT, np, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    FAILS(MPI_Put(&v, 1, MPI_INT, 0, -1, 1, MPI_INT, win), MPI_ERR_DISP);
    FAILS(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
    FAILS(MPI_Win_lock(99, 0, 0, win), MPI_ERR_LOCKTYPE);
    FAILS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    FAILS(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_MAXLOC, win), MPI_ERR_OP);
    OK(MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n Compare_and_swap of one byte (0 before) to the next rank in one fence epoch (by message
 * over sm): exactly the first wins; the closing fence's time in seconds. */
static double many_cas(MPI_Win win, int n, signed char *res)
{
    signed char one = 1, zero = 0;
    int wins = 0, to = (me + 1) % np;
    double t0;

    OK(MPI_Win_fence(0, win));
    for (int i = 0; i < n; i++) {
        OK(MPI_Compare_and_swap(&one, &zero, &res[i], MPI_SIGNED_CHAR, to, 60, win));
    }
    t0 = now_s();
    OK(MPI_Win_fence(0, win));
    t0 = now_s() - t0;
    for (int i = 0; i < n; i++) {
        wins += res[i] == 0;
    }
    CHECK(wins == 1, "%d Compare_and_swap of one byte: %d found it 0, expected 1", n, wins);
    return t0;
}

/* Many operations in one epoch complete in time linear in their number (an O(n) walk per
 * completion made 10000 CAS take 8-19 s over sm): 10x the operations may take 30x the time
 * (plus 2 s for a loaded host), a quadratic cost takes 100x. Up to 3 tries, all ranks together:
 * on a host loaded by other jobs one try can meet a stall no cost of rcmsg's explains, while a
 * quadratic cost fails every try. */
static void test_many(MPI_Win win, int *mem)
{
    enum { FEW = 1000, MANY = 10000 };
    signed char *res = malloc(MANY);
    double few = 0, many = 0;
    int slow = 1;

    CHECK(res != NULL, "out of memory");
    if (res == NULL) {
        return;
    }
    for (int attempt = 0; attempt < 3 && slow; attempt++) {
        memset(&mem[60], 0, sizeof(int));
        few = many_cas(win, FEW, res);
        memset(&mem[60], 0, sizeof(int));
        many = many_cas(win, MANY, res);
        if (me == 0) {
            printf("fence after %d CAS: %.4f s, after %d: %.4f s\n", FEW, few, MANY, many);
        }
        slow = !(many < 2.0 + 30 * few);
        MPI_Allreduce(MPI_IN_PLACE, &slow, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
    CHECK(!slow, "the fence after %d CAS took %.2f s, after %d %.4f s (3 tries)", MANY, many, FEW,
          few);
    free(res);
}

/* A peer killed during a lock epoch: the survivor gets an error, not a hang. */
static int killed_in_epoch(void)
{
    int *mem, v = 42, e1, e2, cls = -1;
    MPI_Win win;
    double t0;

    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (me == 0) {
        OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD); /* rank 1 serves the lock meanwhile */
    if (me == 1) {
        printf("rank 1: killing myself during rank 0's lock epoch\n");
        fflush(stdout);
        kill(getpid(), SIGKILL);
    }
    sleep(1);
    t0 = now_s();
    e1 = MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    e2 = MPI_Win_unlock(1, win);
    MPI_Error_class(e1 != MPI_SUCCESS ? e1 : e2, &cls);
    printf("rank 0: Put %s, Win_unlock %s (class %d) after %.1f s\n",
           e1 == MPI_SUCCESS ? "started" : "failed", e2 == MPI_SUCCESS ? "succeeded" : "failed",
           cls, now_s() - t0);
    CHECK(e1 != MPI_SUCCESS || e2 != MPI_SUCCESS, "the epoch on a killed rank did not fail");
    printf("rank %d of %d: %d failure(s)\n", me, np, failures);
    fflush(stdout);
    _exit(failures != 0); /* the window cannot be freed with its other member gone */
}

int main(int argc, char **argv)
{
    int *mem;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc > 1 && strcmp(argv[1], "kill") == 0 && np == 2) {
        return killed_in_epoch();
    }
    phases_expected = 7;
    test_create();
    phase("Win_create, Win_allocate, attributes, group, name, error handler, Win_free");
    OK(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    test_put_get(win, mem);
    phase("Put, Get under fence (contiguous and vector origin types)");
    test_atomics(win, mem);
    phase("Accumulate, Fetch_and_op, Compare_and_swap, Get_accumulate: exact from every rank");
    test_locks(win, mem);
    phase("Win_lock exclusive and shared, lock_all, flushes");
    test_pscw(win, mem);
    phase("Win_post, start, complete, wait, test; empty groups");
    test_errors(win);
    phase("errors: RMA_RANGE, RANK, DISP, RMA_SYNC, LOCKTYPE, OP");
    test_many(win, mem);
    phase("10000 Compare_and_swap in one epoch: time linear in their number");
    OK(MPI_Win_free(&win));
    MPI_Finalize();
    return summary();
}
