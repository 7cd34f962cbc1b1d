/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * external32 (MPI-3.1 13.5.2) and the error classes of I/O and dynamic processes, on any
 * number of ranks: Pack_external_size at the standard's sizes (MPI_LONG 4, MPI_WCHAR 2, long
 * double 16, a pair type, a struct), the exact big-endian bytes Pack_external writes for
 * integers, floating point and long double, Unpack_external back through a vector type (the
 * gaps untouched), a packed buffer sent to the next rank and unpacked there, a nonzero byte
 * unpacked as a C _Bool of 1, and the errors:
 * another datarep, a negative count, a buffer too small, an uncommitted type, a long past 32
 * bits, an unsigned long past 32 bits, a wchar_t past 16 bits (MPI_ERR_CONVERSION, not a byte
 * of the buffer written even when earlier elements converted); every class of I/O and dynamic
 * processes is a class Error_class and Error_string know.
 */
#include "mpi_test.h"

#include <stdint.h>
#include <wchar.h>

static const char ext32[] = "external32";

static MPI_Aint ext_size(MPI_Datatype dt, int count)
{
    MPI_Aint size = -1;

    OK(MPI_Pack_external_size(ext32, count, dt, &size));
    return size;
}

static void test_sizes(void)
{
    MPI_Datatype st, types[3] = {MPI_CHAR, MPI_LONG, MPI_DOUBLE};
    int lens[3] = {3, 2, 1};
    MPI_Aint disps[3] = {0, 8, 24};

    CHECK(ext_size(MPI_INT, 5) == 20, "5 ints: %ld", (long)ext_size(MPI_INT, 5));
    CHECK(ext_size(MPI_LONG, 3) == 12, "3 longs: %ld", (long)ext_size(MPI_LONG, 3));
    CHECK(ext_size(MPI_UNSIGNED_LONG, 1) == 4, "unsigned long");
    CHECK(ext_size(MPI_WCHAR, 2) == 4, "2 wchar: %ld", (long)ext_size(MPI_WCHAR, 2));
    CHECK(ext_size(MPI_LONG_DOUBLE, 1) == 16, "long double");
    CHECK(ext_size(MPI_C_LONG_DOUBLE_COMPLEX, 1) == 32, "long double complex");
    CHECK(ext_size(MPI_AINT, 1) == 8 && ext_size(MPI_COUNT, 1) == 8, "aint, count");
    CHECK(ext_size(MPI_DOUBLE_INT, 2) == 24, "2 double_int: %ld",
          (long)ext_size(MPI_DOUBLE_INT, 2));
    CHECK(ext_size(MPI_INT, 0) == 0, "count 0");
    OK(MPI_Type_create_struct(3, lens, disps, types, &st)); /* not committed: sizes only */
    CHECK(ext_size(st, 2) == 2 * (3 + 8 + 8), "struct: %ld", (long)ext_size(st, 2));
    OK(MPI_Type_free(&st));
}

static int bytes_are(const unsigned char *got, const unsigned char *want, int n)
{
    return memcmp(got, want, (size_t)n) == 0;
}

