/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI-4.0's large-count one-sided bindings (the _c calls: MPI_Count counts, an MPI_Aint
 * disp_unit), data checked, on any number of ranks: Put_c, Get_c, Accumulate_c and
 * Get_accumulate_c under fence on windows of Win_allocate_c and Win_create_c; under Win_lock
 * and Win_lock_all a Put_c through a vector target type, an Accumulate_c of MAXLOC on MPI_2INT
 * (done by the origin under the target's mutex), Rput_c, Rget_c, Raccumulate_c and
 * Rget_accumulate_c; each _c call's PMPI_ name the same function; a shared window of
 * Win_allocate_shared_c with a different size and disp_unit on each rank, Win_shared_query_c and
 * the int Win_shared_query agreeing, stores through the queried pointers and a Put_c at a disp_unit
 * of the target's; the refusals, each naming the _c call: negative counts (origin, result, target:
 * MPI_ERR_COUNT), negative sizes (MPI_ERR_SIZE), a disp_unit past INT_MAX (MPI_ERR_ARG naming the
 * limit; one of 2^32 + 4, which a cast to int would make 4, too), 0 or one of -2^32 + 4
 * (MPI_ERR_DISP), a count of 2^32 + 4 past the window (MPI_ERR_RMA_RANGE, the message giving the
 * whole count; cut to int, 4 elements would fit), an origin count of 2^32 + 4 against a target
 * count of 4 (MPI_ERR_TYPE), nothing written by any of them; a disp_unit of INT_MAX accepted and
 * given back whole. Then, with the memory for it, one Put_c and one Rget_c of 2^31 + 16 bytes
 * (MPI_BYTE: a count past INT_MAX) from rank 0 into rank 1's window (rank 0's own at 1 rank),
 * every byte checked; without the memory that phase says "SKIP (this phase)".
 */
#include "mpi_test.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N 8 /* ints per region; a window holds 5 regions */

enum {
    REG_PUT = 0,
    REG_ACC = N,
    REG_GET = 2 * N,
    REG_GACC = 3 * N,
    REG_PAIR = 4 * N,
    WIN_INTS = 5 * N
};

static const MPI_Count huge = ((MPI_Count)1 << 32) + 4; /* (int) of it: 4 */
static int left, right;

static int val(int r, int i)
{
    return r * 1009 + i * 7 + 3;
}

/* the error string of code contains text (NULL: anything) */
static void says(int code, const char *text)
{
    char s[MPI_MAX_ERROR_STRING] = "";
    int len = 0;

    if (text == NULL) {
        return;
    }
    MPI_Error_string(code, s, &len);
    CHECK(strstr(s, text) != NULL, "error string \"%s\" does not say \"%s\"", s, text);
}

/* a call that fails with class cls, its error string naming name (and more, if not NULL) */
#define FAILS_SAYING(call, cls, name, more)                                                        \
    do {                                                                                           \
        int c_ = (call);                                                                           \
        FAILS(c_, cls);                                                                            \
        says(c_, name);                                                                            \
        says(c_, more);                                                                            \
    } while (0)

static void init_regions(int *mem)
{
    for (int i = 0; i < N; i++) {
        mem[REG_PUT + i] = -1;
        mem[REG_ACC + i] = 0;
        mem[REG_GET + i] = 100 * me + i;
        mem[REG_GACC + i] = 10 * me + i;
    }
    for (int k = 0; k < N / 2; k++) {
        mem[REG_PAIR + 2 * k] = -1;     /* value */
        mem[REG_PAIR + 2 * k + 1] = -1; /* index */
    }
}

/* the sum every rank r adds to rank 0's accumulate region: (r + 1) * (i + 1) */
static int acc_sum(int i)
{
    return (i + 1) * np * (np + 1) / 2;
}

