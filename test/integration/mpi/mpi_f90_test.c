/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Type_create_f90_integer / _real / _complex (MPI-3.1 17.1.9), on any number of ranks, as
 * mpi4py's test_datatype checks them: the type of the kind chosen (its size), the same handle
 * for the same arguments, the envelope (combiner MPI_COMBINER_F90_*, its r and p as given, no
 * addresses or types), committed and never freed (MPI_ERR_TYPE), named by its own handle in a
 * duplicate's contents, usable in an Allreduce and Reduce_local (complex(15, 300) and
 * real(18, 4931), long double with x87, too: MPI-3.1 5.9.2 counts them as floating point and
 * complex); an f90 integer is a Fortran integer there: BOR checked by value, LAND / LOR / LXOR
 * refused with MPI_ERR_OP naming the type (in Allreduce, Reduce_local, a contiguous type of it,
 * Accumulate and Fetch_and_op, whose SUM is checked); and the errors: no such kind, a negative
 * argument, both p and r MPI_UNDEFINED, a NULL newtype.
 */
#include "mpi_test.h"

#include <complex.h>
#include <float.h>
#include <stdint.h>

static int type_size(MPI_Datatype t)
{
    int size = -1;

    OK(MPI_Type_size(t, &size));
    return size;
}

/* t's envelope is (combiner, n integers: i0, i1), no addresses nor types */
static void check_envelope(MPI_Datatype t, int combiner, int n, int i0, int i1)
{
    int ni, na, nd, comb, ints[2] = {-9, -9};

    OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(comb == combiner && ni == n && na == 0 && nd == 0, "envelope %d %d %d %d", ni, na, nd,
          comb);
    OK(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
    CHECK(ints[0] == i0 && (n < 2 || ints[1] == i1), "contents %d %d, expected %d %d", ints[0],
          ints[1], i0, i1);
}

static void test_integer(void)
{
    static const int r[] = {1, 2, 4, 9, 18, 0}, size[] = {1, 1, 2, 4, 8, 1};
    MPI_Datatype t, t2;

    for (int i = 0; i < 6; i++) {
        OK(MPI_Type_create_f90_integer(r[i], &t));
        CHECK(type_size(t) == size[i], "f90_integer(%d): size %d", r[i], type_size(t));
        OK(MPI_Type_create_f90_integer(r[i], &t2));
        CHECK(t == t2, "f90_integer(%d) twice: %#x and %#x", r[i], t, t2);
        check_envelope(t, MPI_COMBINER_F90_INTEGER, 1, r[i], 0);
        OK(MPI_Type_commit(&t));
        FAILS(MPI_Type_free(&t2), MPI_ERR_TYPE);
        CHECK(t2 == t, "a failed free changed the handle");
    }
    FAILS(MPI_Type_create_f90_integer(19, &t), MPI_ERR_ARG);
    FAILS(MPI_Type_create_f90_integer(-3, &t), MPI_ERR_ARG);
    FAILS(MPI_Type_create_f90_integer(MPI_UNDEFINED, &t), MPI_ERR_ARG);
    FAILS(MPI_Type_create_f90_integer(4, NULL), MPI_ERR_ARG);
}

static void test_real_complex(void)
{
    static const int p[] = {6, 15, MPI_UNDEFINED, 7, MPI_UNDEFINED},
                     r[] = {30, 300, 300, MPI_UNDEFINED, 37}, size[] = {4, 8, 8, 8, 4};
    MPI_Datatype t, t2, t3;

    for (int i = 0; i < 5; i++) {
        OK(MPI_Type_create_f90_real(p[i], r[i], &t));
        CHECK(type_size(t) == size[i], "f90_real(%d, %d): size %d", p[i], r[i], type_size(t));
        check_envelope(t, MPI_COMBINER_F90_REAL, 2, p[i], r[i]);
        OK(MPI_Type_create_f90_complex(p[i], r[i], &t2));
        CHECK(type_size(t2) == 2 * size[i], "f90_complex(%d, %d): size %d", p[i], r[i],
              type_size(t2));
        check_envelope(t2, MPI_COMBINER_F90_COMPLEX, 2, p[i], r[i]);
        CHECK(t != t2, "real and complex of the same arguments share a handle");
        OK(MPI_Type_create_f90_real(p[i], r[i], &t3));
        CHECK(t3 == t, "f90_real(%d, %d) twice: %#x and %#x", p[i], r[i], t, t3);
        OK(MPI_Type_create_f90_complex(p[i], r[i], &t3));
        CHECK(t3 == t2, "f90_complex(%d, %d) twice: %#x and %#x", p[i], r[i], t2, t3);
        FAILS(MPI_Type_free(&t), MPI_ERR_TYPE);
        FAILS(MPI_Type_free(&t2), MPI_ERR_TYPE);
    }
    OK(MPI_Type_create_f90_real(LDBL_DIG, 400, &t));
    CHECK(type_size(t) == (int)sizeof(long double), "f90_real(%d, 400): size %d", LDBL_DIG,
          type_size(t));
    FAILS(MPI_Type_create_f90_real(LDBL_DIG + 1, 10, &t), MPI_ERR_ARG);
    FAILS(MPI_Type_create_f90_real(6, LDBL_MAX_10_EXP + 1, &t), MPI_ERR_ARG);
    FAILS(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t), MPI_ERR_ARG);
    FAILS(MPI_Type_create_f90_complex(-1, 10, &t), MPI_ERR_ARG);
    FAILS(MPI_Type_create_f90_complex(6, 30, NULL), MPI_ERR_ARG);
}