static void test_bytes(void)
{
    unsigned char buf[64];
    MPI_Aint pos = 0;
    int i = 0x01020304;
    long l = -2;
    double d = 1.0;
    long double ld = 1.0L;
    short s = 0x0a0b;
    static const unsigned char want_i[] = {1, 2, 3, 4}, want_l[] = {0xff, 0xff, 0xff, 0xfe},
                               want_d[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0},
                               want_ld[] = {0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                               want_s[] = {0x0a, 0x0b};

    OK(MPI_Pack_external(ext32, &i, 1, MPI_INT, buf, sizeof(buf), &pos));
    OK(MPI_Pack_external(ext32, &l, 1, MPI_LONG, buf, sizeof(buf), &pos));
    OK(MPI_Pack_external(ext32, &d, 1, MPI_DOUBLE, buf, sizeof(buf), &pos));
    OK(MPI_Pack_external(ext32, &ld, 1, MPI_LONG_DOUBLE, buf, sizeof(buf), &pos));
    OK(MPI_Pack_external(ext32, &s, 1, MPI_SHORT, buf, sizeof(buf), &pos));
    CHECK(pos == 4 + 4 + 8 + 16 + 2, "position %ld", (long)pos);
    CHECK(bytes_are(buf, want_i, 4), "int 0x01020304 as %02x %02x %02x %02x", buf[0], buf[1],
          buf[2], buf[3]);
    CHECK(bytes_are(buf + 4, want_l, 4), "long -2");
    CHECK(bytes_are(buf + 8, want_d, 8), "double 1.0");
    CHECK(bytes_are(buf + 16, want_ld, 16), "long double 1.0 as binary128");
    CHECK(bytes_are(buf + 32, want_s, 2), "short");
    /* back, each to its own type */
    i = 0, l = 0, d = 0, ld = 0, s = 0, pos = 0;
    OK(MPI_Unpack_external(ext32, buf, 34, &pos, &i, 1, MPI_INT));
    OK(MPI_Unpack_external(ext32, buf, 34, &pos, &l, 1, MPI_LONG));
    OK(MPI_Unpack_external(ext32, buf, 34, &pos, &d, 1, MPI_DOUBLE));
    OK(MPI_Unpack_external(ext32, buf, 34, &pos, &ld, 1, MPI_LONG_DOUBLE));
    OK(MPI_Unpack_external(ext32, buf, 34, &pos, &s, 1, MPI_SHORT));
    CHECK(pos == 34 && i == 0x01020304 && l == -2 && d == 1.0 && ld == 1.0L && s == 0x0a0b,
          "unpacked %#x %ld %g %Lg %#x at %ld", i, l, d, ld, s, (long)pos);
    ld = -3.0e-300L / 7; /* a long double with a long mantissa: exact through binary128 */
    long double back = 0;
    pos = 0;
    OK(MPI_Pack_external(ext32, &ld, 1, MPI_LONG_DOUBLE, buf, 16, &pos));
    pos = 0;
    OK(MPI_Unpack_external(ext32, buf, 16, &pos, &back, 1, MPI_LONG_DOUBLE));
    CHECK(back == ld, "long double %La back as %La", ld, back);
}

/* every basic type mpi4py's test_pack packs (its typecodes b h i l q f d g F D G ? and the
 * unsigned ones, and more), 1 to 9 elements of 255, 1, 2, ... (floating) or of small integers
 * in every element's first byte, back exactly (the pair types without padding) */
static void test_all_types(void)
{
    static const MPI_Datatype types[] = {MPI_SIGNED_CHAR,
                                         MPI_SHORT,
                                         MPI_INT,
                                         MPI_LONG,
                                         MPI_LONG_LONG,
                                         MPI_FLOAT,
                                         MPI_DOUBLE,
                                         MPI_LONG_DOUBLE,
                                         MPI_C_FLOAT_COMPLEX,
                                         MPI_C_DOUBLE_COMPLEX,
                                         MPI_C_LONG_DOUBLE_COMPLEX,
                                         MPI_C_BOOL,
                                         MPI_UNSIGNED_CHAR,
                                         MPI_UNSIGNED_SHORT,
                                         MPI_UNSIGNED,
                                         MPI_UNSIGNED_LONG,
                                         MPI_UNSIGNED_LONG_LONG,
                                         MPI_CHAR,
                                         MPI_WCHAR,
                                         MPI_INT8_T,
                                         MPI_UINT64_T,
                                         MPI_AINT,
                                         MPI_OFFSET,
                                         MPI_COUNT,
                                         MPI_BYTE,
                                         MPI_2INT,
                                         MPI_FLOAT_INT};
    union {
        long double ld[2 * 9];
        char c[2 * 9 * sizeof(long double)];
    } in, out;
    unsigned char buf[2 * 9 * 32];

    for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
        int size;

        OK(MPI_Type_size(types[k], &size));
        for (int n = 1; n <= 9; n++) {
            MPI_Aint pos = 0, psize = ext_size(types[k], n);

            memset(&in, 0, sizeof(in));
            memset(&out, 0xee, sizeof(out));
            if (types[k] == MPI_FLOAT || types[k] == MPI_C_FLOAT_COMPLEX) {
                for (int e = 0; e < n * size / 4; e++) {
                    ((float *)in.c)[e] = (float)(e == 0 ? 255 : e);
                }
            } else if (types[k] == MPI_DOUBLE || types[k] == MPI_C_DOUBLE_COMPLEX) {
                for (int e = 0; e < n * size / 8; e++) {
                    ((double *)in.c)[e] = e == 0 ? 255 : e;
                }
            } else if (types[k] == MPI_LONG_DOUBLE || types[k] == MPI_C_LONG_DOUBLE_COMPLEX) {
                for (int e = 0; e < n * size / (int)sizeof(long double); e++) {
                    in.ld[e] = e == 0 ? 255 : e;
                }
            } else {
                int mod = types[k] == MPI_C_BOOL ? 2 : 100; /* a _Bool is 0 or 1 */

                for (int e = 0; e < n * size; e++) { /* bytes of small non-negative ints */
                    in.c[e] = (char)(e % size == 0 ? (e / size) % mod : 0);
                }
            }
            CHECK(psize > 0 && (size_t)psize <= sizeof(buf), "type %d: %ld bytes", (int)k,
                  (long)psize);
            OK(MPI_Pack_external(ext32, in.c, n, types[k], buf, psize, &pos));
            CHECK(pos == psize, "type %d, %d elements: packed %ld of %ld", (int)k, n, (long)pos,
                  (long)psize);
            pos = 0;
            OK(MPI_Unpack_external(ext32, buf, psize, &pos, out.c, n, types[k]));
            if (types[k] == MPI_LONG_DOUBLE || types[k] == MPI_C_LONG_DOUBLE_COMPLEX) {
                for (int e = 0; e < n * size / (int)sizeof(long double); e++) {
                    CHECK(out.ld[e] == in.ld[e], "type %d element %d: %Lg for %Lg", (int)k, e,
                          out.ld[e], in.ld[e]);
                }
            } else {
                CHECK(memcmp(in.c, out.c, (size_t)(n * size)) == 0,
                      "type %d, %d elements: not back as they were", (int)k, n);
            }
        }
    }
}