/* ---- fence --------------------------------------------------------------------------------- */
static void test_fence(MPI_Win win, int *mem, const char *what)
{
    MPI_Count n = N;
    int src[N], add[N], got[N], old[N];

    init_regions(mem);
    for (int i = 0; i < N; i++) {
        src[i] = val(me, i);
        add[i] = (me + 1) * (i + 1);
        got[i] = old[i] = -7;
    }
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put_c(src, n, MPI_INT, right, REG_PUT, n, MPI_INT, win));
    OK(MPI_Get_c(got, n, MPI_INT, right, REG_GET, n, MPI_INT, win));
    OK(MPI_Accumulate_c(add, n, MPI_INT, 0, REG_ACC, n, MPI_INT, MPI_SUM, win));
    OK(MPI_Get_accumulate_c(add, n, MPI_INT, old, n, MPI_INT, right, REG_GACC, n, MPI_INT, MPI_SUM,
                            win));
    OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++) {
        CHECK(mem[REG_PUT + i] == val(left, i), "%s: Put_c [%d] = %d, expected %d", what, i,
              mem[REG_PUT + i], val(left, i));
        CHECK(got[i] == 100 * right + i, "%s: Get_c [%d] = %d", what, i, got[i]);
        CHECK(me != 0 || mem[REG_ACC + i] == acc_sum(i), "%s: Accumulate_c [%d] = %d, expected %d",
              what, i, mem[REG_ACC + i], acc_sum(i));
        CHECK(old[i] == 10 * right + i, "%s: Get_accumulate_c's result [%d] = %d", what, i, old[i]);
        CHECK(mem[REG_GACC + i] == 10 * me + i + (left + 1) * (i + 1),
              "%s: Get_accumulate_c [%d] = %d", what, i, mem[REG_GACC + i]);
    }
    OK(MPI_Win_fence(0, win));
}

/* each _c call's PMPI_ name: the same function (the library's alias) */
static void pmpi_names(void)
{
    CHECK((void *)PMPI_Win_create_c == (void *)MPI_Win_create_c &&
              (void *)PMPI_Win_allocate_c == (void *)MPI_Win_allocate_c &&
              (void *)PMPI_Win_allocate_shared_c == (void *)MPI_Win_allocate_shared_c &&
              (void *)PMPI_Win_shared_query_c == (void *)MPI_Win_shared_query_c,
          "a window call's PMPI_ name is another function");
    CHECK((void *)PMPI_Put_c == (void *)MPI_Put_c && (void *)PMPI_Get_c == (void *)MPI_Get_c &&
              (void *)PMPI_Accumulate_c == (void *)MPI_Accumulate_c &&
              (void *)PMPI_Get_accumulate_c == (void *)MPI_Get_accumulate_c,
          "a communication call's PMPI_ name is another function");
    CHECK((void *)PMPI_Rput_c == (void *)MPI_Rput_c && (void *)PMPI_Rget_c == (void *)MPI_Rget_c &&
              (void *)PMPI_Raccumulate_c == (void *)MPI_Raccumulate_c &&
              (void *)PMPI_Rget_accumulate_c == (void *)MPI_Rget_accumulate_c,
          "a request-based call's PMPI_ name is another function");
}

