/* SPDX-License-Identifier: BSD-3-Clause */
/* Every datatype constructor of the MPI face over every predefined type (issue 38 item 4):
 * Type_dup of a predefined type is a new handle (never another predefined type's) with the
 * same type map, freeable; contiguous, vector, hvector, indexed, hindexed, indexed_block,
 * hindexed_block, struct, subarray (C and Fortran order), resized and dup over each
 * predefined type give the size, bounds and true bounds the MPI rules give from the old type's, the
 * data a message carries with them is the old type's elements in type-map order (sent to this rank
 * on MPI_COMM_SELF and received as the old type, then back), Type_free frees every result and
 * refuses every predefined handle with MPI_ERR_TYPE, leaving it as it was. One singleton MPI_Init,
 * errors returned. */
#include <mpi.h>

#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* the class of a returned code (codes name their specific message: MPI_Error_string) */
static int err_class(int code)
{
    int cls = -1;

    MPI_Error_class(code, &cls);
    return cls;
}

#define BUF 16384

static const MPI_Datatype predef[] = {
    MPI_CHAR,
    MPI_SIGNED_CHAR,
    MPI_UNSIGNED_CHAR,
    MPI_BYTE,
    MPI_WCHAR,
    MPI_SHORT,
    MPI_UNSIGNED_SHORT,
    MPI_INT,
    MPI_UNSIGNED,
    MPI_LONG,
    MPI_UNSIGNED_LONG,
    MPI_LONG_LONG_INT,
    MPI_LONG_LONG,
    MPI_UNSIGNED_LONG_LONG,
    MPI_FLOAT,
    MPI_DOUBLE,
    MPI_LONG_DOUBLE,
    MPI_C_BOOL,
    MPI_INT8_T,
    MPI_INT16_T,
    MPI_INT32_T,
    MPI_INT64_T,
    MPI_UINT8_T,
    MPI_UINT16_T,
    MPI_UINT32_T,
    MPI_UINT64_T,
    MPI_AINT,
    MPI_COUNT,
    MPI_OFFSET,
    MPI_C_COMPLEX,
    MPI_C_FLOAT_COMPLEX,
    MPI_C_DOUBLE_COMPLEX,
    MPI_C_LONG_DOUBLE_COMPLEX,
    MPI_PACKED,
    MPI_FLOAT_INT,
    MPI_DOUBLE_INT,
    MPI_LONG_INT,
    MPI_2INT,
    MPI_SHORT_INT,
    MPI_LONG_DOUBLE_INT,
};
#define NPREDEF (sizeof(predef) / sizeof(predef[0]))

static bool is_predef(MPI_Datatype dt)
{
    for (size_t i = 0; i < NPREDEF; i++) {
        if (predef[i] == dt) {
            return true;
        }
    }
    return false;
}

/* The old type's bounds: size s, lb, extent e, true lb and true extent. */
typedef struct {
    MPI_Datatype dt;
    MPI_Count s;
    MPI_Aint lb, e, tlb, te;
} base_t;

static base_t base_of(MPI_Datatype dt)
{
    base_t b = {.dt = dt};

    ck_assert_int_eq(MPI_Type_size_x(dt, &b.s), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_extent(dt, &b.lb, &b.e), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_true_extent(dt, &b.tlb, &b.te), MPI_SUCCESS);
    return b;
}

/* A constructor's result as placements: n[i] old elements at d[i] bytes. */
#define MAXP 4
typedef struct {
    const char *name;
    int np;
    MPI_Aint d[MAXP];
    int n[MAXP];
    bool whole; /* a subarray: lb wlb and extent wext (the whole array) */
    MPI_Aint wlb, wext;
} shape_t;

/* What MPI says of a type of placements (no struct padding: every test extent below is a
 * multiple of the old extent, itself a multiple of its alignment). */
