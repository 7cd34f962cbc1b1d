/* SPDX-License-Identifier: BSD-3-Clause */
/* Moving typed data: pack and unpack count elements along a type's flattened blocks
 * (mpi_type.h), MPI_Pack/Unpack/Pack_size, and the element counts of Get_count and
 * Get_elements. */
#include "mpi/mpi_impl.h"
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

/* The checks of Pack and Unpack: comm, count, a committed type, position within size, and
 * count elements (bytes_p) fitting in what is left. */
static int pack_check(const char *call, MPI_Comm comm, int count, MPI_Datatype dt, int size,
                      const int *position, mpi_type_t **t_p, size_t *bytes_p)
{
    mpi_comm_t *c;
    mpi_type_t *t = NULL;
    int err = MPI_SUCCESS;

    if ((c = mpi_comm_check(comm, call, &err)) == NULL) {
        return err;
    }
    if (count < 0) {
        return mpi_err(c, call, MPI_ERR_COUNT, "negative count %d", count);
    }
    if (position == NULL || size < 0 || *position < 0 || *position > size) {
        return mpi_err(c, call, MPI_ERR_ARG, "position %d outside the buffer of %d bytes",
                       position != NULL ? *position : -1, size);
    }
    if ((err = mpi_type_check(c, call, dt, true, &t)) != MPI_SUCCESS) {
        return err;
    }
    if (__builtin_mul_overflow((size_t)count, t->size, bytes_p) ||
        *bytes_p > (size_t)(size - *position)) {
        return mpi_err(c, call, MPI_ERR_TRUNCATE,
                       "%d elements of %zu bytes do not fit in the %d bytes left", count, t->size,
                       size - *position);
    }
    *t_p = t;
    return MPI_SUCCESS;
}

MPI_API int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                     int outsize, int *position, MPI_Comm comm)
{
    static const char call[] = "MPI_Pack";
    mpi_type_t *t = NULL;
    size_t bytes;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = pack_check(call, comm, incount, datatype, outsize, position, &t, &bytes);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (bytes > 0) {
        mpi_type_pack(t, inbuf, (size_t)incount, (char *)outbuf + *position);
    }
    *position += (int)bytes;
    return MPI_SUCCESS;
}

MPI_API int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                       MPI_Datatype datatype, MPI_Comm comm)
{
    static const char call[] = "MPI_Unpack";
    mpi_type_t *t = NULL;
    size_t bytes;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = pack_check(call, comm, outcount, datatype, insize, position, &t, &bytes);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (bytes > 0) {
        mpi_type_unpack(t, (const char *)inbuf + *position, (size_t)outcount, outbuf);
    }
    *position += (int)bytes;
    return MPI_SUCCESS;
}

/* The packed data only: the packed form carries no header (one data representation). */
MPI_API int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    static const char call[] = "MPI_Pack_size";
    mpi_comm_t *c;
    mpi_type_t *t = NULL;
    int err = MPI_SUCCESS;

    MPI_CHECK_ACTIVE(call);
    if ((c = mpi_comm_check(comm, call, &err)) == NULL) {
        return err;
    }
    if (incount < 0) {
        return mpi_err(c, call, MPI_ERR_COUNT, "negative count %d", incount);
    }
    if (size == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "size is NULL");
    }
    if ((err = mpi_type_check(c, call, datatype, false, &t)) != MPI_SUCCESS) {
        return err;
    }
    if ((size_t)incount * t->size > INT_MAX) {
        return mpi_err(c, call, MPI_ERR_ARG, "%d elements of %zu bytes overflow an int", incount,
                       t->size);
    }
    *size = (int)((size_t)incount * t->size);
    return MPI_SUCCESS;
}
