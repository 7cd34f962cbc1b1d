/* SPDX-License-Identifier: BSD-3-Clause */
/* Moving typed data: pack and unpack count elements along a type's flattened blocks
 * (mpi_type.h), MPI_Pack/Unpack/Pack_size, and the element counts of Get_count and
 * Get_elements. */
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
