/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Fortran named datatypes in C (MPI-3.1 3.2.2, 5.9.2, 5.9.4, 13.5.2), on any number of
 * ranks, with the layout of gfortran's default kinds: each type's size, extent, name and
 * envelope (MPI_COMBINER_NAMED), Type_free refused, the kinds rcmsg has no C type for equal to
 * MPI_DATATYPE_NULL; Allreduce checked by value at every operation class MPI-3.1 5.9.2 gives
 * them (Fortran integer: MAX / MIN / SUM / PROD / BAND / BOR / BXOR, not LAND nor LXOR, its
 * error string naming it; the multi-language MPI_AINT: MAX, and LOR / LAND as in MPICH (an
 * extension); floating point; complex:
 * SUM / PROD, not MAX; logical: LAND / LOR / LXOR on .TRUE. = 1, not MAX nor SUM; MPI_CHARACTER:
 * none; MINLOC / MAXLOC on MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION), Reduce_local and a
 * contiguous type of MPI_DOUBLE_COMPLEX; an Accumulate of each class into rank 0's window (MAX on
 * MPI_COMPLEX refused there too); Pack_external_size at table 13.2's sizes and the big-endian
 * bytes of INTEGER, REAL, DOUBLE COMPLEX and LOGICAL, unpacked back; Pack / Unpack; and every
 * type sent around the ring (Sendrecv, Get_count).
 */
#include "mpi_test.h"

#include <complex.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    MPI_Datatype dt;
    const char *name;
    int size;     /* = its extent (no padding in any of them) */
    int ext_size; /* external32 (MPI-3.1 table 13.2) */
} ftype_t;

static const ftype_t ftypes[] = {
    {MPI_CHARACTER, "MPI_CHARACTER", 1, 1},
    {MPI_INTEGER, "MPI_INTEGER", 4, 4},
    {MPI_REAL, "MPI_REAL", 4, 4},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 8},
    {MPI_COMPLEX, "MPI_COMPLEX", 8, 8},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, 16},
    {MPI_LOGICAL, "MPI_LOGICAL", 4, 4},
    {MPI_INTEGER1, "MPI_INTEGER1", 1, 1},
    {MPI_INTEGER2, "MPI_INTEGER2", 2, 2},
    {MPI_INTEGER4, "MPI_INTEGER4", 4, 4},
    {MPI_INTEGER8, "MPI_INTEGER8", 8, 8},
    {MPI_REAL4, "MPI_REAL4", 4, 4},
    {MPI_REAL8, "MPI_REAL8", 8, 8},
    {MPI_COMPLEX8, "MPI_COMPLEX8", 8, 8},
    {MPI_COMPLEX16, "MPI_COMPLEX16", 16, 16},
    {MPI_LOGICAL1, "MPI_LOGICAL1", 1, 1},
    {MPI_LOGICAL2, "MPI_LOGICAL2", 2, 2},
    {MPI_LOGICAL4, "MPI_LOGICAL4", 4, 4},
    {MPI_LOGICAL8, "MPI_LOGICAL8", 8, 8},
    {MPI_2INTEGER, "MPI_2INTEGER", 8, 8},
    {MPI_2REAL, "MPI_2REAL", 8, 8},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16, 16},
};
#define NFTYPES (int)(sizeof(ftypes) / sizeof(ftypes[0]))

static const char ext32[] = "external32";

