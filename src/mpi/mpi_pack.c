/* SPDX-License-Identifier: BSD-3-Clause */
/* Moving typed data: pack and unpack count elements along a type's flattened blocks
 * (mpi_type.h), MPI_Pack/Unpack/Pack_size, the element counts of Get_count and Get_elements,
 * and the blocks and byte span of count elements (one-sided's target side). */
#include "mpi/mpi_objects.h"
#include "mpi/mpi_type.h"

#include <limits.h>
#include <string.h>

void mpi_type_pack(const mpi_type_t *t, const void *buf, size_t count, void *out)
{
    const char *in = buf;
    char *o = out;

    if (count == 0 || t->size == 0) { /* buf and out may be NULL */
        return;
    }
    if (t->contig) {
        memcpy(o, in + t->true_lb, count * t->size);
        return;
    }
    for (size_t i = 0; i < count; i++, in += t->extent) {
        for (size_t k = 0; k < t->nblocks; k++) {
            memcpy(o, in + t->blocks[k].off, t->blocks[k].len);
            o += t->blocks[k].len;
        }
    }
}

void mpi_type_unpack(const mpi_type_t *t, const void *in, size_t count, void *buf)
{
    const char *i8 = in;
    char *b = buf;

    if (count == 0 || t->size == 0) {
        return;
    }
    if (t->contig) {
        memcpy(b + t->true_lb, i8, count * t->size);
        return;
    }
    for (size_t i = 0; i < count; i++, b += t->extent) {
        for (size_t k = 0; k < t->nblocks; k++) {
            memcpy(b + t->blocks[k].off, i8, t->blocks[k].len);
            i8 += t->blocks[k].len;
        }
    }
}

/* Basic elements in the first nbytes (< one element) of t's signature; MPI_UNDEFINED when
 * nbytes ends inside a basic element. */
static MPI_Count type_basic_prefix(const mpi_type_t *t, size_t nbytes)
{
    MPI_Count basic = 0;

    if (t->nsig == 0) { /* a basic type */
        return nbytes == 0 ? 0 : MPI_UNDEFINED;
    }
    for (size_t i = 0; i < t->nsig && nbytes > 0; i++) {
        const mpi_type_t *c = t->sig[i].child;
        size_t whole = c->size > 0 ? nbytes / c->size : 0;

        if (whole >= t->sig[i].count) {
            whole = t->sig[i].count;
        }
        basic += (MPI_Count)whole * c->basic;
        nbytes -= whole * c->size;
        if (whole < t->sig[i].count && nbytes > 0) {
            MPI_Count rest = type_basic_prefix(c, nbytes);

            return rest == MPI_UNDEFINED ? MPI_UNDEFINED : basic + rest;
        }
    }
    return nbytes == 0 ? basic : MPI_UNDEFINED;
}

int mpi_type_basic_count(const mpi_type_t *t, size_t nbytes, MPI_Count *basic_p)
{
    size_t whole, rest;
    MPI_Count prefix;

    if (t->size == 0) {
        *basic_p = 0;
        return 0;
    }
    whole = nbytes / t->size;
    rest = nbytes % t->size;
    prefix = type_basic_prefix(t, rest);
    *basic_p = prefix == MPI_UNDEFINED ? MPI_UNDEFINED : (MPI_Count)whole * t->basic + prefix;
    return rest != 0 || whole > INT_MAX ? MPI_UNDEFINED : (int)whole;
}

int mpi_type_blocks(const mpi_type_t *t, size_t count, mpi_type_block_fn *fn, void *arg)
{
    MPI_Aint off = 0;
    size_t len = 0, poff = 0;
    int rc;

    if (t->size == 0 || count == 0) {
        return 0;
    }
    if (t->contig) {
        return fn(arg, t->true_lb, count * t->size, 0);
    }
    for (size_t i = 0; i < count; i++) {
        for (size_t k = 0; k < t->nblocks; k++) {
            MPI_Aint at = (MPI_Aint)i * t->extent + t->blocks[k].off;

            if (len > 0 && off + (MPI_Aint)len == at) {
                len += t->blocks[k].len; /* adjacent to the one before: merged */
                continue;
            }
            if (len > 0 && (rc = fn(arg, off, len, poff)) != 0) {
                return rc;
            }
            poff += len;
            off = at;
            len = t->blocks[k].len;
        }
    }
    return fn(arg, off, len, poff);
}

void mpi_type_span(const mpi_type_t *t, size_t count, MPI_Aint *lo_p, MPI_Aint *hi_p)
{
    MPI_Aint step = count > 0 ? (MPI_Aint)(count - 1) * t->extent : 0;

    *lo_p = t->true_lb + (step < 0 ? step : 0);
    *hi_p = t->true_ub + (step > 0 ? step : 0);
}
