/* SPDX-License-Identifier: BSD-3-Clause */
/* The calls of packing (bindings over mpi_pack.c): MPI_Pack, MPI_Unpack, MPI_Pack_size. */
#include "mpi/mpi_engines.h"
#include "mpi/mpi_type.h"

#include <limits.h>
#include <string.h>

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
    MPI_MT_GUARD();
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
    MPI_MT_GUARD();
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
    MPI_MT_GUARD();
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