static void expect_shape(MPI_Datatype t, const base_t *b, const shape_t *sh)
{
    MPI_Aint lb = 0, ub = 0, tlb = 0, tub = 0, l, e;
    MPI_Count size = 0, sz;
    bool first = true;

    for (int i = 0; i < sh->np; i++) {
        MPI_Aint lo = sh->d[i] + b->lb, hi = sh->d[i] + b->lb + sh->n[i] * b->e;
        MPI_Aint tlo = sh->d[i] + b->tlb, thi = sh->d[i] + (sh->n[i] - 1) * b->e + b->tlb + b->te;

        lb = first || lo < lb ? lo : lb;
        ub = first || hi > ub ? hi : ub;
        tlb = first || tlo < tlb ? tlo : tlb;
        tub = first || thi > tub ? thi : tub;
        first = false;
        size += sh->n[i] * b->s;
    }
    if (sh->whole) {
        lb = sh->wlb;
        ub = sh->wlb + sh->wext;
    }
    ck_assert_int_eq(MPI_Type_size_x(t, &sz), MPI_SUCCESS);
    ck_assert_msg(sz == size, "%s of 0x%x: size %lld, want %lld", sh->name, (unsigned)b->dt,
                  (long long)sz, (long long)size);
    ck_assert_int_eq(MPI_Type_get_extent(t, &l, &e), MPI_SUCCESS);
    ck_assert_msg(l == lb && e == ub - lb, "%s of 0x%x: lb %ld extent %ld, want %ld %ld", sh->name,
                  (unsigned)b->dt, (long)l, (long)e, (long)lb, (long)(ub - lb));
    ck_assert_int_eq(MPI_Type_get_true_extent(t, &l, &e), MPI_SUCCESS);
    ck_assert_msg(l == tlb && e == tub - tlb, "%s of 0x%x: true lb %ld extent %ld, want %ld %ld",
                  sh->name, (unsigned)b->dt, (long)l, (long)e, (long)tlb, (long)(tub - tlb));
}

/* The old type's elements that count elements of the shape's type (extent ext) cover, in
 * type-map order, packed as the old type. Returns the packed length. */
static int pack_expected(const unsigned char *src, const base_t *b, const shape_t *sh, int count,
                         MPI_Aint ext, unsigned char *out)
{
    int pos = 0;

    for (int j = 0; j < count; j++) {
        for (int i = 0; i < sh->np; i++) {
            const unsigned char *at = src + j * ext + sh->d[i];

            ck_assert_int_eq(MPI_Pack(at, sh->n[i], b->dt, out, BUF, &pos, MPI_COMM_SELF),
                             MPI_SUCCESS);
        }
    }
    return pos;
}

/* A message of count elements of t (shape sh over b): sent as t, received as the old type it
 * carries the expected elements; sent as those old elements, received as t, Pack of t gives
 * them back; Get_count of t is count. */
static void expect_message(MPI_Datatype t, const base_t *b, const shape_t *sh, int count)
{
    static unsigned char src[BUF], dst[BUF], want[BUF], got[BUF];
    MPI_Aint lb, ext;
    MPI_Status st;
    int len, pos = 0, n, nold;
    unsigned char *origin = src + BUF / 4; /* room for negative lower bounds */

    for (int i = 0; i < BUF; i++) {
        src[i] = (unsigned char)(i * 7 + 3);
    }
    MPI_Type_get_extent(t, &lb, &ext);
    len = pack_expected(origin, b, sh, count, ext, want);
    nold = b->s > 0 ? (int)(len / b->s) : 0;
    memset(dst, 0, sizeof(dst));
    ck_assert_int_eq(
        MPI_Sendrecv(origin, count, t, 0, 1, dst, nold, b->dt, 0, 1, MPI_COMM_SELF, &st),
        MPI_SUCCESS);
    ck_assert_int_eq(MPI_Pack(dst, nold, b->dt, got, BUF, &pos, MPI_COMM_SELF), MPI_SUCCESS);
    ck_assert_msg(pos == len && memcmp(got, want, (size_t)len) == 0,
                  "%s of 0x%x: sent as itself, %d bytes arrived, want %d", sh->name,
                  (unsigned)b->dt, pos, len);
    memset(dst, 0, sizeof(dst));
    ck_assert_int_eq(MPI_Sendrecv(want, len, MPI_PACKED, 0, 2, dst + BUF / 4, count, t, 0, 2,
                                  MPI_COMM_SELF, &st),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Get_count(&st, t, &n), MPI_SUCCESS);
    ck_assert_msg(n == count, "%s of 0x%x: Get_count %d, want %d", sh->name, (unsigned)b->dt, n,
                  count);
    pos = 0;
    ck_assert_int_eq(MPI_Pack(dst + BUF / 4, count, t, got, BUF, &pos, MPI_COMM_SELF), MPI_SUCCESS);
    ck_assert_msg(pos == len && memcmp(got, want, (size_t)len) == 0,
                  "%s of 0x%x: received as itself, the data differs", sh->name, (unsigned)b->dt);
}

