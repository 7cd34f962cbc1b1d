/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Operations and blocking collectives through the MPI face, data checked on any number of
 * ranks (non-powers of two included): every predefined operation on every predefined basic
 * type (defined or refused as MPI 3.1 says) and on its types (long double,
 * complex, the MINLOC/MAXLOC pairs) and on derived types of one basic type (complex, a vector
 * of long double; refused on derived types of pairs), user operations (a non-commutative one
 * checked for rank order), each collective with contiguous and noncontiguous types, MPI_IN_PLACE,
 * roots other than 0, the v/w variants with uneven counts, scans, and the errors of bad operations.
 * Prints "ok: <phase>" (rank 0) and "rank R of N: F failure(s)".
 */
#include "mpi_test.h"

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <wchar.h>

#define N 5 /* elements per rank in most checks */

/* 2x2 matrices of unsigned (wrapping) multiply: associative, not commutative */
typedef struct {
    unsigned m[4];
} mat_t;

static mat_t mat_mul(mat_t a, mat_t b)
{
    mat_t r;

    r.m[0] = a.m[0] * b.m[0] + a.m[1] * b.m[2];
    r.m[1] = a.m[0] * b.m[1] + a.m[1] * b.m[3];
    r.m[2] = a.m[2] * b.m[0] + a.m[3] * b.m[2];
    r.m[3] = a.m[2] * b.m[1] + a.m[3] * b.m[3];
    return r;
}

static mat_t mat_of(int rank, int i)
{
    mat_t r = {{(unsigned)rank + 1, (unsigned)i + 1, 1, (unsigned)rank * 3}};

    return r;
}

static int mat_calls;
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    mat_t *a = in, *b = inout;

    (void)dt;
    mat_calls++;
    for (int i = 0; i < *len; i++) {
        b[i] = mat_mul(a[i], b[i]);
    }
}

static MPI_Datatype mat_type, vec_type; /* 4 unsigned; every other int of 2 * N */

/* a user sum of ints or of vec_type (commutative), to check the user path against MPI_SUM:
 * it gets the buffers in the datatype's layout */
static void isum_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    int n = *dt == vec_type ? *len * N : *len, stride = *dt == vec_type ? 2 : 1;

    for (int i = 0; i < n; i++) {
        b[i * stride] += a[i * stride];
    }
}
static MPI_Op mat_mpi_op, isum;

static bool mat_eq(mat_t a, mat_t b)
{
    return memcmp(&a, &b, sizeof(a)) == 0;
}

/* the product of ranks lo..hi-1's matrices for element i */
static mat_t mat_prod(int lo, int hi, int i)
{
    mat_t r = mat_of(lo, i);

    for (int k = lo + 1; k < hi; k++) {
        r = mat_mul(r, mat_of(k, i));
    }
    return r;
}

/* Every predefined operation on every predefined basic type (in 3, inout 5): defined exactly
 * where MPI 3.1 section 5.9.2 says (else MPI_ERR_OP), with the right result; MPI_CHAR is a C
 * integer, as in MPICH (an extension); the multi-language types (MPI_AINT, MPI_COUNT,
 * MPI_OFFSET) take the logical operations too, as in MPICH (an extension: 5.9.2 leaves them
 * out). */