static void test_properties(void)
{
    for (int k = 0; k < NFTYPES; k++) {
        const ftype_t *f = &ftypes[k];
        MPI_Datatype dt = f->dt;
        MPI_Aint lb = -1, extent = -1;
        int size = -1, len = -1, ni = -1, na = -1, nd = -1, comb = -1;
        char name[MPI_MAX_OBJECT_NAME] = "";

        OK(MPI_Type_size(dt, &size));
        OK(MPI_Type_get_extent(dt, &lb, &extent));
        CHECK(size == f->size && lb == 0 && extent == f->size, "%s: size %d lb %ld extent %ld",
              f->name, size, (long)lb, (long)extent);
        OK(MPI_Type_get_name(dt, name, &len));
        CHECK(strcmp(name, f->name) == 0 && len == (int)strlen(f->name), "name '%s' (%d) for %s",
              name, len, f->name);
        OK(MPI_Type_get_envelope(dt, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0,
              "%s: envelope %d %d %d %d", f->name, ni, na, nd, comb);
        OK(MPI_Type_commit(&dt));
        FAILS(MPI_Type_free(&dt), MPI_ERR_TYPE);
        for (int j = 0; j < k; j++) {
            CHECK(ftypes[j].dt != dt, "%s and %s share a handle", ftypes[j].name, f->name);
        }
        CHECK(dt != MPI_INT && dt != MPI_FLOAT && dt != MPI_DOUBLE && dt != MPI_2INT,
              "%s is a C type's handle", f->name);
    }
    CHECK(MPI_INTEGER16 == MPI_DATATYPE_NULL && MPI_REAL2 == MPI_DATATYPE_NULL &&
              MPI_REAL16 == MPI_DATATYPE_NULL && MPI_COMPLEX4 == MPI_DATATYPE_NULL &&
              MPI_COMPLEX32 == MPI_DATATYPE_NULL,
          "%s", "a kind without a C type here is not MPI_DATATYPE_NULL");
}

/* ---- reductions: sum of r over the ranks, and similar closed forms ---- */
static void test_reduce_integer(void)
{
    int32_t v[3] = {me + 1, me == 0 ? 3 : 1, 6 | (1 << me)}, r[3];
    int64_t v8 = (int64_t)me << 40, r8;
    int16_t v2 = (int16_t)(me + 1), r2;
    int8_t v1 = (int8_t)(me + 1), r1;
    int32_t bits = 0, band = -1, bxor = 0, prod = 1;
    MPI_Aint a = me, ar;
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;

    for (int i = 0; i < np; i++) {
        bits |= 6 | (1 << i);
        band &= 6 | (1 << i);
        bxor ^= 6 | (1 << i);
        prod *= i == 0 ? 3 : 1;
    }
    OK(MPI_Allreduce(v, r, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
    CHECK(r[0] == np * (np + 1) / 2, "INTEGER SUM %d", r[0]);
    OK(MPI_Allreduce(v, r, 3, MPI_INTEGER, MPI_PROD, MPI_COMM_WORLD));
    CHECK(r[1] == prod, "INTEGER PROD %d", r[1]);
    OK(MPI_Allreduce(v, r, 3, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD));
    CHECK(r[0] == np && r[1] == 3, "INTEGER MAX %d %d", r[0], r[1]);
    OK(MPI_Allreduce(v, r, 3, MPI_INTEGER4, MPI_BOR, MPI_COMM_WORLD));
    CHECK(r[2] == bits, "INTEGER4 BOR %#x, expected %#x", r[2], bits);
    OK(MPI_Allreduce(v, r, 3, MPI_INTEGER, MPI_BAND, MPI_COMM_WORLD));
    CHECK(r[2] == band, "INTEGER BAND %#x, expected %#x", r[2], band);
    OK(MPI_Allreduce(v, r, 3, MPI_INTEGER, MPI_BXOR, MPI_COMM_WORLD));
    CHECK(r[2] == bxor, "INTEGER BXOR %#x, expected %#x", r[2], bxor);
    FAILS(MPI_Allreduce(v, r, 3, MPI_INTEGER, MPI_LAND, MPI_COMM_WORLD), MPI_ERR_OP);
    FAILS(MPI_Allreduce(v, r, 3, MPI_INTEGER8, MPI_LXOR, MPI_COMM_WORLD), MPI_ERR_OP);
    /* a multi-language type: a C integer's operations, the logical ones too (an extension, as
     * in MPICH); a Fortran integer's error string names it */
    OK(MPI_Allreduce(&a, &ar, 1, MPI_AINT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(ar == np - 1, "AINT MAX %ld", (long)ar);
    OK(MPI_Allreduce(&a, &ar, 1, MPI_AINT, MPI_LOR, MPI_COMM_WORLD));
    CHECK(ar == (np > 1), "AINT LOR %ld", (long)ar);
    OK(MPI_Allreduce(&a, &ar, 1, MPI_AINT, MPI_LAND, MPI_COMM_WORLD));
    CHECK(ar == 0, "AINT LAND %ld", (long)ar);
    MPI_Error_string(MPI_Reduce_local(v, r, 1, MPI_INTEGER, MPI_LAND), text, &len);
    CHECK(strstr(text, "MPI_LAND is not defined on MPI_INTEGER") != NULL, "LAND on INTEGER: '%s'",
          text);
    OK(MPI_Allreduce(&v8, &r8, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD));
    CHECK(r8 == ((int64_t)np * (np - 1) / 2) << 40, "INTEGER8 SUM %lld", (long long)r8);
    OK(MPI_Allreduce(&v2, &r2, 1, MPI_INTEGER2, MPI_MIN, MPI_COMM_WORLD));
    CHECK(r2 == 1, "INTEGER2 MIN %d", r2);
    OK(MPI_Allreduce(&v1, &r1, 1, MPI_INTEGER1, MPI_SUM, MPI_COMM_WORLD));
    CHECK(r1 == np * (np + 1) / 2, "INTEGER1 SUM %d", r1);
}

static void test_reduce_real(void)
{
    float f = 0.5f * (float)me, fr;
    double d[2] = {0.25 * me, -(double)me}, dr[2];
    double s = (double)np * (np - 1) / 2;

    OK(MPI_Allreduce(&f, &fr, 1, MPI_REAL, MPI_SUM, MPI_COMM_WORLD));
    CHECK(fr == 0.5f * (float)s, "REAL SUM %g", fr);
    OK(MPI_Allreduce(&f, &fr, 1, MPI_REAL4, MPI_MAX, MPI_COMM_WORLD));
    CHECK(fr == 0.5f * (float)(np - 1), "REAL4 MAX %g", fr);
    OK(MPI_Allreduce(d, dr, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD));
    CHECK(dr[0] == 0.25 * s && dr[1] == -s, "DOUBLE PRECISION SUM %g %g", dr[0], dr[1]);
    OK(MPI_Allreduce(d, dr, 2, MPI_REAL8, MPI_MIN, MPI_COMM_WORLD));
    CHECK(dr[0] == 0 && dr[1] == -(double)(np - 1), "REAL8 MIN %g %g", dr[0], dr[1]);
    FAILS(MPI_Allreduce(d, dr, 2, MPI_DOUBLE_PRECISION, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
}

static void test_reduce_complex(void)
{
    float _Complex c = (float)me + 1.0f * I, cr;
    double _Complex z[2] = {1.0 + (double)me * I, 2.0}, zr[2], pz = 1, pc = 1;
    MPI_Datatype cont;

    for (int i = 0; i < np; i++) {
        pz *= 1.0 + (double)i * I;
        pc *= (double)i + 1.0 * I; /* small integers: exact in float, in any order */
    }
    OK(MPI_Allreduce(&c, &cr, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    CHECK(crealf(cr) == (float)(np * (np - 1) / 2) && cimagf(cr) == (float)np, "COMPLEX SUM %g%+gi",
          crealf(cr), cimagf(cr));
    OK(MPI_Allreduce(z, zr, 2, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
    CHECK(zr[0] == pz && creal(zr[1]) == (double)(1 << np) && cimag(zr[1]) == 0,
          "DOUBLE COMPLEX PROD %g%+gi %g%+gi", creal(zr[0]), cimag(zr[0]), creal(zr[1]),
          cimag(zr[1]));
    OK(MPI_Allreduce(&c, &cr, 1, MPI_COMPLEX8, MPI_PROD, MPI_COMM_WORLD));
    CHECK(crealf(cr) == (float)creal(pc) && cimagf(cr) == (float)cimag(pc),
          "COMPLEX8 PROD %g%+gi, expected %g%+gi", crealf(cr), cimagf(cr), creal(pc), cimag(pc));
    FAILS(MPI_Allreduce(&c, &cr, 1, MPI_COMPLEX, MPI_MAX, MPI_COMM_WORLD), MPI_ERR_OP);
    FAILS(MPI_Allreduce(z, zr, 2, MPI_COMPLEX16, MPI_MIN, MPI_COMM_WORLD), MPI_ERR_OP);
    OK(MPI_Type_contiguous(2, MPI_DOUBLE_COMPLEX, &cont));
    OK(MPI_Type_commit(&cont));
    OK(MPI_Allreduce(z, zr, 1, cont, MPI_SUM, MPI_COMM_WORLD));
    CHECK(creal(zr[0]) == np && cimag(zr[0]) == (double)(np * (np - 1) / 2) &&
              creal(zr[1]) == 2.0 * np,
          "contiguous DOUBLE COMPLEX SUM %g%+gi %g", creal(zr[0]), cimag(zr[0]), creal(zr[1]));
    OK(MPI_Type_free(&cont));
}

/* .TRUE. is 1, .FALSE. 0: rank 0 alone true in [0], every rank in [1], none in [2] */
static void test_reduce_logical(void)
{
    int32_t l[3] = {me == 0, 1, 0}, r[3] = {-1, -1, -1};
    int8_t l1[2] = {me == 0, 0}, r1[2];
    int64_t l8 = me == np - 1, r8;
    int16_t l2 = 1, r2;
    int32_t io[3] = {1, 0, 1};

    OK(MPI_Allreduce(l, r, 3, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    CHECK(r[0] == (np == 1) && r[1] == 1 && r[2] == 0, "LOGICAL LAND %d %d %d", r[0], r[1], r[2]);
    OK(MPI_Allreduce(l, r, 3, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(r[0] == 1 && r[1] == 1 && r[2] == 0, "LOGICAL LOR %d %d %d", r[0], r[1], r[2]);
    OK(MPI_Allreduce(l, r, 3, MPI_LOGICAL4, MPI_LXOR, MPI_COMM_WORLD));
    CHECK(r[0] == 1 && r[1] == (np % 2) && r[2] == 0, "LOGICAL4 LXOR %d %d %d", r[0], r[1], r[2]);
    OK(MPI_Allreduce(l1, r1, 2, MPI_LOGICAL1, MPI_LOR, MPI_COMM_WORLD));
    CHECK(r1[0] == 1 && r1[1] == 0, "LOGICAL1 LOR %d %d", r1[0], r1[1]);
    OK(MPI_Allreduce(&l2, &r2, 1, MPI_LOGICAL2, MPI_LAND, MPI_COMM_WORLD));
    CHECK(r2 == 1, "LOGICAL2 LAND %d", r2);
    OK(MPI_Allreduce(&l8, &r8, 1, MPI_LOGICAL8, MPI_LOR, MPI_COMM_WORLD));
    CHECK(r8 == 1, "LOGICAL8 LOR %lld", (long long)r8);
    OK(MPI_Reduce_local(l, io, 3, MPI_LOGICAL, MPI_LAND));
    CHECK(io[0] == (me == 0) && io[1] == 0 && io[2] == 0, "Reduce_local LAND %d %d %d", io[0],
          io[1], io[2]);
    FAILS(MPI_Allreduce(l, r, 3, MPI_LOGICAL, MPI_MAX, MPI_COMM_WORLD), MPI_ERR_OP);
    FAILS(MPI_Allreduce(l, r, 3, MPI_LOGICAL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    FAILS(MPI_Allreduce(l, r, 3, MPI_CHARACTER, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    FAILS(MPI_Allreduce(l, r, 3, MPI_CHARACTER, MPI_BOR, MPI_COMM_WORLD), MPI_ERR_OP);
}

/* the value peaks at the middle rank; ties at the ends, broken by the smaller index */
static void test_reduce_pairs(void)
{
    int32_t pi[2] = {me < np / 2 ? me : np - 1 - me, 10 + me}, ri[2];
    float pf[2] = {me == np - 1 ? -1.0f : 0.0f, (float)me}, rf[2];
    double pd[2][2] = {{(double)me, (double)me}, {5.0, (double)(np - me)}}, rd[2][2];

    OK(MPI_Allreduce(pi, ri, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(ri[0] == (np - 1) / 2 && ri[1] == 10 + (np - 1) / 2, "2INTEGER MAXLOC (%d, %d)", ri[0],
          ri[1]);
    OK(MPI_Allreduce(pi, ri, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(ri[0] == 0 && ri[1] == 10, "2INTEGER MINLOC (%d, %d)", ri[0], ri[1]);
    OK(MPI_Allreduce(pf, rf, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(rf[0] == -1.0f && rf[1] == (float)(np - 1), "2REAL MINLOC (%g, %g)", rf[0], rf[1]);
    OK(MPI_Allreduce(pd, rd, 2, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(rd[0][0] == np - 1 && rd[0][1] == np - 1 && rd[1][0] == 5.0 && rd[1][1] == 1.0,
          "2DOUBLE_PRECISION MAXLOC (%g, %g) (%g, %g)", rd[0][0], rd[0][1], rd[1][0], rd[1][1]);
    FAILS(MPI_Allreduce(pi, ri, 1, MPI_2INTEGER, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    FAILS(MPI_Allreduce(pi, ri, 2, MPI_INTEGER, MPI_MAXLOC, MPI_COMM_WORLD), MPI_ERR_OP);
}

/* every rank accumulates into rank 0's window: INTEGER SUM, DOUBLE COMPLEX SUM, LOGICAL LOR,
 * 2REAL MAXLOC; MAX on COMPLEX refused */
struct acc_mem {
    int32_t i;
    int32_t l;
    float p[2];
    double _Complex z;
};

static void test_accumulate(void)
{
    struct acc_mem mem = {0, 0, {-1.0f, -1.0f}, 0}, *w = &mem;
    MPI_Win win;
    int32_t one = 1, t = me == np - 1;
    float pair[2] = {(float)(me % 2), (float)me};
    double _Complex z = 1.0 - 1.0 * I;
    float _Complex c = 1;

    OK(MPI_Win_create(&mem, sizeof(mem), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    OK(MPI_Win_fence(0, win));
    OK(MPI_Accumulate(&one, 1, MPI_INTEGER, 0, offsetof(struct acc_mem, i), 1, MPI_INTEGER, MPI_SUM,
                      win));
    OK(MPI_Accumulate(&t, 1, MPI_LOGICAL, 0, offsetof(struct acc_mem, l), 1, MPI_LOGICAL, MPI_LOR,
                      win));
    OK(MPI_Accumulate(pair, 1, MPI_2REAL, 0, offsetof(struct acc_mem, p), 1, MPI_2REAL, MPI_MAXLOC,
                      win));
    OK(MPI_Accumulate(&z, 1, MPI_DOUBLE_COMPLEX, 0, offsetof(struct acc_mem, z), 1,
                      MPI_DOUBLE_COMPLEX, MPI_SUM, win));
    FAILS(MPI_Accumulate(&c, 1, MPI_COMPLEX, 0, offsetof(struct acc_mem, z), 1, MPI_COMPLEX,
                         MPI_MAX, win),
          MPI_ERR_OP);
    OK(MPI_Win_fence(0, win));
    if (me == 0) {
        CHECK(w->i == np && w->l == 1 && w->p[0] == (np > 1 ? 1.0f : 0.0f) &&
                  w->p[1] == (np > 1 ? 1.0f : 0.0f) && creal(w->z) == np && cimag(w->z) == -np,
              "Accumulate: %d %d (%g, %g) %g%+gi", w->i, w->l, w->p[0], w->p[1], creal(w->z),
              cimag(w->z));
    }
    OK(MPI_Win_free(&win));
}

static void test_external32(void)
{
    static const unsigned char want[] = {0xff, 0xff, 0xff, 0xfe,             /* INTEGER -2 */
                                         0x3f, 0x80, 0x00, 0x00,             /* REAL 1.0 */
                                         0x3f, 0xf0, 0,    0,    0, 0, 0, 0, /* DOUBLE COMPLEX */
                                         0xc0, 0x00, 0,    0,    0, 0, 0, 0, /* (1, -2) */
                                         0x00, 0x00, 0x00, 0x01};            /* LOGICAL .TRUE. */
    unsigned char buf[64];
    int32_t i = -2, l = 1, i2 = 0, l2 = 0;
    float f = 1.0f, f2 = 0;
    double _Complex z = 1.0 - 2.0 * I, z2 = 0;
    MPI_Aint pos = 0, size = -1;

    for (int k = 0; k < NFTYPES; k++) {
        OK(MPI_Pack_external_size(ext32, 3, ftypes[k].dt, &size));
        CHECK(size == 3 * ftypes[k].ext_size, "external32 size of 3 %s: %ld", ftypes[k].name,
              (long)size);
    }
    OK(MPI_Pack_external(ext32, &i, 1, MPI_INTEGER, buf, sizeof(buf), &pos));
    OK(MPI_Pack_external(ext32, &f, 1, MPI_REAL, buf, sizeof(buf), &pos));
    OK(MPI_Pack_external(ext32, &z, 1, MPI_DOUBLE_COMPLEX, buf, sizeof(buf), &pos));
    OK(MPI_Pack_external(ext32, &l, 1, MPI_LOGICAL, buf, sizeof(buf), &pos));
    CHECK(pos == (MPI_Aint)sizeof(want) && memcmp(buf, want, sizeof(want)) == 0,
          "external32 bytes (%ld of them)", (long)pos);
    pos = 0;
    OK(MPI_Unpack_external(ext32, buf, sizeof(want), &pos, &i2, 1, MPI_INTEGER));
    OK(MPI_Unpack_external(ext32, buf, sizeof(want), &pos, &f2, 1, MPI_REAL));
    OK(MPI_Unpack_external(ext32, buf, sizeof(want), &pos, &z2, 1, MPI_DOUBLE_COMPLEX));
    OK(MPI_Unpack_external(ext32, buf, sizeof(want), &pos, &l2, 1, MPI_LOGICAL));
    CHECK(i2 == i && f2 == f && z2 == z && l2 == l, "unpacked %d %g %g%+gi %d", i2, f2, creal(z2),
          cimag(z2), l2);
}

/* Pack / Unpack, and each type around the ring: 3 elements of bytes that name the sender */
static void test_transfer(void)
{
    unsigned char out[48], in[64], packed[64];
    int prev = (me + np - 1) % np, next = (me + 1) % np;

    for (int k = 0; k < NFTYPES; k++) {
        const ftype_t *f = &ftypes[k];
        size_t n = 3 * (size_t)f->size;
        int count = -1, psize = -1, pos = 0;
        MPI_Status st;

        for (size_t b = 0; b < n; b++) {
            out[b] = (unsigned char)(me * 50 + k * 7 + (int)b);
        }
        memset(in, 0xee, sizeof(in));
        OK(MPI_Pack_size(3, f->dt, MPI_COMM_WORLD, &psize));
        OK(MPI_Pack(out, 3, f->dt, packed, sizeof(packed), &pos, MPI_COMM_WORLD));
        CHECK(psize >= (int)n && pos == (int)n, "%s: Pack_size %d, packed %d", f->name, psize, pos);
        pos = 0;
        OK(MPI_Unpack(packed, sizeof(packed), &pos, in, 3, f->dt, MPI_COMM_WORLD));
        CHECK(memcmp(in, out, n) == 0, "%s: Unpack", f->name);
        memset(in, 0xee, sizeof(in));
        OK(MPI_Sendrecv(out, 3, f->dt, next, k, in, 3, f->dt, prev, k, MPI_COMM_WORLD, &st));
        OK(MPI_Get_count(&st, f->dt, &count));
        CHECK(count == 3, "%s: Get_count %d", f->name, count);
        for (size_t b = 0; b < n; b++) {
            CHECK(in[b] == (unsigned char)(prev * 50 + k * 7 + (int)b), "%s: byte %zu from %d",
                  f->name, b, prev);
        }
        CHECK(in[n] == 0xee, "%s: a byte past the 3 elements written", f->name);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    phases_expected = 6;
    test_properties();
    phase("Fortran types: size, extent, name, envelope");
    test_reduce_integer();
    test_reduce_real();
    phase("Fortran integer and floating point reductions");
    test_reduce_complex();
    test_reduce_logical();
    phase("complex and logical reductions, refused operations");
    test_reduce_pairs();
    phase("MINLOC / MAXLOC on the Fortran pairs");
    test_accumulate();
    test_external32();
    phase("Accumulate, external32");
    test_transfer();
    phase("Pack / Unpack and point-to-point of each");
    MPI_Finalize();
    return summary();
}
