/* SPDX-License-Identifier: BSD-3-Clause */
/* The calls of packing (bindings over mpi_pack.c and mpi_pack_ext.c): MPI_Pack, MPI_Unpack,
 * MPI_Pack_size, and external32's MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size.
 */
#include "mpi/mpi_engines.h"
#include "mpi/mpi_type.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

/* The checks shared by Pack, Unpack, Pack_external and Unpack_external, raised on c (NULL:
 * MPI_COMM_WORLD): count, position within size (position NULL: -1), a committed type, and
 * count elements (bytes_p: native, or external32 when ext) fitting in what is left. */
static int pack_args(mpi_comm_t *c, const char *call, int count, MPI_Datatype dt, MPI_Aint size,
                     MPI_Aint position, bool ext, mpi_type_t **t_p, size_t *bytes_p)
{
    mpi_type_t *t = NULL;
    size_t elem;
    int err;

    if (count < 0) {
        return mpi_err(c, call, MPI_ERR_COUNT, "negative count %d", count);
    }
    if (size < 0 || position < 0 || position > size) {
        return mpi_err(c, call, MPI_ERR_ARG, "position %ld outside the buffer of %ld bytes",
                       (long)position, (long)size);
    }
    if ((err = mpi_type_check(c, call, dt, true, &t)) != MPI_SUCCESS) {
        return err;
    }
    elem = ext ? mpi_type_ext_size(t) : t->size;
    if (__builtin_mul_overflow((size_t)count, elem, bytes_p) ||
        *bytes_p > (size_t)(size - position)) {
        return mpi_err(c, call, MPI_ERR_TRUNCATE,
                       "%d elements of %zu%s bytes do not fit in the %ld bytes left", count, elem,
                       ext ? " external32" : "", (long)(size - position));
    }
    *t_p = t;
    return MPI_SUCCESS;
}

/* The checks of Pack and Unpack: comm, then pack_args. */
static int pack_check(const char *call, MPI_Comm comm, int count, MPI_Datatype dt, int size,
                      const int *position, mpi_type_t **t_p, size_t *bytes_p)
{
    mpi_comm_t *c;
    int err = MPI_SUCCESS;

    if ((c = mpi_comm_check(comm, call, &err)) == NULL) {
        return err;
    }
    return pack_args(c, call, count, dt, size, position != NULL ? *position : -1, false, t_p,
                     bytes_p);
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

/* ---- external32 (mpi_pack_ext.c) ---- */

/* datarep is "external32", the one rcmsg knows, else MPI_ERR_UNSUPPORTED_DATAREP */
static int ext_datarep(const char *call, const char *datarep)
{
    if (datarep == NULL || strcmp(datarep, "external32") != 0) {
        return mpi_err(NULL, call, MPI_ERR_UNSUPPORTED_DATAREP,
                       "data representation \"%s\": only \"external32\"",
                       datarep != NULL ? datarep : "(NULL)");
    }
    return MPI_SUCCESS;
}

/* The checks of Pack_external and Unpack_external: datarep, then pack_args. */
static int pack_ext_check(const char *call, const char *datarep, int count, MPI_Datatype dt,
                          MPI_Aint size, const MPI_Aint *position, mpi_type_t **t_p,
                          size_t *bytes_p)
{
    int err = ext_datarep(call, datarep);

    if (err != MPI_SUCCESS) {
        return err;
    }
    return pack_args(NULL, call, count, dt, size, position != NULL ? *position : -1, true, t_p,
                     bytes_p);
}

/* an error of the conversion itself, raised naming call */
static int pack_ext_fail(const char *call, int rc)
{
    if (rc == MPI_ERR_CONVERSION) {
        return mpi_err(NULL, call, rc,
                       "a value does not fit in its external32 size (nothing was written)");
    }
    if (rc == MPI_ERR_INTERN) {
        return mpi_err(NULL, call, rc, "a basic type has no external32 form");
    }
    return mpi_err(NULL, call, rc, "out of memory");
}

MPI_API int MPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                              MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                              MPI_Aint *position)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Pack_external";
    mpi_type_t *t = NULL;
    size_t bytes;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = pack_ext_check(call, datarep, incount, datatype, outsize, position, &t, &bytes);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (bytes > 0 && (rc = mpi_type_ext_pack(t, inbuf, (size_t)incount,
                                             (char *)outbuf + *position)) != MPI_SUCCESS) {
        return pack_ext_fail(call, rc);
    }
    *position += (MPI_Aint)bytes;
    return MPI_SUCCESS;
}
MPI_PMPI_ALIAS(Pack_external,
               (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                void *outbuf, MPI_Aint outsize, MPI_Aint *position));

MPI_API int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                                MPI_Aint *position, void *outbuf, int outcount,
                                MPI_Datatype datatype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Unpack_external";
    mpi_type_t *t = NULL;
    size_t bytes;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = pack_ext_check(call, datarep, outcount, datatype, insize, position, &t, &bytes);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (bytes > 0 && (rc = mpi_type_ext_unpack(t, (const char *)inbuf + *position, (size_t)outcount,
                                               outbuf)) != MPI_SUCCESS) {
        return pack_ext_fail(call, rc);
    }
    *position += (MPI_Aint)bytes;
    return MPI_SUCCESS;
}
MPI_PMPI_ALIAS(Unpack_external,
               (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                void *outbuf, int outcount, MPI_Datatype datatype));

/* external32 has no header either: count x the external size of one element */
MPI_API int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                   MPI_Aint *size)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Pack_external_size";
    mpi_type_t *t = NULL;
    size_t bytes;
    int err;

    MPI_CHECK_ACTIVE(call);
    if ((err = ext_datarep(call, datarep)) != MPI_SUCCESS) {
        return err;
    }
    if (incount < 0) {
        return mpi_err(NULL, call, MPI_ERR_COUNT, "negative count %d", incount);
    }
    if (size == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "size is NULL");
    }
    if ((err = mpi_type_check(NULL, call, datatype, false, &t)) != MPI_SUCCESS) {
        return err;
    }
    if (__builtin_mul_overflow((size_t)incount, mpi_type_ext_size(t), &bytes) ||
        bytes > (size_t)PTRDIFF_MAX) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "%d elements of %zu bytes overflow an MPI_Aint",
                       incount, mpi_type_ext_size(t));
    }
    *size = (MPI_Aint)bytes;
    return MPI_SUCCESS;
}
MPI_PMPI_ALIAS(Pack_external_size,
               (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size));