/* ---- lock epochs --------------------------------------------------------------------------- */
/* N / 2 ints at every other int of the target, from its first (or second) */
static MPI_Datatype every_other(void)
{
    MPI_Datatype t;

    OK(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    return t;
}

static void test_lock(MPI_Win win, int *mem, const char *what)
{
    MPI_Datatype vec = every_other();
    int even[N / 2], odd[N / 2], add[N], got[N], old[N], pairs[N];
    MPI_Request rq;

    init_regions(mem);
    for (int k = 0; k < N / 2; k++) {
        even[k] = val(me, k) + 7;
        odd[k] = val(me, k) + 9;
        pairs[2 * k] = 10 * me + k; /* MAXLOC: rank np - 1's win */
        pairs[2 * k + 1] = me;
    }
    for (int i = 0; i < N; i++) {
        add[i] = (me + 1) * (i + 1);
        got[i] = old[i] = -7;
    }
    test_barrier(MPI_COMM_WORLD); /* every rank's regions set */
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    OK(MPI_Put_c(even, N / 2, MPI_INT, right, REG_PUT, 1, vec, win));
    OK(MPI_Get_c(got, N, MPI_INT, right, REG_GET, N, MPI_INT, win));
    OK(MPI_Win_unlock(right, win));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    OK(MPI_Accumulate_c(pairs, N / 2, MPI_2INT, 0, REG_PAIR, N / 2, MPI_2INT, MPI_MAXLOC, win));
    OK(MPI_Win_unlock(0, win));
    for (int i = 0; i < N; i++) {
        CHECK(got[i] == 100 * right + i, "%s: Get_c [%d] = %d", what, i, got[i]);
        got[i] = -7;
    }
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Rput_c(odd, N / 2, MPI_INT, right, REG_PUT + 1, 1, vec, win, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    OK(MPI_Rget_c(got, N, MPI_INT, right, REG_GET, N, MPI_INT, win, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    OK(MPI_Raccumulate_c(add, N, MPI_INT, 0, REG_ACC, N, MPI_INT, MPI_SUM, win, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    OK(MPI_Rget_accumulate_c(add, N, MPI_INT, old, N, MPI_INT, right, REG_GACC, N, MPI_INT, MPI_SUM,
                             win, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    OK(MPI_Win_unlock_all(win));
    test_barrier(MPI_COMM_WORLD);                     /* every rank's operations complete */
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win)); /* (its own memory, the accumulates in) */
    for (int k = 0; k < N / 2; k++) {
        CHECK(mem[REG_PUT + 2 * k] == val(left, k) + 7 &&
                  mem[REG_PUT + 2 * k + 1] == val(left, k) + 9,
              "%s: Put_c / Rput_c through a vector: [%d], [%d] = %d, %d", what, 2 * k, 2 * k + 1,
              mem[REG_PUT + 2 * k], mem[REG_PUT + 2 * k + 1]);
        CHECK(me != 0 || (mem[REG_PAIR + 2 * k] == 10 * (np - 1) + k &&
                          mem[REG_PAIR + 2 * k + 1] == np - 1),
              "%s: Accumulate_c MAXLOC pair %d = (%d, %d)", what, k, mem[REG_PAIR + 2 * k],
              mem[REG_PAIR + 2 * k + 1]);
    }
    for (int i = 0; i < N; i++) {
        CHECK(got[i] == 100 * right + i, "%s: Rget_c [%d] = %d", what, i, got[i]);
        CHECK(me != 0 || mem[REG_ACC + i] == acc_sum(i), "%s: Raccumulate_c [%d] = %d", what, i,
              mem[REG_ACC + i]);
        CHECK(old[i] == 10 * right + i, "%s: Rget_accumulate_c's result [%d] = %d", what, i,
              old[i]);
        CHECK(mem[REG_GACC + i] == 10 * me + i + (left + 1) * (i + 1),
              "%s: Rget_accumulate_c [%d] = %d", what, i, mem[REG_GACC + i]);
    }
    OK(MPI_Win_unlock(me, win));
    test_barrier(MPI_COMM_WORLD);
    OK(MPI_Type_free(&vec));
}

/* ---- shared windows ------------------------------------------------------------------------ */
static MPI_Aint shared_ints(int r)
{
    return (MPI_Aint)(r + 2) * N;
}

static MPI_Aint shared_unit(int r)
{
    return (MPI_Aint)sizeof(int) * (r + 1);
}

static void test_shared(void)
{
    MPI_Win win, plain;
    int *mine, *base, *rb, du = 0, *plain_mem;
    MPI_Aint sz, du_c, sz_i;
    char *prev_end = NULL;
    int src = 2000 + me;

    OK(MPI_Win_allocate_shared_c(shared_ints(me) * (MPI_Aint)sizeof(int), shared_unit(me),
                                 MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int r = 0; r < np; r++) {
        OK(MPI_Win_shared_query_c(win, r, &sz, &du_c, &base));
        OK(MPI_Win_shared_query(win, r, &sz_i, &du, &rb));
        CHECK(sz == shared_ints(r) * (MPI_Aint)sizeof(int) && du_c == shared_unit(r),
              "Win_shared_query_c of rank %d: size %lld, disp_unit %lld", r, (long long)sz,
              (long long)du_c);
        CHECK(sz_i == sz && du == du_c && rb == base,
              "Win_shared_query of rank %d: size %lld, disp_unit %d, base %p; _c: %p", r,
              (long long)sz_i, du, (void *)rb, (void *)base);
        CHECK(r != me || base == mine, "my own base %p, queried %p", (void *)mine, (void *)base);
        CHECK(prev_end == NULL || (char *)base == prev_end, "rank %d's memory not contiguous", r);
        prev_end = (char *)(base + shared_ints(r));
    }
    OK(MPI_Win_shared_query_c(win, MPI_PROC_NULL, &sz, &du_c, &base));
    CHECK(sz == shared_ints(0) * (MPI_Aint)sizeof(int) && du_c == shared_unit(0),
          "Win_shared_query_c of MPI_PROC_NULL: size %lld, disp_unit %lld (rank 0's)",
          (long long)sz, (long long)du_c);
    for (MPI_Aint i = 0; i < shared_ints(me); i++) {
        mine[i] = -1;
    }
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Win_sync(win));
    test_barrier(MPI_COMM_WORLD);
    OK(MPI_Win_shared_query_c(win, right, &sz, &du_c, &rb));
    rb[0] = 1000 + me; /* a store into the neighbour's memory */
    /* target_disp 1: one of right's disp_units, int (right + 1) of its memory */
    OK(MPI_Put_c(&src, 1, MPI_INT, right, 1, 1, MPI_INT, win));
    OK(MPI_Win_flush(right, win));
    OK(MPI_Win_sync(win));
    test_barrier(MPI_COMM_WORLD);
    OK(MPI_Win_sync(win));
    CHECK(mine[0] == 1000 + left && mine[me + 1] == 2000 + left,
          "stored by rank %d: [0] = %d, Put_c at disp 1 x %lld bytes: [%d] = %d", left, mine[0],
          (long long)shared_unit(me), me + 1, mine[me + 1]);
    OK(MPI_Win_unlock_all(win));
    /* not a shared window; NULL disp_unit */
    OK(MPI_Win_allocate_c(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &plain_mem, &plain));
    MPI_Win_set_errhandler(plain, MPI_ERRORS_RETURN);
    FAILS_SAYING(MPI_Win_shared_query_c(plain, 0, &sz, &du_c, &base), MPI_ERR_RMA_FLAVOR,
                 "MPI_Win_shared_query_c", NULL);
    FAILS_SAYING(MPI_Win_shared_query_c(win, 0, &sz, NULL, &base), MPI_ERR_ARG,
                 "MPI_Win_shared_query_c", NULL);
    OK(MPI_Win_free(&plain));
    OK(MPI_Win_free(&win));
}

/* ---- refusals ------------------------------------------------------------------------------ */
static void creation_refusals(void)
{
    MPI_Win win = MPI_WIN_NULL;
    int x[4] = {0}, *base;
    const MPI_Aint past = (MPI_Aint)INT_MAX + 1, wraps = ((MPI_Aint)1 << 32) + 4;

    FAILS_SAYING(MPI_Win_create_c(x, sizeof(x), past, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                 MPI_ERR_ARG, "MPI_Win_create_c", "2147483647");
    FAILS_SAYING(MPI_Win_create_c(x, sizeof(x), wraps, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                 MPI_ERR_ARG, "MPI_Win_create_c", "4294967300");
    FAILS_SAYING(MPI_Win_create_c(x, sizeof(x), -wraps + 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                 MPI_ERR_DISP, "MPI_Win_create_c", NULL);
    FAILS_SAYING(MPI_Win_create_c(x, sizeof(x), 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                 MPI_ERR_DISP, "MPI_Win_create_c", NULL);
    FAILS_SAYING(MPI_Win_create_c(x, -1, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_SIZE,
                 "MPI_Win_create_c", NULL);
    FAILS_SAYING(MPI_Win_allocate_c(64, past, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win),
                 MPI_ERR_ARG, "MPI_Win_allocate_c", "2147483647");
    FAILS_SAYING(MPI_Win_allocate_c(-64, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win),
                 MPI_ERR_SIZE, "MPI_Win_allocate_c", NULL);
    FAILS_SAYING(MPI_Win_allocate_shared_c(64, past, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win),
                 MPI_ERR_ARG, "MPI_Win_allocate_shared_c", "2147483647");
    FAILS_SAYING(MPI_Win_allocate_shared_c(-1, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win),
                 MPI_ERR_SIZE, "MPI_Win_allocate_shared_c", NULL);
    CHECK(win == MPI_WIN_NULL, "a refused creation gave a window");
}

/* a disp_unit of INT_MAX: accepted, and given back whole (attribute, both queries) */
static void int_max_unit(void)
{
    MPI_Win win;
    int *mem, *du_attr, flag = 0, du = 0, v = 5;
    MPI_Aint sz, du_c = 0;

    OK(MPI_Win_allocate_shared_c(sizeof(int), INT_MAX, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du_attr, &flag));
    OK(MPI_Win_shared_query(win, me, &sz, &du, &mem));
    OK(MPI_Win_shared_query_c(win, me, &sz, &du_c, &mem));
    CHECK(flag && *du_attr == INT_MAX && du == INT_MAX && du_c == INT_MAX,
          "disp_unit INT_MAX: attribute %d, Win_shared_query %d, _c %lld", flag ? *du_attr : -1, du,
          (long long)du_c);
    OK(MPI_Win_fence(0, win));
    OK(MPI_Put_c(&v, 1, MPI_INT, me, 0, 1, MPI_INT, win));
    FAILS_SAYING(MPI_Put_c(&v, 1, MPI_INT, me, 1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE, "MPI_Put_c",
                 "disp_unit 2147483647");
    OK(MPI_Win_fence(0, win));
    CHECK(*mem == 5, "Put_c at disp 0 of disp_unit INT_MAX: %d", *mem);
    OK(MPI_Win_free(&win));
}

static void count_refusals(MPI_Win win, int *mem)
{
    int x[N] = {0}, r[N];
    MPI_Request rq = (MPI_Request)12345;

    init_regions(mem);
    OK(MPI_Win_fence(0, win));
    /* negative counts: origin, target, result */
    FAILS_SAYING(MPI_Put_c(x, -1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_COUNT, "MPI_Put_c",
                 "negative origin count");
    FAILS_SAYING(MPI_Put_c(x, 1, MPI_INT, right, 0, -1, MPI_INT, win), MPI_ERR_COUNT, "MPI_Put_c",
                 "negative target count");
    FAILS_SAYING(MPI_Get_c(x, 4, MPI_INT, right, 0, -huge + 8, MPI_INT, win), MPI_ERR_COUNT,
                 "MPI_Get_c", NULL);
    FAILS_SAYING(MPI_Accumulate_c(x, -huge, MPI_INT, 0, REG_ACC, 1, MPI_INT, MPI_SUM, win),
                 MPI_ERR_COUNT, "MPI_Accumulate_c", NULL);
    FAILS_SAYING(
        MPI_Get_accumulate_c(x, 1, MPI_INT, r, -1, MPI_INT, right, 0, 1, MPI_INT, MPI_SUM, win),
        MPI_ERR_COUNT, "MPI_Get_accumulate_c", NULL);
    /* 2^32 + 4 elements: past the window (4 would fit), the whole count in the message */
    FAILS_SAYING(MPI_Put_c(x, huge, MPI_INT, right, 0, huge, MPI_INT, win), MPI_ERR_RMA_RANGE,
                 "MPI_Put_c", "4294967300 elements");
    FAILS_SAYING(MPI_Get_c(x, huge, MPI_INT, right, 0, huge, MPI_INT, win), MPI_ERR_RMA_RANGE,
                 "MPI_Get_c", "4294967300 elements");
    FAILS_SAYING(MPI_Accumulate_c(x, huge, MPI_INT, right, 0, huge, MPI_INT, MPI_SUM, win),
                 MPI_ERR_RMA_RANGE, "MPI_Accumulate_c", "4294967300 elements");
    FAILS_SAYING(MPI_Get_accumulate_c(x, huge, MPI_INT, r, huge, MPI_INT, right, 0, huge, MPI_INT,
                                      MPI_SUM, win),
                 MPI_ERR_RMA_RANGE, "MPI_Get_accumulate_c", "4294967300 elements");
    /* 2^32 + 4 origin elements against 4 of the target: not the same signature */
    FAILS_SAYING(MPI_Put_c(x, huge, MPI_INT, right, 0, 4, MPI_INT, win), MPI_ERR_TYPE, "MPI_Put_c",
                 NULL);
    FAILS_SAYING(MPI_Accumulate_c(x, huge, MPI_INT, right, REG_ACC, 4, MPI_INT, MPI_SUM, win),
                 MPI_ERR_TYPE, "MPI_Accumulate_c", NULL);
    OK(MPI_Win_fence(0, win));
    OK(MPI_Win_lock_all(0, win));
    FAILS_SAYING(MPI_Rput_c(x, 1, MPI_INT, right, 0, -1, MPI_INT, win, &rq), MPI_ERR_COUNT,
                 "MPI_Rput_c", NULL);
    CHECK(rq == MPI_REQUEST_NULL, "a refused Rput_c leaves MPI_REQUEST_NULL");
    FAILS_SAYING(MPI_Rget_c(x, -1, MPI_INT, right, 0, 1, MPI_INT, win, &rq), MPI_ERR_COUNT,
                 "MPI_Rget_c", NULL);
    FAILS_SAYING(MPI_Raccumulate_c(x, 1, MPI_INT, right, 0, -huge, MPI_INT, MPI_SUM, win, &rq),
                 MPI_ERR_COUNT, "MPI_Raccumulate_c", NULL);
    FAILS_SAYING(MPI_Rget_accumulate_c(x, 1, MPI_INT, r, -1, MPI_INT, right, 0, 1, MPI_INT, MPI_SUM,
                                       win, &rq),
                 MPI_ERR_COUNT, "MPI_Rget_accumulate_c", NULL);
    FAILS_SAYING(MPI_Rput_c(x, huge, MPI_INT, right, 0, huge, MPI_INT, win, &rq), MPI_ERR_RMA_RANGE,
                 "MPI_Rput_c", "4294967300 elements");
    FAILS_SAYING(MPI_Rget_c(x, huge, MPI_INT, right, 0, huge, MPI_INT, win, &rq), MPI_ERR_RMA_RANGE,
                 "MPI_Rget_c", "4294967300 elements");
    FAILS_SAYING(MPI_Raccumulate_c(x, huge, MPI_INT, right, 0, huge, MPI_INT, MPI_SUM, win, &rq),
                 MPI_ERR_RMA_RANGE, "MPI_Raccumulate_c", "4294967300 elements");
    FAILS_SAYING(MPI_Rget_accumulate_c(x, huge, MPI_INT, r, huge, MPI_INT, right, 0, huge, MPI_INT,
                                       MPI_SUM, win, &rq),
                 MPI_ERR_RMA_RANGE, "MPI_Rget_accumulate_c", "4294967300 elements");
    CHECK(rq == MPI_REQUEST_NULL, "a refused Rget_accumulate_c leaves MPI_REQUEST_NULL");
    OK(MPI_Win_unlock_all(win));
    test_barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        CHECK(mem[REG_PUT + i] == -1 && mem[REG_ACC + i] == 0, "a refused call wrote [%d]: %d, %d",
              i, mem[REG_PUT + i], mem[REG_ACC + i]);
    }
    test_barrier(MPI_COMM_WORLD);
}

/* ---- a count past INT_MAX ------------------------------------------------------------------ */
/* bytes of buf not byte_at(i) */
static size_t bad_bytes(const unsigned char *buf, size_t n)
{
    size_t bad = 0;

    for (size_t i = 0; i < n; i++) {
        bad += buf[i] != byte_at(i);
    }
    return bad;
}

/* rank 0 puts 2^31 + 16 bytes (Put_c, fence) into the target's window of Win_create_c, the
 * target checks them; rank 0 reads them back (Rget_c, lock) and checks them */
static bool test_large(void)
{
    const MPI_Count n = ((MPI_Count)1 << 31) + 16;
    const long long need = 3 * n; /* origin and target buffer, and a margin */
    const int target = np > 1 ? 1 : 0;
    long long avail = mem_available();
    int go = avail >= need;
    unsigned char *origin = NULL, *tmem = NULL;
    MPI_Win win;
    MPI_Request rq;

    OK(MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (!go) {
        if (me == 0) {
            printf("SKIP (this part): 2^31 + 16 bytes in a window need %lld bytes of available "
                   "memory (%lld available)\n",
                   need, avail);
        }
        return false;
    }
    if ((me == 0 && (origin = malloc((size_t)n)) == NULL) ||
        (me == target && (tmem = calloc(1, (size_t)n)) == NULL)) {
        CHECK(0, "no memory for %lld bytes", n);
        MPI_Abort(MPI_COMM_WORLD, 1); /* the others are in the window's creation */
    }
    OK(MPI_Win_create_c(tmem, me == target ? (MPI_Aint)n : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                        &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (me == 0) {
        for (size_t i = 0; i < (size_t)n; i++) {
            origin[i] = byte_at(i);
        }
    }
    OK(MPI_Win_fence(0, win));
    if (me == 0) {
        OK(MPI_Put_c(origin, n, MPI_BYTE, target, 0, n, MPI_BYTE, win));
    }
    OK(MPI_Win_fence(0, win));
    if (me == target) {
        size_t bad = bad_bytes(tmem, (size_t)n);
        CHECK(bad == 0, "Put_c: %zu of %lld bytes wrong", bad, n);
    }
    test_barrier(MPI_COMM_WORLD);
    if (me == 0) {
        memset(origin, 0, (size_t)n);
        OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
        OK(MPI_Rget_c(origin, n, MPI_BYTE, target, 0, n, MPI_BYTE, win, &rq));
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        OK(MPI_Win_unlock(target, win));
        size_t bad = bad_bytes(origin, (size_t)n);
        CHECK(bad == 0, "Rget_c: %zu of %lld bytes wrong", bad, n);
    }
    OK(MPI_Win_free(&win));
    free(origin);
    free(tmem);
    return true;
}

/* the end of a phase that ran ("ok: name"), or of one that could not run here ("SKIP (this
 * phase): name"): counted alike */
static void phase_if(bool ran, const char *name)
{
    if (ran) {
        phase(name);
        return;
    }
    test_barrier(MPI_COMM_WORLD);
    phases++;
    if (me == 0) {
        printf("SKIP (this phase): %s\n", name);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    MPI_Win wa, wc;
    int *amem, cmem[WIN_INTS];
    MPI_Aint *size_attr;
    int *du_attr, flag = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    right = (me + 1) % np;
    left = (me + np - 1) % np;
    phases_expected = 6;
    OK(MPI_Win_allocate_c(WIN_INTS * (MPI_Aint)sizeof(int), (MPI_Aint)sizeof(int), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &amem, &wa));
    OK(MPI_Win_create_c(cmem, sizeof(cmem), (MPI_Aint)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                        &wc));
    MPI_Win_set_errhandler(wa, MPI_ERRORS_RETURN);
    MPI_Win_set_errhandler(wc, MPI_ERRORS_RETURN);
    OK(MPI_Win_get_attr(wc, MPI_WIN_SIZE, &size_attr, &flag));
    CHECK(flag && *size_attr == (MPI_Aint)sizeof(cmem), "Win_create_c's size attribute");
    OK(MPI_Win_get_attr(wa, MPI_WIN_DISP_UNIT, &du_attr, &flag));
    CHECK(flag && *du_attr == (int)sizeof(int), "Win_allocate_c's disp_unit attribute");
    test_fence(wa, amem, "Win_allocate_c");
    test_fence(wc, cmem, "Win_create_c");
    pmpi_names();
    phase("Put_c, Get_c, Accumulate_c, Get_accumulate_c under fence (Win_allocate_c, "
          "Win_create_c); the PMPI_ names");
    test_lock(wa, amem, "Win_allocate_c");
    test_lock(wc, cmem, "Win_create_c");
    phase("Put_c through a vector, Accumulate_c MAXLOC on MPI_2INT, Rput_c, Rget_c, "
          "Raccumulate_c, Rget_accumulate_c under Win_lock and Win_lock_all");
    test_shared();
    phase("Win_allocate_shared_c, Win_shared_query_c and Win_shared_query, stores, Put_c at a "
          "rank's disp_unit");
    count_refusals(wa, amem);
    phase("refused: negative counts, 2^32 + 4 elements past the window, signatures that differ");
    creation_refusals();
    int_max_unit();
    phase("refused: disp_unit past INT_MAX, 0 or negative, negative sizes; disp_unit INT_MAX "
          "given back whole");
    OK(MPI_Win_free(&wa));
    OK(MPI_Win_free(&wc));
    phase_if(test_large(), "Put_c and Rget_c of 2^31 + 16 bytes (a count past INT_MAX), every byte "
                           "checked (the memory)");
    MPI_Finalize();
    return summary();
}