enum { C_INT = 1, C_FLT = 2, C_LOGICAL = 4, C_CPLX = 8, C_BYTE = 16, C_MULTI = 32 };
static const struct {
    MPI_Op op;
    int classes, want;
} op_table[] = {
    {MPI_MAX, C_INT | C_MULTI | C_FLT, 5},
    {MPI_MIN, C_INT | C_MULTI | C_FLT, 3},
    {MPI_SUM, C_INT | C_MULTI | C_FLT | C_CPLX, 8},
    {MPI_PROD, C_INT | C_MULTI | C_FLT | C_CPLX, 15},
    {MPI_LAND, C_INT | C_MULTI | C_LOGICAL, 1},
    {MPI_LOR, C_INT | C_MULTI | C_LOGICAL, 1},
    {MPI_LXOR, C_INT | C_MULTI | C_LOGICAL, 0},
    {MPI_BAND, C_INT | C_MULTI | C_BYTE, 1},
    {MPI_BOR, C_INT | C_MULTI | C_BYTE, 7},
    {MPI_BXOR, C_INT | C_MULTI | C_BYTE, 6},
};
#define OP_TABLE_TYPES(X)                                                                          \
    X(MPI_CHAR, char, C_INT)                                                                       \
    X(MPI_SIGNED_CHAR, signed char, C_INT)                                                         \
    X(MPI_UNSIGNED_CHAR, unsigned char, C_INT)                                                     \
    X(MPI_BYTE, unsigned char, C_BYTE)                                                             \
    X(MPI_WCHAR, wchar_t, 0)                                                                       \
    X(MPI_SHORT, short, C_INT)                                                                     \
    X(MPI_UNSIGNED_SHORT, unsigned short, C_INT)                                                   \
    X(MPI_INT, int, C_INT)                                                                         \
    X(MPI_UNSIGNED, unsigned, C_INT)                                                               \
    X(MPI_LONG, long, C_INT)                                                                       \
    X(MPI_UNSIGNED_LONG, unsigned long, C_INT)                                                     \
    X(MPI_LONG_LONG_INT, long long, C_INT)                                                         \
    X(MPI_UNSIGNED_LONG_LONG, unsigned long long, C_INT)                                           \
    X(MPI_FLOAT, float, C_FLT)                                                                     \
    X(MPI_DOUBLE, double, C_FLT)                                                                   \
    X(MPI_LONG_DOUBLE, long double, C_FLT)                                                         \
    X(MPI_C_BOOL, _Bool, C_LOGICAL)                                                                \
    X(MPI_INT8_T, int8_t, C_INT)                                                                   \
    X(MPI_INT16_T, int16_t, C_INT)                                                                 \
    X(MPI_INT32_T, int32_t, C_INT)                                                                 \
    X(MPI_INT64_T, int64_t, C_INT)                                                                 \
    X(MPI_UINT8_T, uint8_t, C_INT)                                                                 \
    X(MPI_UINT16_T, uint16_t, C_INT)                                                               \
    X(MPI_UINT32_T, uint32_t, C_INT)                                                               \
    X(MPI_UINT64_T, uint64_t, C_INT)                                                               \
    X(MPI_AINT, MPI_Aint, C_MULTI)                                                                 \
    X(MPI_COUNT, MPI_Count, C_MULTI)                                                               \
    X(MPI_OFFSET, MPI_Offset, C_MULTI)                                                             \
    X(MPI_C_FLOAT_COMPLEX, float _Complex, C_CPLX)                                                 \
    X(MPI_C_DOUBLE_COMPLEX, double _Complex, C_CPLX)                                               \
    X(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, C_CPLX)                                     \
    X(MPI_PACKED, unsigned char, 0)

