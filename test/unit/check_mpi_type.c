/* SPDX-License-Identifier: BSD-3-Clause */
/* The datatype engine of the MPI face through the public MPI calls: every constructor and
 * nestings of them against hand-computed size/extent/true extent, Pack/Unpack with the data
 * checked (resized types with count > 1 and negative lower bounds), Pack_size, Get_count and
 * Get_elements counts, and the error classes of bad input. One singleton MPI_Init for the
 * whole suite (no fork: rcmsg is initialized once), errors returned (MPI_ERRORS_RETURN). */
#include <mpi.h>

#include <check.h>
#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define N 64

/* the class of a returned code (codes name their specific message: MPI_Error_string) */
static int err_class(int code)
{
    int cls = -1;

    MPI_Error_class(code, &cls);
    return cls;
}

static void expect_type(MPI_Datatype dt, MPI_Count size, MPI_Aint lb, MPI_Aint extent, MPI_Aint tlb,
                        MPI_Aint textent)
{
    MPI_Aint l, e;
    MPI_Count sz, lx, ex;
    int isz;

    ck_assert_int_eq(MPI_Type_size_x(dt, &sz), MPI_SUCCESS);
    ck_assert_int_eq(sz, size);
    ck_assert_int_eq(MPI_Type_size(dt, &isz), MPI_SUCCESS);
    ck_assert_int_eq(isz, size);
    ck_assert_int_eq(MPI_Type_get_extent(dt, &l, &e), MPI_SUCCESS);
    ck_assert_int_eq(l, lb);
    ck_assert_int_eq(e, extent);
    ck_assert_int_eq(MPI_Type_get_extent_x(dt, &lx, &ex), MPI_SUCCESS);
    ck_assert_int_eq(lx, lb);
    ck_assert_int_eq(ex, extent);
    ck_assert_int_eq(MPI_Type_get_true_extent(dt, &l, &e), MPI_SUCCESS);
    ck_assert_int_eq(l, tlb);
    ck_assert_int_eq(e, textent);
    ck_assert_int_eq(MPI_Type_get_true_extent_x(dt, &lx, &ex), MPI_SUCCESS);
    ck_assert_int_eq(lx, tlb);
    ck_assert_int_eq(ex, textent);
}

/* Pack count elements of dt from an int array holding 0..N-1 (starting at base ints into it):
 * the packed ints must be want[0..nwant); Unpack into a zeroed array must put exactly them
 * back (everything else zero). Pack_size must be the packed length. */