/* Checks t (built as sh over b), its dup, and frees both. */
static void check_and_free(MPI_Datatype t, const base_t *b, const shape_t *sh)
{
    MPI_Datatype d;

    ck_assert_msg(!is_predef(t), "%s of 0x%x gave the predefined handle 0x%x", sh->name,
                  (unsigned)b->dt, (unsigned)t);
    ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
    expect_shape(t, b, sh);
    expect_message(t, b, sh, 2);
    ck_assert_int_eq(MPI_Type_dup(t, &d), MPI_SUCCESS);
    ck_assert(d != t && !is_predef(d));
    expect_shape(d, b, sh);
    expect_message(d, b, sh, 2);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
    ck_assert_int_eq(t, MPI_DATATYPE_NULL);
    expect_message(d, b, sh, 1); /* the dup outlives its original */
    ck_assert_int_eq(MPI_Type_free(&d), MPI_SUCCESS);
    ck_assert_int_eq(d, MPI_DATATYPE_NULL);
}

/* The case, first in the suite so that no constructor ran before: the dup of each
 * predefined type is a new handle with its size, bounds and messages; freeable. */
START_TEST(test_dup_predefined)
{
    MPI_Datatype d[NPREDEF];

    for (size_t i = 0; i < NPREDEF; i++) {
        base_t b = base_of(predef[i]);
        shape_t one = {"dup", 1, {0}, {1}, false, 0, 0};

        ck_assert_int_eq(MPI_Type_dup(predef[i], &d[i]), MPI_SUCCESS);
        ck_assert_msg(!is_predef(d[i]), "Type_dup(0x%x) gave the predefined handle 0x%x",
                      (unsigned)predef[i], (unsigned)d[i]);
        for (size_t k = 0; k < i; k++) {
            ck_assert(d[k] != d[i]);
        }
        expect_shape(d[i], &b, &one);
        expect_message(d[i], &b, &one, 3);
    }
    for (size_t i = 0; i < NPREDEF; i++) {
        ck_assert_int_eq(MPI_Type_free(&d[i]), MPI_SUCCESS);
        ck_assert_int_eq(d[i], MPI_DATATYPE_NULL);
    }
}
END_TEST