/* a vector of pairs (long, float complex) packed, sent to the next rank, unpacked there */
static void test_roundtrip(void)
{
    MPI_Datatype vec;
    long in[12], out[12];
    int next = (me + 1) % np, prev = (me + np - 1) % np, packed_len;
    unsigned char packed[256], got[256];
    MPI_Aint pos = 0, size;

    for (int k = 0; k < 12; k++) {
        in[k] = (k % 3 == 2) ? -1 : (long)(me * 1000 + k) * (k % 2 ? -1 : 1);
        out[k] = -7;
    }
    OK(MPI_Type_vector(4, 2, 3, MPI_LONG, &vec));
    OK(MPI_Type_commit(&vec));
    size = ext_size(vec, 1);
    CHECK(size == 32, "vector of 8 longs: %ld", (long)size);
    OK(MPI_Pack_external(ext32, in, 1, vec, packed, sizeof(packed), &pos));
    packed_len = (int)pos;
    OK(MPI_Sendrecv(packed, packed_len, MPI_BYTE, next, 7, got, sizeof(got), MPI_BYTE, prev, 7,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    pos = 0;
    OK(MPI_Unpack_external(ext32, got, packed_len, &pos, out, 1, vec));
    for (int k = 0; k < 12; k++) {
        long want = k % 3 == 2 ? -7 : (long)(prev * 1000 + k) * (k % 2 ? -1 : 1);

        CHECK(out[k] == want, "element %d: %ld, expected %ld", k, out[k], want);
    }
    OK(MPI_Type_free(&vec));
}

/* C _Bool: one byte, any nonzero byte true (MPI-3.1 13.5.2), unpacked as 1 */
static void test_bool(void)
{
    unsigned char ext[3] = {0, 7, 255};
    _Bool b[3] = {1, 0, 0};
    MPI_Aint pos = 0;

    OK(MPI_Unpack_external(ext32, ext, 3, &pos, b, 3, MPI_C_BOOL));
    CHECK(pos == 3, "position %ld", (long)pos);
    for (int i = 0; i < 3; i++) {
        unsigned char raw;

        memcpy(&raw, &b[i], 1);
        CHECK(raw == (i > 0), "external byte %u unpacked as %u", ext[i], raw);
    }
}

static void test_errors(void)
{
    unsigned char buf[16] = {0};
    long big = (long)1 << 40;
    int v[4] = {1, 2, 3, 4};
    MPI_Aint pos = 0, size;
    MPI_Datatype unc;

    FAILS(MPI_Pack_external("native", v, 1, MPI_INT, buf, 16, &pos), MPI_ERR_UNSUPPORTED_DATAREP);
    FAILS(MPI_Pack_external_size("internal", 1, MPI_INT, &size), MPI_ERR_UNSUPPORTED_DATAREP);
    FAILS(MPI_Pack_external(ext32, v, -1, MPI_INT, buf, 16, &pos), MPI_ERR_COUNT);
    FAILS(MPI_Pack_external(ext32, v, 4, MPI_INT, buf, 12, &pos), MPI_ERR_TRUNCATE);
    FAILS(MPI_Unpack_external(ext32, buf, 8, &pos, v, 3, MPI_INT), MPI_ERR_TRUNCATE);
    FAILS(MPI_Pack_external_size(ext32, 1, MPI_INT, NULL), MPI_ERR_ARG);
    OK(MPI_Type_contiguous(2, MPI_INT, &unc));
    FAILS(MPI_Pack_external(ext32, v, 1, unc, buf, 16, &pos), MPI_ERR_TYPE);
    OK(MPI_Type_free(&unc));
    CHECK(pos == 0, "position moved to %ld by failed calls", (long)pos);
    FAILS(MPI_Pack_external(ext32, &big, 1, MPI_LONG, buf, 16, &pos), MPI_ERR_CONVERSION);
    CHECK(pos == 0, "position moved to %ld by a failed conversion", (long)pos);
}

/* no byte of outbuf changes when a later element fails to convert */
static void check_untouched(const char *what, const void *in, int count, MPI_Datatype dt)
{
    unsigned char buf[32];
    MPI_Aint pos = 4;

    memset(buf, 0xee, sizeof(buf));
    FAILS(MPI_Pack_external(ext32, in, count, dt, buf, sizeof(buf), &pos), MPI_ERR_CONVERSION);
    CHECK(pos == 4, "%s: position moved to %ld", what, (long)pos);
    for (size_t i = 0; i < sizeof(buf); i++) {
        CHECK(buf[i] == 0xee, "%s: byte %zu written (%02x) before MPI_ERR_CONVERSION", what, i,
              buf[i]);
    }
}

static void test_nothing_written(void)
{
    long l[3] = {7, (long)((unsigned long)1 << 20 << 20), 9}; /* 2^40 when long has 64 bits */
    unsigned long ul[2] = {1, ~0UL};
    wchar_t w[2] = {L'a', (wchar_t)0x1F600};

    if (sizeof(long) > 4) {
        check_untouched("long {7, 2^40, 9}", l, 3, MPI_LONG);
        check_untouched("unsigned long {1, ULONG_MAX}", ul, 2, MPI_UNSIGNED_LONG);
    }
    if (sizeof(wchar_t) > 2) {
        check_untouched("wchar {'a', U+1F600}", w, 2, MPI_WCHAR);
    }
}

static void test_classes(void)
{
    static const int classes[] = {
        MPI_ERR_FILE,         MPI_ERR_NOT_SAME,    MPI_ERR_AMODE,     MPI_ERR_UNSUPPORTED_DATAREP,
        MPI_ERR_NO_SUCH_FILE, MPI_ERR_FILE_EXISTS, MPI_ERR_BAD_FILE,  MPI_ERR_ACCESS,
        MPI_ERR_NO_SPACE,     MPI_ERR_QUOTA,       MPI_ERR_READ_ONLY, MPI_ERR_FILE_IN_USE,
        MPI_ERR_DUP_DATAREP,  MPI_ERR_CONVERSION,  MPI_ERR_IO,        MPI_ERR_SPAWN,
        MPI_ERR_PORT,         MPI_ERR_SERVICE,     MPI_ERR_NAME};
    int n = (int)(sizeof(classes) / sizeof(classes[0])), cls, len;
    char s[MPI_MAX_ERROR_STRING];

    for (int k = 0; k < n; k++) {
        CHECK(classes[k] > MPI_SUCCESS && classes[k] < MPI_ERR_LASTCODE, "class %d", classes[k]);
        for (int j = 0; j < k; j++) {
            CHECK(classes[j] != classes[k], "classes %d and %d equal", j, k);
        }
        OK(MPI_Error_class(classes[k], &cls));
        CHECK(cls == classes[k], "Error_class(%d) = %d", classes[k], cls);
        OK(MPI_Error_string(classes[k], s, &len));
        CHECK(len > 0 && strlen(s) == (size_t)len, "Error_string(%d): \"%s\"", classes[k], s);
        CHECK(strstr(s, "unknown") == NULL, "Error_string(%d): \"%s\"", classes[k], s);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    phases_expected = 6;
    test_sizes();
    phase("external32 sizes");
    test_bytes();
    phase("external32 bytes");
    test_all_types();
    phase("external32 of every basic type, back exactly");
    test_roundtrip();
    phase("external32 through a vector type and a message");
    test_bool();
    test_errors();
    test_nothing_written();
    phase("external32 errors, and C _Bool's true");
    test_classes();
    phase("error classes of I/O and dynamic processes");
    MPI_Finalize();
    return summary();
}