static void expect_ints(MPI_Datatype dt, int count, int base, const int *want, int nwant)
{
    int src[N], dst[N], packed[N], pos = 0, psize;

    for (int i = 0; i < N; i++) {
        src[i] = i + 1;
    }
    memset(packed, 0, sizeof(packed));
    ck_assert_int_eq(MPI_Pack(src + base, count, dt, packed, sizeof(packed), &pos, MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, nwant * (int)sizeof(int));
    ck_assert_int_eq(MPI_Pack_size(count, dt, MPI_COMM_WORLD, &psize), MPI_SUCCESS);
    ck_assert_int_eq(psize, pos);
    for (int i = 0; i < nwant; i++) {
        ck_assert_msg(packed[i] == want[i] + 1, "packed int %d is %d, want %d", i, packed[i] - 1,
                      want[i]);
    }
    memset(dst, 0, sizeof(dst));
    pos = 0;
    ck_assert_int_eq(MPI_Unpack(packed, psize, &pos, dst + base, count, dt, MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, psize);
    for (int i = 0; i < N; i++) {
        int expect = 0;

        for (int k = 0; k < nwant; k++) {
            expect = want[k] == i ? i + 1 : expect;
        }
        ck_assert_msg(dst[i] == expect, "unpacked int %d is %d, want %d", i, dst[i], expect);
    }
}

/* Get_count and Get_elements of a status that received nbytes. */
static void expect_counts(MPI_Datatype dt, MPI_Count nbytes, int count, MPI_Count elements)
{
    MPI_Status st = {.count_lo = (int)nbytes, .count_hi_and_cancelled = 0};
    MPI_Count ex;
    int c, e;

    ck_assert_int_eq(MPI_Get_count(&st, dt, &c), MPI_SUCCESS);
    ck_assert_int_eq(c, count);
    ck_assert_int_eq(MPI_Get_elements(&st, dt, &e), MPI_SUCCESS);
    ck_assert_int_eq(e, elements);
    ck_assert_int_eq(MPI_Get_elements_x(&st, dt, &ex), MPI_SUCCESS);
    ck_assert_int_eq(ex, elements);
}

static MPI_Datatype commit(MPI_Datatype dt)
{
    ck_assert_int_eq(MPI_Type_commit(&dt), MPI_SUCCESS);
    return dt;
}

static void type_free(MPI_Datatype *dt)
{
    ck_assert_int_eq(MPI_Type_free(dt), MPI_SUCCESS);
    ck_assert_int_eq(*dt, MPI_DATATYPE_NULL);
}

/* Every predefined type: size, extent and true extent of its C type. */
START_TEST(test_predefined)
{
#define BASIC(dt, ct)                                                                              \
    expect_type(dt, sizeof(ct), 0, sizeof(ct), 0, sizeof(ct));                                     \
    expect_counts(dt, 3 * sizeof(ct), 3, 3);
    BASIC(MPI_CHAR, char);
    BASIC(MPI_SIGNED_CHAR, signed char);
    BASIC(MPI_UNSIGNED_CHAR, unsigned char);
    BASIC(MPI_BYTE, char);
    BASIC(MPI_WCHAR, wchar_t);
    BASIC(MPI_SHORT, short);
    BASIC(MPI_UNSIGNED_SHORT, unsigned short);
    BASIC(MPI_INT, int);
    BASIC(MPI_UNSIGNED, unsigned);
    BASIC(MPI_LONG, long);
    BASIC(MPI_UNSIGNED_LONG, unsigned long);
    BASIC(MPI_LONG_LONG_INT, long long);
    BASIC(MPI_LONG_LONG, long long);
    BASIC(MPI_UNSIGNED_LONG_LONG, unsigned long long);
    BASIC(MPI_FLOAT, float);
    BASIC(MPI_DOUBLE, double);
    BASIC(MPI_LONG_DOUBLE, long double);
    BASIC(MPI_C_BOOL, _Bool);
    BASIC(MPI_INT8_T, int8_t);
    BASIC(MPI_INT16_T, int16_t);
    BASIC(MPI_INT32_T, int32_t);
    BASIC(MPI_INT64_T, int64_t);
    BASIC(MPI_UINT8_T, uint8_t);
    BASIC(MPI_UINT16_T, uint16_t);
    BASIC(MPI_UINT32_T, uint32_t);
    BASIC(MPI_UINT64_T, uint64_t);
    BASIC(MPI_AINT, MPI_Aint);
    BASIC(MPI_COUNT, MPI_Count);
    BASIC(MPI_OFFSET, MPI_Offset);
    BASIC(MPI_C_COMPLEX, float _Complex);
    BASIC(MPI_C_FLOAT_COMPLEX, float _Complex);
    BASIC(MPI_C_DOUBLE_COMPLEX, double _Complex);
    BASIC(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex);
    BASIC(MPI_PACKED, char);
#undef BASIC
}
END_TEST

/* The pair types: {value; int} with the C struct's padding; two basic elements each. */
START_TEST(test_pairs)
{
    struct {
        short v;
        int i;
    } si[2] = {{-3, 7}, {5, -9}}, si2[2];
    int pos = 0;
    char packed[64];

    expect_type(MPI_FLOAT_INT, 8, 0, 8, 0, 8);
    expect_type(MPI_2INT, 8, 0, 8, 0, 8);
    expect_type(MPI_SHORT_INT, 6, 0, 8, 0, 8);
    expect_type(MPI_DOUBLE_INT, 12, 0, 16, 0, 12);
    expect_type(MPI_LONG_INT, sizeof(long) + 4, 0, 16, 0, sizeof(long) + 4);
    expect_type(MPI_LONG_DOUBLE_INT, sizeof(long double) + 4, 0, 2 * sizeof(long double), 0,
                sizeof(long double) + 4);
    expect_counts(MPI_SHORT_INT, 12, 2, 4);
    expect_counts(MPI_SHORT_INT, 8, MPI_UNDEFINED, 3); /* one pair and a short */
    expect_counts(MPI_SHORT_INT, 9, MPI_UNDEFINED, MPI_UNDEFINED);
    expect_counts(MPI_DOUBLE_INT, 20, MPI_UNDEFINED, 3);

    /* packed: 6 bytes a pair, the padding skipped; unpacked: back at the struct's offsets */
    ck_assert_int_eq(MPI_Pack(si, 2, MPI_SHORT_INT, packed, sizeof(packed), &pos, MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, 12);
    memcpy(&si2[0].v, packed + 6, sizeof(short));
    memcpy(&si2[0].i, packed + 8, sizeof(int));
    ck_assert_int_eq(si2[0].v, 5);
    ck_assert_int_eq(si2[0].i, -9);
    memset(si2, 0, sizeof(si2));
    pos = 0;
    ck_assert_int_eq(MPI_Unpack(packed, 12, &pos, si2, 2, MPI_SHORT_INT, MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(si2[0].v, -3);
    ck_assert_int_eq(si2[0].i, 7);
    ck_assert_int_eq(si2[1].v, 5);
    ck_assert_int_eq(si2[1].i, -9);
}
END_TEST

START_TEST(test_contiguous_vector)
{
    MPI_Datatype c, v, nv, hv;

    ck_assert_int_eq(MPI_Type_contiguous(3, MPI_INT, &c), MPI_SUCCESS);
    c = commit(c);
    expect_type(c, 12, 0, 12, 0, 12);
    expect_ints(c, 2, 1, (const int[]){1, 2, 3, 4, 5, 6}, 6);
    expect_counts(c, 20, MPI_UNDEFINED, 5);

    /* 3 blocks of 2 ints, stride 4 ints: 0 1 . . 4 5 . . 8 9 */
    ck_assert_int_eq(MPI_Type_vector(3, 2, 4, MPI_INT, &v), MPI_SUCCESS);
    v = commit(v);
    expect_type(v, 24, 0, 40, 0, 40);
    expect_ints(v, 2, 0, (const int[]){0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19}, 12);
    expect_counts(v, 48 + 8, MPI_UNDEFINED, 14);

    /* negative stride: ints 0, -2, -4 (packed in that order); lb -16 */
    ck_assert_int_eq(MPI_Type_vector(3, 1, -2, MPI_INT, &nv), MPI_SUCCESS);
    nv = commit(nv);
    expect_type(nv, 12, -16, 20, -16, 20);
    expect_ints(nv, 2, 10, (const int[]){10, 8, 6, 15, 13, 11}, 6);

    /* hvector of the vector: 2 of them 44 bytes apart */
    ck_assert_int_eq(MPI_Type_create_hvector(2, 1, 44, v, &hv), MPI_SUCCESS);
    hv = commit(hv);
    expect_type(hv, 48, 0, 84, 0, 84);
    expect_ints(hv, 1, 0, (const int[]){0, 1, 4, 5, 8, 9, 11, 12, 15, 16, 19, 20}, 12);
    type_free(&c);
    type_free(&v);
    type_free(&nv);
    type_free(&hv);
}
END_TEST

START_TEST(test_indexed)
{
    MPI_Datatype ix, hx, bx;
    const int bl[] = {2, 1, 3}, disp[] = {5, 0, 9};
    const MPI_Aint hdisp[] = {20, 0, 36};

    /* ints 5 6, 0, 9 10 11: extent 12 ints, type-map order kept */
    ck_assert_int_eq(MPI_Type_indexed(3, bl, disp, MPI_INT, &ix), MPI_SUCCESS);
    ix = commit(ix);
    expect_type(ix, 24, 0, 48, 0, 48);
    expect_ints(ix, 2, 0, (const int[]){5, 6, 0, 9, 10, 11, 17, 18, 12, 21, 22, 23}, 12);

    ck_assert_int_eq(MPI_Type_create_hindexed(3, bl, hdisp, MPI_INT, &hx), MPI_SUCCESS);
    hx = commit(hx);
    expect_type(hx, 24, 0, 48, 0, 48);
    expect_ints(hx, 1, 0, (const int[]){5, 6, 0, 9, 10, 11}, 6);

    /* blocks of 2 at 1, 4, 8 (a block at 1: lb 4 bytes, not 0) */
    ck_assert_int_eq(MPI_Type_create_indexed_block(3, 2, (const int[]){4, 1, 8}, MPI_INT, &bx),
                     MPI_SUCCESS);
    bx = commit(bx);
    expect_type(bx, 24, 4, 36, 4, 36);
    expect_ints(bx, 2, 0, (const int[]){4, 5, 1, 2, 8, 9, 13, 14, 10, 11, 17, 18}, 12);
    expect_counts(bx, 28, MPI_UNDEFINED, 7);
    type_free(&ix);
    type_free(&hx);
    type_free(&bx);
}
END_TEST

/* A C struct with padding: {char; double[2]; int}, count 2, data checked byte for byte. */
START_TEST(test_struct)
{
    struct rec {
        char c;
        double d[2];
        int i;
    } in[2] = {{'a', {1.5, -2.5}, 7}, {'b', {3.25, 4.0}, -8}}, out[2];
    const int bl[] = {1, 2, 1};
    const MPI_Aint disp[] = {offsetof(struct rec, c), offsetof(struct rec, d),
                             offsetof(struct rec, i)};
    const MPI_Datatype types[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    char packed[128];
    MPI_Datatype st;
    int pos = 0;

    ck_assert_int_eq(MPI_Type_create_struct(3, bl, disp, types, &st), MPI_SUCCESS);
    st = commit(st);
    /* ub 28 padded to the alignment of double: the extent is sizeof(struct rec) */
    expect_type(st, 21, 0, sizeof(struct rec), 0, offsetof(struct rec, i) + 4);
    ck_assert_int_eq(MPI_Pack(in, 2, st, packed, sizeof(packed), &pos, MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, 42);
    ck_assert_int_eq(packed[21], 'b');
    memset(out, 0, sizeof(out));
    pos = 0;
    ck_assert_int_eq(MPI_Unpack(packed, 42, &pos, out, 2, st, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(out[k].c, in[k].c);
        ck_assert(out[k].d[0] == in[k].d[0] && out[k].d[1] == in[k].d[1]);
        ck_assert_int_eq(out[k].i, in[k].i);
    }
    /* 1 element + char + double = 6 basic elements; ending inside a double: undefined */
    expect_counts(st, 21 + 9, MPI_UNDEFINED, 6);
    expect_counts(st, 21 + 5, MPI_UNDEFINED, MPI_UNDEFINED);
    expect_counts(st, 42, 2, 8);
    type_free(&st);
}
END_TEST

/* struct of vector of indexed (+ a trailing int), and a child freed before its parent. */
START_TEST(test_nested)
{
    MPI_Datatype ix, v, st;
    const int bl[] = {1, 2}, disp[] = {0, 3};

    /* ix: ints 0, 3 4; extent 5 ints */
    ck_assert_int_eq(MPI_Type_indexed(2, bl, disp, MPI_INT, &ix), MPI_SUCCESS);
    expect_type(ix, 12, 0, 20, 0, 20);
    /* v: 2 blocks of 1 ix, stride 2 ix (40 bytes): ints 0 3 4, 10 13 14; extent 15 ints */
    ck_assert_int_eq(MPI_Type_vector(2, 1, 2, ix, &v), MPI_SUCCESS);
    expect_type(v, 24, 0, 60, 0, 60);
    /* st: v at 0, then an int at 16 ints (64 bytes); ub 68 (ints only: align 4) */
    ck_assert_int_eq(MPI_Type_create_struct(2, (const int[]){1, 1}, (const MPI_Aint[]){0, 64},
                                            (const MPI_Datatype[]){v, MPI_INT}, &st),
                     MPI_SUCCESS);
    type_free(&ix); /* the parents keep it */
    type_free(&v);
    st = commit(st);
    expect_type(st, 28, 0, 68, 0, 68);
    expect_ints(st, 2, 0, (const int[]){0, 3, 4, 10, 13, 14, 16, 17, 20, 21, 27, 30, 31, 33}, 14);
    expect_counts(st, 28 + 16, MPI_UNDEFINED, 11);
    type_free(&st);
}
END_TEST

/* Resized types: count > 1 steps by the new extent; negative lower bounds. */
START_TEST(test_resized)
{
    MPI_Datatype r, v, rv, c, rc, d;

    /* one int, lb -4, extent 12: elements 3 ints apart */
    ck_assert_int_eq(MPI_Type_create_resized(MPI_INT, -4, 12, &r), MPI_SUCCESS);
    r = commit(r);
    expect_type(r, 4, -4, 12, 0, 4);
    expect_ints(r, 3, 1, (const int[]){1, 4, 7}, 3);

    /* ints 0 2 (extent 12) resized to lb -4, extent 16: elements 4 ints apart */
    ck_assert_int_eq(MPI_Type_vector(2, 1, 2, MPI_INT, &v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_create_resized(v, -4, 16, &rv), MPI_SUCCESS);
    rv = commit(rv);
    expect_type(rv, 8, -4, 16, 0, 12);
    expect_ints(rv, 3, 2, (const int[]){2, 4, 6, 8, 10, 12}, 6);

    /* extent == size with lb -8: still contiguous, count 3 is 6 ints in a row */
    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &c), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_create_resized(c, -8, 8, &rc), MPI_SUCCESS);
    rc = commit(rc);
    expect_type(rc, 8, -8, 8, 0, 8);
    expect_ints(rc, 3, 4, (const int[]){4, 5, 6, 7, 8, 9}, 6);

    /* dup: the same type map; a dup of an uncommitted type is uncommitted */
    ck_assert_int_eq(MPI_Type_dup(rv, &d), MPI_SUCCESS);
    expect_type(d, 8, -4, 16, 0, 12);
    expect_ints(d, 2, 2, (const int[]){2, 4, 6, 8}, 4);
    type_free(&d);
    ck_assert_int_eq(MPI_Type_dup(v, &d), MPI_SUCCESS);
    {
        int pos = 0, buf[8] = {0}, out[8];

        ck_assert_int_eq(err_class(MPI_Pack(buf, 1, d, out, sizeof(out), &pos, MPI_COMM_WORLD)),
                         MPI_ERR_TYPE);
    }
    type_free(&d);
    type_free(&r);
    type_free(&v);
    type_free(&rv);
    type_free(&c);
    type_free(&rc);
}
END_TEST

/* Zero-size types and empty blocks. */
START_TEST(test_empty)
{
    MPI_Datatype z, ix;

    ck_assert_int_eq(MPI_Type_contiguous(0, MPI_INT, &z), MPI_SUCCESS);
    z = commit(z);
    expect_type(z, 0, 0, 0, 0, 0);
    expect_counts(z, 0, 0, 0);
    expect_ints(z, 5, 0, NULL, 0);
    /* a zero blocklength adds nothing, not even to the bounds */
    ck_assert_int_eq(MPI_Type_indexed(2, (const int[]){0, 2}, (const int[]){1, 3}, MPI_INT, &ix),
                     MPI_SUCCESS);
    ix = commit(ix);
    expect_type(ix, 8, 12, 8, 12, 8);
    expect_ints(ix, 2, 0, (const int[]){3, 4, 5, 6}, 4);
    type_free(&z);
    type_free(&ix);
}
END_TEST

/* Bad input: the error class the standard names, returned (MPI_ERRORS_RETURN). */
START_TEST(test_errors)
{
    MPI_Datatype t, nul = MPI_DATATYPE_NULL, pre = MPI_INT, v;
    int buf[4] = {0}, pos = 0, size;

    ck_assert_int_eq(err_class(MPI_Type_contiguous(-1, MPI_INT, &t)), MPI_ERR_COUNT);
    ck_assert_int_eq(err_class(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t)), MPI_ERR_TYPE);
    ck_assert_int_eq(err_class(MPI_Type_contiguous(1, (MPI_Datatype)0x03abcdef, &t)), MPI_ERR_TYPE);
    ck_assert_int_eq(err_class(MPI_Type_contiguous(1, MPI_COMM_WORLD, &t)), MPI_ERR_TYPE);
    ck_assert_int_eq(err_class(MPI_Type_contiguous(1, MPI_INT, NULL)), MPI_ERR_ARG);
    ck_assert_int_eq(err_class(MPI_Type_vector(2, -1, 1, MPI_INT, &t)), MPI_ERR_ARG);
    ck_assert_int_eq(err_class(MPI_Type_vector(-2, 1, 1, MPI_INT, &t)), MPI_ERR_COUNT);
    ck_assert_int_eq(
        err_class(MPI_Type_indexed(2, (const int[]){1, -1}, (const int[]){0, 1}, MPI_INT, &t)),
        MPI_ERR_ARG);
    ck_assert_int_eq(err_class(MPI_Type_create_indexed_block(1, -1, (const int[]){0}, MPI_INT, &t)),
                     MPI_ERR_ARG);
    ck_assert_int_eq(
        err_class(MPI_Type_create_struct(2, (const int[]){1, 1}, (const MPI_Aint[]){0, 4},
                                         (const MPI_Datatype[]){MPI_INT, MPI_DATATYPE_NULL}, &t)),
        MPI_ERR_TYPE);
    ck_assert_int_eq(
        err_class(MPI_Type_create_hindexed(1, NULL, (const MPI_Aint[]){0}, MPI_INT, &t)),
        MPI_ERR_ARG);
    ck_assert_int_eq(err_class(MPI_Type_free(&nul)), MPI_ERR_TYPE);
    ck_assert_int_eq(err_class(MPI_Type_free(&pre)), MPI_ERR_TYPE);
    ck_assert_int_eq(pre, MPI_INT);
    ck_assert_int_eq(err_class(MPI_Type_size(MPI_DATATYPE_NULL, &size)), MPI_ERR_TYPE);

    /* a freed handle is invalid; so is an uncommitted type in Pack */
    ck_assert_int_eq(MPI_Type_vector(2, 1, 2, MPI_INT, &v), MPI_SUCCESS);
    ck_assert_int_eq(err_class(MPI_Pack(buf, 1, v, buf, sizeof(buf), &pos, MPI_COMM_WORLD)),
                     MPI_ERR_TYPE);
    t = v;
    type_free(&v);
    ck_assert_int_eq(err_class(MPI_Type_size(t, &size)), MPI_ERR_TYPE);
    ck_assert_int_eq(err_class(MPI_Type_commit(&t)), MPI_ERR_TYPE);

    /* Pack/Unpack: counts, positions, room */
    pos = 0;
    ck_assert_int_eq(err_class(MPI_Pack(buf, -1, MPI_INT, buf, 16, &pos, MPI_COMM_WORLD)),
                     MPI_ERR_COUNT);
    ck_assert_int_eq(err_class(MPI_Pack(buf, 5, MPI_INT, buf + 4, 16, &pos, MPI_COMM_WORLD)),
                     MPI_ERR_TRUNCATE);
    pos = 17;
    ck_assert_int_eq(err_class(MPI_Pack(buf, 1, MPI_INT, buf, 16, &pos, MPI_COMM_WORLD)),
                     MPI_ERR_ARG);
    pos = 8;
    ck_assert_int_eq(err_class(MPI_Unpack(buf, 16, &pos, buf, 3, MPI_INT, MPI_COMM_WORLD)),
                     MPI_ERR_TRUNCATE);
    ck_assert_int_eq(pos, 8);
    ck_assert_int_eq(err_class(MPI_Pack(buf, 1, MPI_INT, buf, 16, &pos, MPI_COMM_NULL)),
                     MPI_ERR_COMM);
    ck_assert_int_eq(err_class(MPI_Pack_size(-1, MPI_INT, MPI_COMM_WORLD, &size)), MPI_ERR_COUNT);
    ck_assert_int_eq(err_class(MPI_Pack_size(1, MPI_DATATYPE_NULL, MPI_COMM_WORLD, &size)),
                     MPI_ERR_TYPE);
}
END_TEST

/* The size and extent queries alike: a NULL output is MPI_ERR_ARG, a bad type MPI_ERR_TYPE,
 * and a failed query leaves its outputs as they were. */
START_TEST(test_query_errors)
{
    MPI_Aint l = 7, e = 7;
    MPI_Count lx = 7, ex = 7, sx = 7;
    int size = 7;

    ck_assert_int_eq(err_class(MPI_Type_size(MPI_INT, NULL)), MPI_ERR_ARG);
    ck_assert_int_eq(err_class(MPI_Type_size_x(MPI_INT, NULL)), MPI_ERR_ARG);
    ck_assert_int_eq(err_class(MPI_Type_get_extent(MPI_INT, NULL, &e)), MPI_ERR_ARG);
    ck_assert_int_eq(err_class(MPI_Type_get_extent(MPI_INT, &l, NULL)), MPI_ERR_ARG);
    ck_assert_int_eq(err_class(MPI_Type_get_extent_x(MPI_INT, NULL, &ex)), MPI_ERR_ARG);
    ck_assert_int_eq(err_class(MPI_Type_get_true_extent(MPI_INT, &l, NULL)), MPI_ERR_ARG);
    ck_assert_int_eq(err_class(MPI_Type_get_true_extent_x(MPI_INT, &lx, NULL)), MPI_ERR_ARG);
    ck_assert_int_eq(err_class(MPI_Type_size(MPI_DATATYPE_NULL, &size)), MPI_ERR_TYPE);
    ck_assert_int_eq(err_class(MPI_Type_size_x(MPI_DATATYPE_NULL, &sx)), MPI_ERR_TYPE);
    ck_assert_int_eq(err_class(MPI_Type_get_extent(MPI_DATATYPE_NULL, &l, &e)), MPI_ERR_TYPE);
    ck_assert_int_eq(err_class(MPI_Type_get_extent_x(MPI_DATATYPE_NULL, &lx, &ex)), MPI_ERR_TYPE);
    ck_assert_int_eq(err_class(MPI_Type_get_true_extent(MPI_DATATYPE_NULL, &l, &e)), MPI_ERR_TYPE);
    ck_assert_int_eq(err_class(MPI_Type_get_true_extent_x(MPI_DATATYPE_NULL, &lx, &ex)),
                     MPI_ERR_TYPE);
    ck_assert(l == 7 && e == 7 && lx == 7 && ex == 7 && sx == 7 && size == 7);
}
END_TEST

static Suite *mpi_type_suite(void)
{
    Suite *s = suite_create("mpi_type");
    TCase *tc = tcase_create("types");

    tcase_add_test(tc, test_predefined);
    tcase_add_test(tc, test_pairs);
    tcase_add_test(tc, test_contiguous_vector);
    tcase_add_test(tc, test_indexed);
    tcase_add_test(tc, test_struct);
    tcase_add_test(tc, test_nested);
    tcase_add_test(tc, test_resized);
    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_query_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    SRunner *sr = srunner_create(mpi_type_suite());
    int failed;

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS ||
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS) {
        return EXIT_FAILURE;
    }
    srunner_set_fork_status(sr, CK_NOFORK); /* one MPI_Init for the whole suite */
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Finalize();
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