/* Each constructor over predefined type _i. */
START_TEST(test_ctors)
{
    base_t b = base_of(predef[_i]);
    MPI_Aint e = b.e;
    MPI_Datatype t, old = b.dt;

    shape_t contig = {"contiguous", 1, {0}, {3}, false, 0, 0};
    ck_assert_int_eq(MPI_Type_contiguous(3, old, &t), MPI_SUCCESS);
    check_and_free(t, &b, &contig);

    shape_t vec = {"vector", 3, {0, 4 * e, 8 * e}, {2, 2, 2}, false, 0, 0};
    ck_assert_int_eq(MPI_Type_vector(3, 2, 4, old, &t), MPI_SUCCESS);
    check_and_free(t, &b, &vec);

    shape_t hvec = {"hvector", 2, {0, 5 * e}, {3, 3}, false, 0, 0};
    ck_assert_int_eq(MPI_Type_create_hvector(2, 3, 5 * e, old, &t), MPI_SUCCESS);
    check_and_free(t, &b, &hvec);

    shape_t idx = {"indexed", 3, {5 * e, 0, 9 * e}, {2, 1, 3}, false, 0, 0};
    ck_assert_int_eq(MPI_Type_indexed(3, (const int[]){2, 1, 3}, (const int[]){5, 0, 9}, old, &t),
                     MPI_SUCCESS);
    check_and_free(t, &b, &idx);

    shape_t hidx = {"hindexed", 2, {3 * e, 0}, {2, 1}, false, 0, 0};
    ck_assert_int_eq(
        MPI_Type_create_hindexed(2, (const int[]){2, 1}, (const MPI_Aint[]){3 * e, 0}, old, &t),
        MPI_SUCCESS);
    check_and_free(t, &b, &hidx);

    shape_t iblk = {"indexed_block", 2, {4 * e, e}, {2, 2}, false, 0, 0};
    ck_assert_int_eq(MPI_Type_create_indexed_block(2, 2, (const int[]){4, 1}, old, &t),
                     MPI_SUCCESS);
    check_and_free(t, &b, &iblk);

    shape_t hblk = {"hindexed_block", 3, {7 * e, 0, 3 * e}, {2, 2, 2}, false, 0, 0};
    ck_assert_int_eq(
        MPI_Type_create_hindexed_block(3, 2, (const MPI_Aint[]){7 * e, 0, 3 * e}, old, &t),
        MPI_SUCCESS);
    check_and_free(t, &b, &hblk);

    shape_t strct = {"struct", 2, {0, 3 * e}, {1, 2}, false, 0, 0};
    ck_assert_int_eq(MPI_Type_create_struct(2, (const int[]){1, 2}, (const MPI_Aint[]){0, 3 * e},
                                            (const MPI_Datatype[]){old, old}, &t),
                     MPI_SUCCESS);
    check_and_free(t, &b, &strct);

    shape_t dup = {"dup", 1, {0}, {1}, false, 0, 0};
    ck_assert_int_eq(MPI_Type_dup(old, &t), MPI_SUCCESS);
    check_and_free(t, &b, &dup);

    /* subarrays: 2x3 of 4x5 from (1, 2) in both orders; 2x2x3 of 3x4x5 from (1, 1, 2) */
    shape_t subc = {"subarray C", 2, {7 * e, 12 * e}, {3, 3}, true, 0, 20 * e};
    ck_assert_int_eq(MPI_Type_create_subarray(2, (const int[]){4, 5}, (const int[]){2, 3},
                                              (const int[]){1, 2}, MPI_ORDER_C, old, &t),
                     MPI_SUCCESS);
    check_and_free(t, &b, &subc);

    shape_t subf = {"subarray Fortran", 3, {9 * e, 13 * e, 17 * e}, {2, 2, 2}, true, 0, 20 * e};
    ck_assert_int_eq(MPI_Type_create_subarray(2, (const int[]){4, 5}, (const int[]){2, 3},
                                              (const int[]){1, 2}, MPI_ORDER_FORTRAN, old, &t),
                     MPI_SUCCESS);
    check_and_free(t, &b, &subf);

    shape_t sub3 = {"subarray 3d", 4, {27 * e, 32 * e, 47 * e, 52 * e}, {3, 3, 3, 3}, true, 0,
                    60 * e};
    ck_assert_int_eq(MPI_Type_create_subarray(3, (const int[]){3, 4, 5}, (const int[]){2, 2, 3},
                                              (const int[]){1, 1, 2}, MPI_ORDER_C, old, &t),
                     MPI_SUCCESS);
    check_and_free(t, &b, &sub3);
}
END_TEST

