/* SPDX-License-Identifier: BSD-3-Clause */
/* The external32 data representation (MPI-3.1 13.5.2, the sizes of its table 13.2) for
 * MPI_Pack_external / Unpack_external / Pack_external_size: every basic element big-endian,
 * integers at their external size (MPI_LONG and MPI_UNSIGNED_LONG 4 bytes, MPI_WCHAR 2,
 * MPI_AINT / OFFSET / COUNT 8), IEEE floating point, long double as IEEE binary128 (16 bytes),
 * C _Bool one byte (any nonzero byte unpacks as true: 1).
 * A value the other side cannot hold (a long past 32 bits, ...) is MPI_ERR_CONVERSION. The
 * walk follows the type signature (mpi_type.h) over the native packed form mpi_type_pack
 * writes, which is in the same order. */
#include "mpi/mpi_objects.h"
#include "mpi/mpi_type.h"

#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

enum { EXT_RAW, EXT_BOOL, EXT_INT, EXT_UINT, EXT_FLOAT, EXT_LDBL };

/* a basic type's external form: parts (2: complex) of native size nat, external size ext */
typedef struct {
    int kind;
    size_t nat, ext, parts;
} ext_desc_t;

static ext_desc_t ext_desc(const mpi_type_t *t)
{
#define EXT_D(k, n, e, p)                                                                          \
    (ext_desc_t)                                                                                   \
    {                                                                                              \
        .kind = (k), .nat = (n), .ext = (e), .parts = (p)                                          \
    }
    switch (t->handle) {
    case MPI_C_BOOL:
        return EXT_D(EXT_BOOL, t->size, 1, 1);
    case MPI_WCHAR:
        return EXT_D(EXT_UINT, sizeof(wchar_t), 2, 1);
    case MPI_SHORT:
    case MPI_INT16_T:
        return EXT_D(EXT_INT, t->size, 2, 1);
    case MPI_INT:
    case MPI_INT32_T:
    case MPI_LONG:
        return EXT_D(EXT_INT, t->size, 4, 1);
    case MPI_LONG_LONG_INT:
    case MPI_INT64_T:
    case MPI_AINT:
    case MPI_OFFSET:
    case MPI_COUNT:
        return EXT_D(EXT_INT, t->size, 8, 1);
    case MPI_UNSIGNED_SHORT:
    case MPI_UINT16_T:
        return EXT_D(EXT_UINT, t->size, 2, 1);
    case MPI_UNSIGNED:
    case MPI_UINT32_T:
    case MPI_UNSIGNED_LONG:
        return EXT_D(EXT_UINT, t->size, 4, 1);
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_UINT64_T:
        return EXT_D(EXT_UINT, t->size, 8, 1);
    case MPI_FLOAT:
    case MPI_DOUBLE:
        return EXT_D(EXT_FLOAT, t->size, t->size, 1);
    case MPI_C_FLOAT_COMPLEX:
    case MPI_C_DOUBLE_COMPLEX:
        return EXT_D(EXT_FLOAT, t->size / 2, t->size / 2, 2);
    case MPI_LONG_DOUBLE:
        return EXT_D(EXT_LDBL, t->size, 16, 1);
    case MPI_C_LONG_DOUBLE_COMPLEX:
        return EXT_D(EXT_LDBL, t->size / 2, 16, 2);
    default: /* the one-byte types (char, bool, byte, packed, int8) */
        return EXT_D(EXT_RAW, t->size, t->size, 1);
    }
#undef EXT_D
}

static uint64_t be_read(const unsigned char *p, size_t n)
{
    uint64_t v = 0;

    for (size_t i = 0; i < n; i++) {
        v = v << 8 | p[i];
    }
    return v;
}

static void be_write(unsigned char *p, size_t n, uint64_t v)
{
    for (size_t i = n; i-- > 0; v >>= 8) {
        p[i] = (unsigned char)v;
    }
}

/* native integers of 1, 2, 4 or 8 bytes, as 64 bits (sign-extended when sgn) */
static uint64_t nat_read(const void *p, size_t n, bool sgn)
{
    int8_t i8;
    int16_t i16;
    int32_t i32;
    uint64_t v = 0;

    switch (n) {
    case 1:
        memcpy(&i8, p, 1);
        return sgn ? (uint64_t)(int64_t)i8 : (uint8_t)i8;
    case 2:
        memcpy(&i16, p, 2);
        return sgn ? (uint64_t)(int64_t)i16 : (uint16_t)i16;
    case 4:
        memcpy(&i32, p, 4);
        return sgn ? (uint64_t)(int64_t)i32 : (uint32_t)i32;
    default:
        memcpy(&v, p, sizeof(v));
        return v;
    }
}

static void nat_write(void *p, size_t n, uint64_t v)
{
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;

    switch (n) {
    case 1:
        memcpy(p, &u8, 1);
        break;
    case 2:
        memcpy(p, &u16, 2);
        break;
    case 4:
        memcpy(p, &u32, 4);
        break;
    default:
        memcpy(p, &v, sizeof(v));
        break;
    }
}

/* v (sign-extended when sgn) fits in n bytes */
static bool int_fits(uint64_t v, size_t n, bool sgn)
{
    if (n >= 8) {
        return true;
    }
    if (!sgn) {
        return v >> (8 * n) == 0;
    }
    int64_t s = (int64_t)v, lim = (int64_t)1 << (8 * n - 1);

    return s >= -lim && s < lim;
}