/* a duplicate's contents name the f90 type itself; the type carries data */
static void test_use(void)
{
    MPI_Datatype ti, td, dup, inner;
    int ni, na, nd, comb;
    long long v[3] = {me, 2 * me, 1}, sum[3], in[2] = {5, 6}, io[2] = {1, 2};
    double d = 0.5 * me, dsum;

    OK(MPI_Type_create_f90_integer(18, &ti));
    OK(MPI_Type_create_f90_real(15, 300, &td));
    OK(MPI_Type_dup(ti, &dup));
    OK(MPI_Type_get_envelope(dup, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_DUP && nd == 1, "dup's envelope %d %d", comb, nd);
    OK(MPI_Type_get_contents(dup, 0, 0, 1, NULL, NULL, &inner));
    CHECK(inner == ti, "dup's contents: %#x, expected the f90 type %#x", inner, ti);
    OK(MPI_Type_free(&dup));
    OK(MPI_Allreduce(v, sum, 3, ti, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum[0] == (long long)np * (np - 1) / 2 && sum[1] == 2 * sum[0] && sum[2] == np,
          "Allreduce of f90_integer(18): %lld %lld %lld", sum[0], sum[1], sum[2]);
    OK(MPI_Allreduce(&d, &dsum, 1, td, MPI_MAX, MPI_COMM_WORLD));
    CHECK(dsum == 0.5 * (np - 1), "Allreduce MAX of f90_real(15, 300): %g", dsum);
    OK(MPI_Reduce_local(in, io, 2, ti, MPI_PROD));
    CHECK(io[0] == 5 && io[1] == 12, "Reduce_local: %lld %lld", io[0], io[1]);
}

/* MPI-3.1 5.9.2: the handles of MPI_TYPE_CREATE_F90_REAL / _COMPLEX are floating point and
 * complex types for the predefined operations: the complex of double, the real of long double */
static void test_reduce_fp(void)
{
    MPI_Datatype tc, tr;
    double _Complex z[2] = {me + 2.0 * me * I, 1.0 - 0.5 * I}, zs[2];
    long double x[2] = {0.25L * me, 1.0L + LDBL_EPSILON}, xs[2], xm;
    double s = (double)np * (np - 1) / 2;

    OK(MPI_Type_create_f90_complex(15, 300, &tc));
    OK(MPI_Allreduce(z, zs, 2, tc, MPI_SUM, MPI_COMM_WORLD));
    CHECK(creal(zs[0]) == s && cimag(zs[0]) == 2 * s && creal(zs[1]) == np &&
              cimag(zs[1]) == -0.5 * np,
          "Allreduce SUM of f90_complex(15, 300): %g%+gi %g%+gi", creal(zs[0]), cimag(zs[0]),
          creal(zs[1]), cimag(zs[1]));
    OK(MPI_Allreduce(z, zs, 2, tc, MPI_PROD, MPI_COMM_WORLD));
    OK(MPI_Type_create_f90_real(18, 4931, &tr));
    if (type_size(tr) != (int)sizeof(long double)) {
        printf("f90_real(18, 4931) is not long double here: its reduction not checked\n");
        return;
    }
    OK(MPI_Allreduce(x, xs, 2, tr, MPI_SUM, MPI_COMM_WORLD));
    CHECK(xs[0] == 0.25L * s && xs[1] == np * (1.0L + LDBL_EPSILON),
          "Allreduce SUM of f90_real(18, 4931): %Lg %Lg", xs[0], xs[1]);
    OK(MPI_Allreduce(&x[0], &xm, 1, tr, MPI_MAX, MPI_COMM_WORLD));
    CHECK(xm == 0.25L * (np - 1), "Allreduce MAX of f90_real(18, 4931): %Lg", xm);
}

/* code failed with MPI_ERR_OP and its string names what (the handle's type, its elements) */
static void refused(int code, const char *what, const char *elem)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0, cls = -1;

    MPI_Error_class(code, &cls);
    MPI_Error_string(code, text, &len);
    CHECK(cls == MPI_ERR_OP && strstr(text, what) != NULL && strstr(text, elem) != NULL,
          "class %d, not MPI_ERR_OP, or '%s' does not name %s and %s", cls, text, what, elem);
}

/* MPI-3.1 5.9.2: the handle of MPI_TYPE_CREATE_F90_INTEGER is a Fortran integer: MAX, MIN,
 * SUM, PROD, BAND, BOR, BXOR and no logical operation (as MPI_INTEGER), in reductions, in a
 * derived type of it, and in Accumulate and Fetch_and_op (rank 0's window) */
static void test_integer_class(void)
{
    static const char f9[] = "MPI_Type_create_f90_integer(9)";
    MPI_Datatype ti, pair;
    int32_t v[2] = {me + 1, 1 << me}, r[2] = {-1, -1}, one = 1, old = -1, cell = 0;
    MPI_Win win;

    OK(MPI_Type_create_f90_integer(9, &ti));
    refused(MPI_Allreduce(v, r, 2, ti, MPI_LAND, MPI_COMM_WORLD), f9, "MPI_INTEGER4");
    refused(MPI_Allreduce(v, r, 2, ti, MPI_LOR, MPI_COMM_WORLD), f9, "MPI_LOR");
    refused(MPI_Reduce_local(v, r, 2, ti, MPI_LXOR), f9, "MPI_LXOR");
    OK(MPI_Allreduce(v, r, 2, ti, MPI_BOR, MPI_COMM_WORLD));
    CHECK(r[0] == (np == 1 ? 1 : 3) && r[1] == (1 << np) - 1, "f90_integer(9) BOR %d %#x", r[0],
          r[1]);
    OK(MPI_Type_contiguous(2, ti, &pair));
    OK(MPI_Type_commit(&pair));
    refused(MPI_Reduce_local(v, r, 1, pair, MPI_LAND), "derived datatype", "MPI_INTEGER4");
    OK(MPI_Type_free(&pair));
    OK(MPI_Win_create(&cell, sizeof(cell), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    OK(MPI_Win_fence(0, win));
    refused(MPI_Accumulate(&one, 1, ti, 0, 0, 1, ti, MPI_LAND, win), "MPI_LAND", "MPI_INTEGER4");
    refused(MPI_Fetch_and_op(&one, &old, ti, 0, 0, MPI_LOR, win), "MPI_LOR", "MPI_INTEGER4");
    OK(MPI_Fetch_and_op(&one, &old, ti, 0, 0, MPI_SUM, win));
    OK(MPI_Win_fence(0, win));
    CHECK(me != 0 || cell == np, "Fetch_and_op SUM on f90_integer(9): %d, expected %d", cell, np);
    CHECK(old >= 0 && old < np, "Fetch_and_op fetched %d", old);
    OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    phases_expected = 5;
    test_integer();
    phase("f90 integer types");
    test_real_complex();
    phase("f90 real and complex types");
    test_use();
    phase("f90 types in envelopes and collectives");
    test_reduce_fp();
    phase("f90 complex and long double in reductions");
    test_integer_class();
    phase("f90 integer: a Fortran integer, no logical operation (reductions, Accumulate)");
    MPI_Finalize();
    return summary();
}
