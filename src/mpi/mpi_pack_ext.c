/* SPDX-License-Identifier: BSD-3-Clause */
/* The external32 data representation (MPI-3.1 13.5.2, the sizes of its table 13.2) for
 * MPI_Pack_external / Unpack_external / Pack_external_size: every basic element big-endian,
 * integers at their external size (MPI_LONG and MPI_UNSIGNED_LONG 4 bytes, MPI_WCHAR 2,
 * MPI_AINT / OFFSET / COUNT 8), IEEE floating point, long double as IEEE binary128 (16 bytes),
 * C _Bool one byte (any nonzero byte unpacks as true: 1).
 * A value the other side cannot hold (a long past 32 bits, ...) is MPI_ERR_CONVERSION, and
 * nothing is written then (MPICH and Open MPI truncate it silently). The sizes and kinds of
 * the basic types are columns of mpi_type.c's one list of them (MPI_TYPE_BASIC_LIST). The
 * walk follows the type signature (mpi_type.h) over the native packed form mpi_type_pack
 * writes, which is in the same order. */
#include "mpi/mpi_objects.h"
#include "mpi/mpi_type.h"

#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* a basic type's external form: parts (2: complex) of native size nat, external size ext, as
 * mpi_type.c's list of the basic types says (its ext columns) */
typedef struct {
    mpi_ext_kind_t kind;
    size_t nat, ext, parts;
} ext_desc_t;

static ext_desc_t ext_desc(const mpi_type_t *t)
{
    size_t parts = t->ext_parts;

    return (ext_desc_t){.kind = t->ext_kind,
                        .nat = parts > 0 ? t->size / parts : t->size,
                        .ext = t->ext_size,
                        .parts = parts};
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
    bool sgn = d->kind == MPI_EXT_SINT;
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

/* count basic elements of t between *in and *out, both advanced; MPI_ERR_INTERN for a type
 * holding data with no external form (none: every basic type has one) */
static int ext_basic(const mpi_type_t *t, size_t count, const unsigned char **in,
                     unsigned char **out, bool to_ext)
{
    ext_desc_t d = ext_desc(t);
    size_t isz = to_ext ? d.nat : d.ext, osz = to_ext ? d.ext : d.nat;

    if (count > 0 && t->size > 0 && d.kind == MPI_EXT_NONE) {
        return MPI_ERR_INTERN;
    }
    for (size_t n = 0; n < count * d.parts; n++, *in += isz, *out += osz) {
        switch (d.kind) {
        case MPI_EXT_SINT:
        case MPI_EXT_UINT:
            if (!ext_int(&d, *in, *out, to_ext)) {
                return MPI_ERR_CONVERSION;
            }
            break;
        case MPI_EXT_BOOL: /* external32: any nonzero byte is true */
            **out = **in != 0;
            break;
        case MPI_EXT_FLOAT:
            ext_swap(*in, *out, d.nat);
            break;
        case MPI_EXT_LDBL:
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

/* Converted into a scratch buffer first: out is written only when every element converts. */
int mpi_type_ext_pack(const mpi_type_t *t, const void *buf, size_t count, void *out)
{
    size_t bytes = count * mpi_type_ext_size(t);
    unsigned char *nat, *ext, *o;
    const unsigned char *i;
    int rc;

    if (count == 0 || t->size == 0) {
        return MPI_SUCCESS;
    }
    nat = malloc(count * t->size);
    ext = malloc(bytes > 0 ? bytes : 1);
    if (nat == NULL || ext == NULL) {
        free(nat);
        free(ext);
        return MPI_ERR_NO_MEM;
    }
    mpi_type_pack(t, buf, count, nat);
    i = nat;
    o = ext;
    rc = ext_walk(t, count, &i, &o, true);
    if (rc == MPI_SUCCESS) {
        memcpy(out, ext, bytes);
    }
    free(nat);
    free(ext);
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