/* resized over predefined type _i: lb -e, extent 3e; the true bounds are the old type's. */
START_TEST(test_resized)
{
    base_t b = base_of(predef[_i]);
    MPI_Datatype t, d;
    MPI_Aint l, e;
    MPI_Count sz;
    shape_t one = {"resized", 1, {0}, {1}, false, 0, 0};

    ck_assert_int_eq(MPI_Type_create_resized(b.dt, -b.e, 3 * b.e, &t), MPI_SUCCESS);
    ck_assert(!is_predef(t));
    ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_dup(t, &d), MPI_SUCCESS);
    for (int k = 0; k < 2; k++) {
        MPI_Datatype x = k == 0 ? t : d;

        ck_assert_int_eq(MPI_Type_size_x(x, &sz), MPI_SUCCESS);
        ck_assert_int_eq(sz, b.s);
        ck_assert_int_eq(MPI_Type_get_extent(x, &l, &e), MPI_SUCCESS);
        ck_assert(l == -b.e && e == 3 * b.e);
        ck_assert_int_eq(MPI_Type_get_true_extent(x, &l, &e), MPI_SUCCESS);
        ck_assert(l == b.tlb && e == b.te);
        expect_message(x, &b, &one, 1);
    }
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&d), MPI_SUCCESS);
    ck_assert(t == MPI_DATATYPE_NULL && d == MPI_DATATYPE_NULL);
}
END_TEST

/* Type_free of every predefined handle: MPI_ERR_TYPE, the handle left as it was and still
 * usable. */
START_TEST(test_free_predefined)
{
    for (size_t i = 0; i < NPREDEF; i++) {
        MPI_Datatype dt = predef[i];
        MPI_Count sz;

        char text[MPI_MAX_ERROR_STRING];
        int err = MPI_Type_free(&dt), len = 0;

        ck_assert_int_eq(err_class(err), MPI_ERR_TYPE);
        ck_assert_int_eq(MPI_Error_string(err, text, &len), MPI_SUCCESS);
        ck_assert_msg(strstr(text, "cannot free the predefined datatype") != NULL, "%s", text);
        ck_assert_int_eq(dt, predef[i]);
        ck_assert_int_eq(MPI_Type_size_x(dt, &sz), MPI_SUCCESS);
    }
}
END_TEST

/* Bad subarrays: MPI_ERR_ARG naming the problem (returned), no type made. */
START_TEST(test_subarray_errors)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    const int sz[] = {4, 5}, sub[] = {2, 3}, st[] = {1, 2};

    ck_assert_int_eq(err_class(MPI_Type_create_subarray(0, sz, sub, st, MPI_ORDER_C, MPI_INT, &t)),
                     MPI_ERR_ARG);
    ck_assert_int_eq(err_class(MPI_Type_create_subarray(2, sz, sub, st, 99, MPI_INT, &t)),
                     MPI_ERR_ARG);
    ck_assert_int_eq(err_class(MPI_Type_create_subarray(2, sz, (const int[]){2, 4}, st, MPI_ORDER_C,
                                                        MPI_INT, &t)),
                     MPI_ERR_ARG); /* 2 + 4 > 5 */
    ck_assert_int_eq(err_class(MPI_Type_create_subarray(2, sz, (const int[]){0, 3}, st, MPI_ORDER_C,
                                                        MPI_INT, &t)),
                     MPI_ERR_ARG);
    ck_assert_int_eq(err_class(MPI_Type_create_subarray(2, sz, sub, (const int[]){-1, 0},
                                                        MPI_ORDER_C, MPI_INT, &t)),
                     MPI_ERR_ARG);
    ck_assert_int_eq(
        err_class(MPI_Type_create_subarray(2, sz, sub, NULL, MPI_ORDER_C, MPI_INT, &t)),
        MPI_ERR_ARG);
    ck_assert_int_eq(
        err_class(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_DATATYPE_NULL, &t)),
        MPI_ERR_TYPE);
    ck_assert_int_eq(t, MPI_DATATYPE_NULL);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("mpi_type_ctors");
    TCase *tc = tcase_create("ctors");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_dup_predefined); /* first: before any other constructor */
    tcase_add_loop_test(tc, test_ctors, 0, (int)NPREDEF);
    tcase_add_loop_test(tc, test_resized, 0, (int)NPREDEF);
    tcase_add_test(tc, test_free_predefined);
    tcase_add_test(tc, test_subarray_errors);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS ||
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) != MPI_SUCCESS) {
        return EXIT_FAILURE;
    }
    srunner_set_fork_status(sr, CK_NOFORK); /* one MPI_Init for the whole suite */
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Finalize();
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