static void test_op_table(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#define OP_TABLE_CHECK(dt, T, cls)                                                                 \
    for (size_t k = 0; k < sizeof(op_table) / sizeof(op_table[0]); k++) {                          \
        T in = (T)3, io = (T)5;                                                                    \
        int rc = MPI_Reduce_local(&in, &io, 1, dt, op_table[k].op), ec = -1;                       \
                                                                                                   \
        MPI_Error_class(rc, &ec);                                                                  \
        if ((op_table[k].classes & (cls)) != 0) {                                                  \
            CHECK(rc == MPI_SUCCESS && io == (T)op_table[k].want, "%s, op %zu: rc %d", #dt, k,     \
                  rc);                                                                             \
        } else {                                                                                   \
            CHECK(ec == MPI_ERR_OP && io == (T)5, "%s, op %zu: class %d", #dt, k, ec);             \
        }                                                                                          \
    }
    OP_TABLE_TYPES(OP_TABLE_CHECK)
#undef OP_TABLE_CHECK
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_ops(void)
{
    int a[3] = {1, -2, 3}, b[3] = {4, 5, -6}, commute = -1;
    long double la[2] = {1.5L, 2.0L}, lb[2] = {0.25L, 3.0L};
    double _Complex ca = 1.0 + 2.0 * I, cb = 3.0 - 1.0 * I;
    struct {
        double v;
        int i;
    } pa[2] = {{1.0, 3}, {2.0, 1}}, pb[2] = {{1.0, 2}, {5.0, 0}};
    unsigned char ba = 0xf0, bb = 0x3c;
    _Bool qa = 1, qb = 0;
    mat_t ma = mat_of(1, 0), mb = mat_of(2, 0), want = mat_mul(ma, mb);
    wchar_t ch = 1;
    double _Complex cz[2] = {1.0 + 1.0 * I, 2.0 - 1.0 * I}, cw[2] = {0.5, -1.0 * I};
    long double lv[3] = {2.0L, 7.0L, 3.0L}, lw[3] = {4.0L, 9.0L, 0.5L};
    MPI_Datatype cpair, lvec, pairs;

    OK(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_SUM));
    CHECK(b[0] == 5 && b[1] == 3 && b[2] == -3, "SUM %d %d %d", b[0], b[1], b[2]);
    OK(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_MAX));
    CHECK(b[0] == 5 && b[1] == 3 && b[2] == 3, "MAX %d %d %d", b[0], b[1], b[2]);
    OK(MPI_Reduce_local(la, lb, 2, MPI_LONG_DOUBLE, MPI_PROD));
    CHECK(lb[0] == 0.375L && lb[1] == 6.0L, "long double PROD");
    OK(MPI_Reduce_local(&ca, &cb, 1, MPI_C_DOUBLE_COMPLEX, MPI_PROD));
    CHECK(cb == (1.0 + 2.0 * I) * (3.0 - 1.0 * I), "complex PROD");
    OK(MPI_Reduce_local(pa, pb, 2, MPI_DOUBLE_INT, MPI_MINLOC));
    CHECK(pb[0].v == 1.0 && pb[0].i == 2 && pb[1].v == 2.0 && pb[1].i == 1, "MINLOC");
    OK(MPI_Reduce_local(pa, pb, 2, MPI_DOUBLE_INT, MPI_MAXLOC));
    CHECK(pb[0].v == 1.0 && pb[0].i == 2 && pb[1].v == 2.0 && pb[1].i == 1, "MAXLOC");
    OK(MPI_Reduce_local(&ba, &bb, 1, MPI_BYTE, MPI_BXOR));
    CHECK(bb == 0xcc, "BXOR on MPI_BYTE %#x", bb);
    OK(MPI_Reduce_local(&qa, &qb, 1, MPI_C_BOOL, MPI_LXOR));
    CHECK(qb == 1, "LXOR on MPI_C_BOOL");
    /* MPI_User_function order: inout = in op inout */
    OK(MPI_Reduce_local(&ma, &mb, 1, mat_type, mat_mpi_op));
    CHECK(mat_eq(mb, want), "user op order");
    OK(MPI_Op_commutative(mat_mpi_op, &commute));
    CHECK(commute == 0, "commute %d", commute);
    OK(MPI_Op_commutative(MPI_SUM, &commute));
    CHECK(commute == 1, "commute %d", commute);
    /* a derived type of one basic type takes that type's operations (as MPI_Accumulate) */
    OK(MPI_Type_contiguous(2, MPI_C_DOUBLE_COMPLEX, &cpair));
    OK(MPI_Type_commit(&cpair));
    OK(MPI_Reduce_local(cz, cw, 1, cpair, MPI_SUM));
    CHECK(cw[0] == 1.5 + 1.0 * I && cw[1] == 2.0 - 2.0 * I, "SUM on 2 complex: %g%+gi %g%+gi",
          creal(cw[0]), cimag(cw[0]), creal(cw[1]), cimag(cw[1]));
    OK(MPI_Type_vector(2, 1, 2, MPI_LONG_DOUBLE, &lvec));
    OK(MPI_Type_commit(&lvec));
    OK(MPI_Reduce_local(lv, lw, 1, lvec, MPI_PROD));
    CHECK(lw[0] == 8.0L && lw[1] == 9.0L && lw[2] == 1.5L,
          "PROD on a long double vector: %Lg %Lg %Lg", lw[0], lw[1], lw[2]);
    OK(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &pairs));
    OK(MPI_Type_commit(&pairs));
    /* what is not defined */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    FAILS(MPI_Reduce_local(&ch, &ch, 1, MPI_WCHAR, MPI_SUM), MPI_ERR_OP);
    FAILS(MPI_Reduce_local(la, lb, 1, MPI_LONG_DOUBLE, MPI_BAND), MPI_ERR_OP);
    FAILS(MPI_Reduce_local(&ca, &cb, 1, MPI_C_DOUBLE_COMPLEX, MPI_MAX), MPI_ERR_OP);
    FAILS(MPI_Reduce_local(a, b, 1, MPI_INT, MPI_MINLOC), MPI_ERR_OP);
    FAILS(MPI_Reduce_local(cz, cw, 1, cpair, MPI_MAX), MPI_ERR_OP);
    FAILS(MPI_Reduce_local(pa, pb, 1, pairs, MPI_MINLOC), MPI_ERR_OP); /* packed is not C layout */
    FAILS(MPI_Reduce_local(a, b, 1, MPI_INT, MPI_OP_NULL), MPI_ERR_OP);
    FAILS(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    FAILS(MPI_Bcast(a, 1, MPI_INT, np, MPI_COMM_WORLD), MPI_ERR_ROOT);
    /* the argument checks the collectives share, each failing on every rank */
    FAILS(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
    FAILS(MPI_Scatter(a, -1, MPI_INT, b, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    FAILS(MPI_Allgather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    FAILS(MPI_Allgatherv(a, 1, MPI_INT, b, NULL, NULL, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG);
    FAILS(MPI_Scan(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE);
    FAILS(MPI_Reduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_ARG);
    {
        MPI_Op sum = MPI_SUM;
        FAILS(MPI_Op_free(&sum), MPI_ERR_OP);
    }
    OK(MPI_Type_free(&cpair));
    OK(MPI_Type_free(&lvec));
    OK(MPI_Type_free(&pairs));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* vector of N ints at every other position, extent 2N ints */
static void vec_fill(int *buf, int base)
{
    for (int i = 0; i < 2 * N; i++) {
        buf[i] = i % 2 == 0 ? base + i / 2 : -7;
    }
}

static bool vec_is(const int *buf, int base)
{
    for (int i = 0; i < 2 * N; i++) {
        if (buf[i] != (i % 2 == 0 ? base + i / 2 : -7)) {
            return false;
        }
    }
    return true;
}

static void test_move(void)
{
    int *all = calloc((size_t)np * 2 * N, sizeof(int)), *mine = calloc(2 * N, sizeof(int));
    int *flat = calloc((size_t)np * N, sizeof(int));
    int root = np - 1, x;

    OK(MPI_Barrier(MPI_COMM_WORLD));
    /* bcast: contiguous, then a vector to a vector */
    x = me == root ? 4242 : 0;
    OK(MPI_Bcast(&x, 1, MPI_INT, root, MPI_COMM_WORLD));
    CHECK(x == 4242, "bcast %d", x);
    vec_fill(mine, me == root ? 100 : 0);
    OK(MPI_Bcast(mine, 1, vec_type, root, MPI_COMM_WORLD));
    CHECK(vec_is(mine, 100), "bcast of a vector");
    /* gather: N ints from each into vectors at the root; then in place */
    for (int i = 0; i < N; i++) {
        flat[i] = me * 10 + i;
    }
    OK(MPI_Gather(flat, N, MPI_INT, all, 1, vec_type, root, MPI_COMM_WORLD));
    for (int r = 0; me == root && r < np; r++) {
        CHECK(all[r * 2 * N + 2] == r * 10 + 1 && all[r * 2 * N + 2 * (N - 1)] == r * 10 + N - 1,
              "gather block %d", r);
    }
    memset(all, 0, (size_t)np * 2 * N * sizeof(int));
    for (int i = 0; i < N; i++) {
        all[me * N + i] = me * 10 + i;
    }
    OK(MPI_Gather(me == 0 ? MPI_IN_PLACE : &all[me * N], N, MPI_INT, all, N, MPI_INT, 0,
                  MPI_COMM_WORLD));
    for (int r = 0; me == 0 && r < np; r++) {
        CHECK(all[r * N + N - 1] == r * 10 + N - 1, "gather in place, block %d", r);
    }
    /* scatter: vectors from the root, N ints each */
    for (int r = 0; r < np; r++) {
        vec_fill(&all[r * 2 * N], r * 1000);
    }
    OK(MPI_Scatter(all, 1, vec_type, flat, N, MPI_INT, root, MPI_COMM_WORLD));
    CHECK(flat[0] == me * 1000 && flat[N - 1] == me * 1000 + N - 1, "scatter %d", flat[0]);
    OK(MPI_Scatter(all, 1, vec_type, me == root ? MPI_IN_PLACE : mine, 1, vec_type, root,
                   MPI_COMM_WORLD));
    CHECK(me == root || vec_is(mine, me * 1000), "scatter in place");
    /* allgather into vectors, and in place */
    for (int i = 0; i < N; i++) {
        flat[i] = me + i;
    }
    OK(MPI_Allgather(flat, N, MPI_INT, all, 1, vec_type, MPI_COMM_WORLD));
    for (int r = 0; r < np; r++) {
        CHECK(all[r * 2 * N + 4] == r + 2, "allgather block %d: %d", r, all[r * 2 * N + 4]);
    }
    for (int r = 0; r < np; r++) {
        vec_fill(&all[r * 2 * N], r == me ? me * 7 : -1);
    }
    OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, vec_type, MPI_COMM_WORLD));
    for (int r = 0; r < np; r++) {
        CHECK(vec_is(&all[r * 2 * N], r * 7), "allgather in place block %d", r);
    }
    /* alltoall: block r of mine goes to rank r */
    free(flat);
    flat = calloc((size_t)np * np * 2, sizeof(int));
    for (int r = 0; r < np; r++) {
        flat[2 * r] = me * 100 + r;
        flat[2 * r + 1] = -me;
    }
    OK(MPI_Alltoall(flat, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < np; r++) {
        CHECK(all[2 * r] == r * 100 + me && all[2 * r + 1] == -r, "alltoall from %d", r);
    }
    OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, flat, 2, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < np; r++) {
        CHECK(flat[2 * r] == r * 100 + me && flat[2 * r + 1] == -r, "alltoall in place %d", r);
    }
    free(all);
    free(mine);
    free(flat);
}

static void test_reduce(void)
{
    int in[N], out[N], vin[2 * N], vout[2 * N], sum_ranks = np * (np - 1) / 2;
    long double ld = me + 0.5L, ldr = 0;
    double _Complex cz = me + 1.0 * I, czr = 0;
    mat_t m[2], mr[2];
    struct {
        int v, i;
    } loc = {me % 3, me}, locr = {0, 0};

    for (int i = 0; i < N; i++) {
        in[i] = me + i;
    }
    /* by rcmsg: SUM of ints; root not 0; in place at the root */
    OK(MPI_Reduce(in, out, N, MPI_INT, MPI_SUM, np / 2, MPI_COMM_WORLD));
    CHECK(me != np / 2 || (out[0] == sum_ranks && out[N - 1] == sum_ranks + np * (N - 1)),
          "reduce SUM %d", out[0]);
    memcpy(out, in, sizeof(in));
    OK(MPI_Allreduce(MPI_IN_PLACE, out, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(out[0] == np - 1 && out[2] == np + 1, "allreduce MAX in place %d", out[0]);
    memcpy(out, in, sizeof(in));
    OK(MPI_Reduce(me == 0 ? MPI_IN_PLACE : in, out, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    CHECK(me != 0 || out[1] == sum_ranks + np, "reduce in place %d", out[1]);
    /* MPI_CHAR, a C integer as in MPICH (an extension): SUM (wrapping modulo 256) and MAX */
    {
        char c[2] = {(char)(me + 1), (char)(100 + me)}, cr[2] = {0, 0};
        OK(MPI_Allreduce(c, cr, 2, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
        CHECK(cr[0] == (char)(sum_ranks + np) && cr[1] == (char)(100 * np + sum_ranks),
              "MPI_CHAR SUM %d %d", cr[0], cr[1]);
        OK(MPI_Allreduce(c, cr, 2, MPI_CHAR, MPI_MAX, MPI_COMM_WORLD));
        CHECK(cr[0] == (char)np && cr[1] == (char)(100 + np - 1), "MPI_CHAR MAX %d", cr[0]);
    }
    /* a vector type: packed for rcmsg, then the user sum on it (the MPI layer's tree) */
    vec_fill(vin, me);
    vec_fill(vout, 0);
    OK(MPI_Allreduce(vin, vout, 1, vec_type, MPI_SUM, MPI_COMM_WORLD));
    CHECK(vout[0] == sum_ranks && vout[2] == sum_ranks + np && vout[1] == -7,
          "allreduce of a vector %d %d %d", vout[0], vout[1], vout[2]);
    vec_fill(vout, 0);
    OK(MPI_Allreduce(vin, vout, 1, vec_type, isum, MPI_COMM_WORLD));
    CHECK(vout[0] == sum_ranks && vout[2 * (N - 1)] == sum_ranks + np * (N - 1) && vout[1] == -7,
          "user op on a vector %d", vout[0]);
    /* what rcmsg has no reduction for */
    OK(MPI_Allreduce(&ld, &ldr, 1, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(ldr == sum_ranks + np * 0.5L, "long double SUM");
    OK(MPI_Allreduce(&cz, &czr, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    CHECK(czr == sum_ranks + np * 1.0 * I, "complex SUM");
    OK(MPI_Allreduce(&loc, &locr, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(locr.v == (np > 2 ? 2 : np - 1) && locr.i == (np > 2 ? 2 : np - 1), "MAXLOC %d %d",
          locr.v, locr.i);
    OK(MPI_Reduce(&loc, &locr, 1, MPI_2INT, MPI_MINLOC, np - 1, MPI_COMM_WORLD));
    CHECK(me != np - 1 || (locr.v == 0 && locr.i == 0), "MINLOC %d %d", locr.v, locr.i);
    /* non-commutative: the product in rank order, at every root */
    m[0] = mat_of(me, 0), m[1] = mat_of(me, 1);
    for (int root = 0; root < np; root++) {
        memset(mr, 0, sizeof(mr));
        OK(MPI_Reduce(m, mr, 2, mat_type, mat_mpi_op, root, MPI_COMM_WORLD));
        CHECK(me != root ||
                  (mat_eq(mr[0], mat_prod(0, np, 0)) && mat_eq(mr[1], mat_prod(0, np, 1))),
              "non-commutative reduce to %d", root);
    }
    OK(MPI_Allreduce(m, mr, 2, mat_type, mat_mpi_op, MPI_COMM_WORLD));
    CHECK(mat_eq(mr[1], mat_prod(0, np, 1)), "non-commutative allreduce");
    CHECK(np == 1 || mat_calls > 0, "the user function was not called");
}

static void test_v(void)
{
    int *sc = calloc((size_t)np, sizeof(int)), *sd = calloc((size_t)np, sizeof(int));
    int *rc = calloc((size_t)np, sizeof(int)), *rd = calloc((size_t)np, sizeof(int));
    int *sbuf = calloc((size_t)np * 16, sizeof(int)), *rbuf = calloc((size_t)np * 16, sizeof(int));
    MPI_Datatype *st = calloc((size_t)np, sizeof(MPI_Datatype));
    MPI_Datatype *rt = calloc((size_t)np, sizeof(MPI_Datatype));
    int mycount = me % 3 + 1, root = np > 1 ? 1 : 0;

    /* gatherv: rank r sends r % 3 + 1 ints; the root places them at 8 * r (gaps between) */
    for (int i = 0; i < mycount; i++) {
        sbuf[i] = me * 100 + i;
    }
    for (int r = 0; r < np; r++) {
        rc[r] = r % 3 + 1;
        rd[r] = 8 * r;
    }
    memset(rbuf, 0xff, (size_t)np * 16 * sizeof(int));
    OK(MPI_Gatherv(sbuf, mycount, MPI_INT, rbuf, rc, rd, MPI_INT, root, MPI_COMM_WORLD));
    for (int r = 0; me == root && r < np; r++) {
        CHECK(rbuf[8 * r] == r * 100 && rbuf[8 * r + rc[r] - 1] == r * 100 + rc[r] - 1 &&
                  rbuf[8 * r + rc[r]] == -1,
              "gatherv block %d", r);
    }
    /* scatterv: the reverse, into a vector at the receivers (N ints each) */
    for (int r = 0; r < np; r++) {
        sc[r] = N;
        sd[r] = (np - 1 - r) * N;
        for (int i = 0; i < N; i++) {
            sbuf[(np - 1 - r) * N + i] = r * 10 + i;
        }
    }
    vec_fill(rbuf, -1);
    OK(MPI_Scatterv(sbuf, sc, sd, MPI_INT, rbuf, 1, vec_type, root, MPI_COMM_WORLD));
    CHECK(vec_is(rbuf, me * 10), "scatterv");
    /* allgatherv, then in place */
    memset(rbuf, 0xff, (size_t)np * 16 * sizeof(int));
    OK(MPI_Allgatherv(sbuf + (np - 1 - me) * N, mycount, MPI_INT, rbuf, rc, rd, MPI_INT,
                      MPI_COMM_WORLD));
    for (int r = 0; r < np; r++) {
        CHECK(rbuf[8 * r + rc[r] - 1] == r * 10 + rc[r] - 1 && rbuf[8 * r + rc[r]] == -1,
              "allgatherv block %d", r);
    }
    for (int r = 0; r < np; r++) {
        rbuf[8 * r] = r == me ? 555 + me : 0;
    }
    for (int r = 0; r < np; r++) {
        rc[r] = 1;
    }
    OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < np; r++) {
        CHECK(rbuf[8 * r] == 555 + r, "allgatherv in place %d", r);
    }
    /* alltoallv: to rank r, (me + r) % 3 ints at 4 * r; from r, (r + me) % 3 at 5 * r */
    for (int r = 0; r < np; r++) {
        sc[r] = (me + r) % 3;
        sd[r] = 4 * r;
        rc[r] = (r + me) % 3;
        rd[r] = 5 * r;
        for (int i = 0; i < 4; i++) {
            sbuf[4 * r + i] = me * 1000 + r * 10 + i;
        }
    }
    memset(rbuf, 0xff, (size_t)np * 16 * sizeof(int));
    OK(MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < np; r++) {
        CHECK(rc[r] == 0 || (rbuf[5 * r + rc[r] - 1] == r * 1000 + me * 10 + rc[r] - 1 &&
                             rbuf[5 * r + rc[r]] == -1),
              "alltoallv from %d", r);
    }
    /* in place: the blocks to send are in rbuf with the receive layout */
    for (int r = 0; r < np; r++) {
        rc[r] = 2;
        rbuf[5 * r] = me * 1000 + r, rbuf[5 * r + 1] = -me;
    }
    OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rbuf, rc, rd, MPI_INT,
                     MPI_COMM_WORLD));
    for (int r = 0; r < np; r++) {
        CHECK(rbuf[5 * r] == r * 1000 + me && rbuf[5 * r + 1] == -r, "alltoallv in place %d", r);
    }
    /* alltoallw: ints to even ranks, one vector to odd ones; byte displacements */
    for (int r = 0; r < np; r++) {
        bool vec = r % 2 == 1, from_vec = me % 2 == 1;
        sc[r] = vec ? 1 : N;
        st[r] = vec ? vec_type : MPI_INT;
        sd[r] = (int)(r * 2 * N * sizeof(int));
        vec_fill(sbuf + r * 2 * N, me * 100 + r);
        if (!vec) {
            for (int i = 0; i < N; i++) {
                sbuf[r * 2 * N + i] = me * 100 + r + i;
            }
        }
        rc[r] = from_vec ? 1 : N;
        rt[r] = from_vec ? vec_type : MPI_INT;
        rd[r] = (int)(r * 2 * N * sizeof(int));
    }
    memset(rbuf, 0xff, (size_t)np * 16 * sizeof(int));
    OK(MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD));
    for (int r = 0; r < np; r++) {
        int want = r * 100 + me + N - 1;
        int got = me % 2 == 1 ? rbuf[r * 2 * N + 2 * (N - 1)] : rbuf[r * 2 * N + N - 1];

        CHECK(got == want, "alltoallw from %d: %d, want %d", r, got, want);
    }
    free(sc), free(sd), free(rc), free(rd), free(sbuf), free(rbuf), free(st), free(rt);
}

static void test_scan(void)
{
    int *counts = calloc((size_t)np, sizeof(int)), *in = calloc((size_t)np * 4, sizeof(int));
    int out[4] = {0}, total = 0, off = 0, sum_ranks = np * (np - 1) / 2;
    mat_t m = mat_of(me, 3), mr;

    /* reduce_scatter_block: in[k] = me + k; block r of the sum to rank r */
    for (int k = 0; k < np * 2; k++) {
        in[k] = me + k;
    }
    OK(MPI_Reduce_scatter_block(in, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(out[0] == sum_ranks + np * 2 * me && out[1] == sum_ranks + np * (2 * me + 1),
          "reduce_scatter_block %d", out[0]);
    OK(MPI_Reduce_scatter_block(in, out, 2, MPI_INT, isum, MPI_COMM_WORLD));
    CHECK(out[1] == sum_ranks + np * (2 * me + 1), "reduce_scatter_block, user op %d", out[1]);
    /* reduce_scatter: rank r gets r % 3 + 1 elements (by rcmsg's reduce then the layer's
     * scatter, and all by the layer) */
    for (int r = 0; r < np; r++) {
        counts[r] = r % 3 + 1;
        total += counts[r];
        off += r < me ? counts[r] : 0;
    }
    free(in);
    in = calloc((size_t)total, sizeof(int));
    for (int k = 0; k < total; k++) {
        in[k] = me * k;
    }
    OK(MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k < counts[me]; k++) {
        CHECK(out[k] == sum_ranks * (off + k), "reduce_scatter %d: %d", k, out[k]);
    }
    OK(MPI_Reduce_scatter(MPI_IN_PLACE, in, counts, MPI_INT, isum, MPI_COMM_WORLD));
    for (int k = 0; k < counts[me]; k++) {
        CHECK(in[k] == sum_ranks * (off + k), "reduce_scatter in place %d: %d", k, in[k]);
    }
    /* scans */
    out[0] = me + 1;
    OK(MPI_Scan(MPI_IN_PLACE, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(out[0] == (me + 1) * (me + 2) / 2, "scan %d", out[0]);
    in[0] = me + 1;
    out[0] = -1;
    OK(MPI_Exscan(in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(me == 0 || out[0] == me * (me + 1) / 2, "exscan %d", out[0]);
    OK(MPI_Scan(&m, &mr, 1, mat_type, mat_mpi_op, MPI_COMM_WORLD));
    CHECK(mat_eq(mr, mat_prod(0, me + 1, 3)), "non-commutative scan");
    OK(MPI_Exscan(&m, &mr, 1, mat_type, mat_mpi_op, MPI_COMM_WORLD));
    CHECK(me == 0 || mat_eq(mr, mat_prod(0, me, 3)), "non-commutative exscan");
    free(counts);
    free(in);
}

int main(int argc, char **argv)
{
    MPI_Datatype vt;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    phases_expected = 5;
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_type);
    MPI_Type_commit(&mat_type);
    MPI_Type_vector(N, 1, 2, MPI_INT, &vt);
    MPI_Type_create_resized(vt, 0, (MPI_Aint)(2 * N * sizeof(int)), &vec_type);
    MPI_Type_free(&vt);
    MPI_Type_commit(&vec_type);
    MPI_Op_create(mat_op, 0, &mat_mpi_op);
    MPI_Op_create(isum_op, 1, &isum);
    test_ops();
    test_op_table();
    phase("operations");
    test_move();
    phase("bcast, gather, scatter, allgather, alltoall");
    test_reduce();
    phase("reduce, allreduce");
    test_v();
    phase("v and w variants");
    test_scan();
    phase("reduce_scatter, scans");
    MPI_Op_free(&mat_mpi_op);
    MPI_Op_free(&isum);
    CHECK(mat_mpi_op == MPI_OP_NULL, "Op_free");
    MPI_Type_free(&mat_type);
    MPI_Type_free(&vec_type);
    MPI_Finalize();
    return summary();
}