/* one integer: native -> external (to_ext) or back; false when it does not fit */
static bool ext_int(const ext_desc_t *d, const unsigned char *in, unsigned char *out, bool to_ext)
{
    bool sgn = d->kind == EXT_INT;
    uint64_t v;

    if (to_ext) {
        v = nat_read(in, d->nat, sgn);
        if (!int_fits(v, d->ext, sgn)) {
            return false;
        }
        be_write(out, d->ext, v);
        return true;
    }
    v = be_read(in, d->ext);
    if (sgn && d->ext < 8 && (v >> (8 * d->ext - 1) & 1)) {
        v |= ~(uint64_t)0 << (8 * d->ext); /* sign-extended */
    }
    if (!int_fits(v, d->nat, sgn)) {
        return false;
    }
    nat_write(out, d->nat, v);
    return true;
}

/* n bytes in the other byte order when this machine is little-endian */
static void ext_swap(const unsigned char *in, unsigned char *out, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (size_t i = 0; i < n; i++) {
        out[i] = in[n - 1 - i];
    }
#else
    memcpy(out, in, n);
#endif
}

/* one long double: native -> binary128 big-endian (to_ext) or back; false when this
 * machine's long double is neither x87 extended (64-bit mantissa) nor binary128 */
static bool ext_ldbl(const unsigned char *in, unsigned char *out, bool to_ext)
{
#if LDBL_MANT_DIG == 113
    ext_swap(in, out, 16);
    return true;
#elif LDBL_MANT_DIG == 64 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t m, hi, lo, frac;
    uint16_t se;

    if (to_ext) { /* x87: 64-bit mantissa (explicit integer bit), then sign and exponent */
        memcpy(&m, in, 8);
        memcpy(&se, in + 8, 2);
        frac = m & ~((uint64_t)1 << 63);
        hi = (uint64_t)se << 48 | frac >> 15;
        lo = (frac & 0x7fff) << 49;
        be_write(out, 8, hi);
        be_write(out + 8, 8, lo);
        return true;
    }
    hi = be_read(in, 8);
    lo = be_read(in + 8, 8);
    se = (uint16_t)(hi >> 48);
    frac = (hi & 0xffffffffffffULL) << 15 | lo >> 49; /* the 49 lowest bits dropped */
    m = ((se & 0x7fff) != 0 ? (uint64_t)1 << 63 : 0) | frac;
    memset(out, 0, sizeof(long double));
    memcpy(out, &m, 8);
    memcpy(out + 8, &se, 2);
    return true;
#else
    (void)in, (void)out, (void)to_ext;
    return false;
#endif
}

/* count basic elements of t between *in and *out, both advanced */
static int ext_basic(const mpi_type_t *t, size_t count, const unsigned char **in,
                     unsigned char **out, bool to_ext)
{
    ext_desc_t d = ext_desc(t);
    size_t isz = to_ext ? d.nat : d.ext, osz = to_ext ? d.ext : d.nat;

    for (size_t n = 0; n < count * d.parts; n++, *in += isz, *out += osz) {
        switch (d.kind) {
        case EXT_INT:
        case EXT_UINT:
            if (!ext_int(&d, *in, *out, to_ext)) {
                return MPI_ERR_CONVERSION;
            }
            break;
        case EXT_BOOL: /* external32: any nonzero byte is true */
            **out = **in != 0;
            break;
        case EXT_FLOAT:
            ext_swap(*in, *out, d.nat);
            break;
        case EXT_LDBL:
            if (!ext_ldbl(*in, *out, to_ext)) {
                return MPI_ERR_CONVERSION;
            }
            break;
        default:
            memcpy(*out, *in, d.nat);
            break;
        }
    }
    return MPI_SUCCESS;
}

static int ext_walk(const mpi_type_t *t, size_t count, const unsigned char **in,
                    unsigned char **out, bool to_ext)
{
    int rc = MPI_SUCCESS;

    if (t->nsig == 0) {
        return ext_basic(t, count, in, out, to_ext);
    }
    for (size_t n = 0; n < count && rc == MPI_SUCCESS; n++) {
        for (size_t i = 0; i < t->nsig && rc == MPI_SUCCESS; i++) {
            rc = ext_walk(t->sig[i].child, t->sig[i].count, in, out, to_ext);
        }
    }
    return rc;
}

size_t mpi_type_ext_size(const mpi_type_t *t)
{
    size_t bytes = 0;

    if (t->nsig == 0) {
        ext_desc_t d = ext_desc(t);

        return d.parts * d.ext;
    }
    for (size_t i = 0; i < t->nsig; i++) {
        bytes += t->sig[i].count * mpi_type_ext_size(t->sig[i].child);
    }
    return bytes;
}

int mpi_type_ext_pack(const mpi_type_t *t, const void *buf, size_t count, void *out)
{
    unsigned char *nat, *o = out;
    const unsigned char *i;
    int rc;

    if (count == 0 || t->size == 0) {
        return MPI_SUCCESS;
    }
    if ((nat = malloc(count * t->size)) == NULL) {
        return MPI_ERR_NO_MEM;
    }
    mpi_type_pack(t, buf, count, nat);
    i = nat;
    rc = ext_walk(t, count, &i, &o, true);
    free(nat);
    return rc;
}

int mpi_type_ext_unpack(const mpi_type_t *t, const void *in, size_t count, void *buf)
{
    unsigned char *nat, *o;
    const unsigned char *i = in;
    int rc;

    if (count == 0 || t->size == 0) {
        return MPI_SUCCESS;
    }
    if ((nat = malloc(count * t->size)) == NULL) {
        return MPI_ERR_NO_MEM;
    }
    o = nat;
    rc = ext_walk(t, count, &i, &o, false);
    if (rc == MPI_SUCCESS) {
        mpi_type_unpack(t, nat, count, buf);
    }
    free(nat);
    return rc;
}
