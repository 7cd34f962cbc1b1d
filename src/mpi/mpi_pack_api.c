/* SPDX-License-Identifier: BSD-3-Clause */
/* The calls of packing (bindings over mpi_pack.c and mpi_pack_ext.c): MPI_Pack, MPI_Unpack,
 * MPI_Pack_size, and external32's MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size;
 * each with its MPI-4.0 large-count _c form (MPI_Count counts, sizes and positions) over the
 * same function. */
#include "mpi/mpi_engines.h"
#include "mpi/mpi_type.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

/* The checks shared by Pack, Unpack, Pack_external and Unpack_external, raised on c (NULL:
 * MPI_COMM_WORLD): count, position within size (position NULL: -1), a committed type, and
 * count elements (bytes_p: native, or external32 when ext) fitting in what is left. */
static int pack_args(mpi_comm_t *c, const char *call, MPI_Count count, MPI_Datatype dt,
                     MPI_Aint size, MPI_Aint position, bool ext, mpi_type_t **t_p, size_t *bytes_p)
{
    mpi_type_t *t = NULL;
    size_t elem;
    int err;

    if (count < 0) {
        return mpi_err(c, call, MPI_ERR_COUNT, "negative count %lld", count);
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
                       "%lld elements of %zu%s bytes do not fit in the %ld bytes left", count, elem,
                       ext ? " external32" : "", (long)(size - position));
    }
    *t_p = t;
    return MPI_SUCCESS;
}

/* The checks of Pack and Unpack: comm, then pack_args (position: *position, -1 when NULL). */
static int pack_check(const char *call, MPI_Comm comm, MPI_Count count, MPI_Datatype dt,
                      MPI_Count size, MPI_Count position, mpi_type_t **t_p, size_t *bytes_p)
{
    mpi_comm_t *c;
    int err = MPI_SUCCESS;

    if ((c = mpi_comm_check(comm, call, &err)) == NULL) {
        return err;
    }
    return pack_args(c, call, count, dt, (MPI_Aint)size, (MPI_Aint)position, false, t_p, bytes_p);
}

/* Pack (unpack false) and Unpack: count elements of t between buf and the packed bytes at
 * packed + position; the new position. */
static MPI_Count pack_do(bool unpack, mpi_type_t *t, MPI_Count count, size_t bytes, void *buf,
                         void *packed, MPI_Count position)
{
    if (bytes > 0 && unpack) {
        mpi_type_unpack(t, (const char *)packed + position, (size_t)count, buf);
    } else if (bytes > 0) {
        mpi_type_pack(t, buf, (size_t)count, (char *)packed + position);
    }
    return position + (MPI_Count)bytes;
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
    rc = pack_check(call, comm, incount, datatype, outsize, position != NULL ? *position : -1, &t,
                    &bytes);
    if (rc == MPI_SUCCESS) { /* within outsize: an int */
        *position = (int)pack_do(false, t, incount, bytes, (void *)inbuf, outbuf, *position);
    }
    return rc;
}

MPI_API int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                       MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Pack_c";
    mpi_type_t *t = NULL;
    size_t bytes;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = pack_check(call, comm, incount, datatype, outsize, position != NULL ? *position : -1, &t,
                    &bytes);
    if (rc == MPI_SUCCESS) {
        *position = pack_do(false, t, incount, bytes, (void *)inbuf, outbuf, *position);
    }
    return rc;
}
MPI_PMPI_ALIAS(Pack_c, (const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                        MPI_Count outsize, MPI_Count *position, MPI_Comm comm));

MPI_API int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                       MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Unpack";
    mpi_type_t *t = NULL;
    size_t bytes;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = pack_check(call, comm, outcount, datatype, insize, position != NULL ? *position : -1, &t,
                    &bytes);
    if (rc == MPI_SUCCESS) { /* within insize: an int */
        *position = (int)pack_do(true, t, outcount, bytes, outbuf, (void *)inbuf, *position);
    }
    return rc;
}

MPI_API int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                         MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Unpack_c";
    mpi_type_t *t = NULL;
    size_t bytes;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = pack_check(call, comm, outcount, datatype, insize, position != NULL ? *position : -1, &t,
                    &bytes);
    if (rc == MPI_SUCCESS) {
        *position = pack_do(true, t, outcount, bytes, outbuf, (void *)inbuf, *position);
    }
    return rc;
}
MPI_PMPI_ALIAS(Unpack_c, (const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                          MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm));

/* The packed data only: the packed form carries no header (one data representation). The
 * bytes of incount elements, at most limit: else MPI_ERR_ARG for the int form (limit INT_MAX:
 * the size does not fit its int), MPI_ERR_COUNT for the _c form. */
static int pack_size(const char *call, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                     MPI_Count limit, const void *size, MPI_Count *bytes_p)
{
    mpi_comm_t *c;
    mpi_type_t *t = NULL;
    int err = MPI_SUCCESS;
    size_t bytes;

    if ((c = mpi_comm_check(comm, call, &err)) == NULL) {
        return err;
    }
    if (incount < 0) {
        return mpi_err(c, call, MPI_ERR_COUNT, "negative count %lld", incount);
    }
    if (size == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "size is NULL");
    }
    if ((err = mpi_type_check(c, call, datatype, false, &t)) != MPI_SUCCESS) {
        return err;
    }
    if (__builtin_mul_overflow((size_t)incount, t->size, &bytes) || bytes > (size_t)limit) {
        return mpi_err(c, call, limit == INT_MAX ? MPI_ERR_ARG : MPI_ERR_COUNT,
                       "%lld elements of %zu bytes: more than %lld bytes%s", incount, t->size,
                       limit, limit == INT_MAX ? " (an int; MPI_Pack_size_c takes more)" : "");
    }
    *bytes_p = (MPI_Count)bytes;
    return MPI_SUCCESS;
}

MPI_API int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_MT_GUARD();
    MPI_Count bytes;
    int err;

    MPI_CHECK_ACTIVE("MPI_Pack_size");
    err = pack_size("MPI_Pack_size", incount, datatype, comm, INT_MAX, size, &bytes);
    if (err == MPI_SUCCESS) {
        *size = (int)bytes;
    }
    return err;
}

MPI_API int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                            MPI_Count *size)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Pack_size_c");
    return pack_size("MPI_Pack_size_c", incount, datatype, comm, PTRDIFF_MAX, size, size);
}
MPI_PMPI_ALIAS(Pack_size_c,
               (MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size));

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
static int pack_ext_check(const char *call, const char *datarep, MPI_Count count, MPI_Datatype dt,
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

/* Pack_external (unpack false) and Unpack_external, both forms: count elements of dt between
 * buf and the external32 bytes at ext + *position (size bytes). */
static int pack_ext(const char *call, bool unpack, const char *datarep, void *ext, MPI_Count size,
                    MPI_Aint *position, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    mpi_type_t *t = NULL;
    size_t bytes;
    int rc;

    rc = pack_ext_check(call, datarep, count, datatype, (MPI_Aint)size, position, &t, &bytes);
    if (rc != MPI_SUCCESS || bytes == 0) {
        return rc;
    }
    rc = unpack ? mpi_type_ext_unpack(t, (const char *)ext + *position, (size_t)count, buf)
                : mpi_type_ext_pack(t, buf, (size_t)count, (char *)ext + *position);
    if (rc != MPI_SUCCESS) {
        return pack_ext_fail(call, rc);
    }
    *position += (MPI_Aint)bytes;
    return MPI_SUCCESS;
}

MPI_API int MPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                              MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                              MPI_Aint *position)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Pack_external");
    return pack_ext("MPI_Pack_external", false, datarep, outbuf, outsize, position, (void *)inbuf,
                    incount, datatype);
}
MPI_PMPI_ALIAS(Pack_external,
               (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                void *outbuf, MPI_Aint outsize, MPI_Aint *position));

MPI_API int MPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                                MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                                MPI_Count *position)
{
    MPI_MT_GUARD();
    MPI_Aint pos = position != NULL ? (MPI_Aint)*position : -1;
    int rc;

    MPI_CHECK_ACTIVE("MPI_Pack_external_c");
    rc = pack_ext("MPI_Pack_external_c", false, datarep, outbuf, outsize,
                  position != NULL ? &pos : NULL, (void *)inbuf, incount, datatype);
    if (rc == MPI_SUCCESS) {
        *position = pos;
    }
    return rc;
}
MPI_PMPI_ALIAS(Pack_external_c,
               (const char datarep[], const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                void *outbuf, MPI_Count outsize, MPI_Count *position));

MPI_API int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                                MPI_Aint *position, void *outbuf, int outcount,
                                MPI_Datatype datatype)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Unpack_external");
    return pack_ext("MPI_Unpack_external", true, datarep, (void *)inbuf, insize, position, outbuf,
                    outcount, datatype);
}
MPI_PMPI_ALIAS(Unpack_external,
               (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                void *outbuf, int outcount, MPI_Datatype datatype));

MPI_API int MPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                                  MPI_Count *position, void *outbuf, MPI_Count outcount,
                                  MPI_Datatype datatype)
{
    MPI_MT_GUARD();
    MPI_Aint pos = position != NULL ? (MPI_Aint)*position : -1;
    int rc;

    MPI_CHECK_ACTIVE("MPI_Unpack_external_c");
    rc = pack_ext("MPI_Unpack_external_c", true, datarep, (void *)inbuf, insize,
                  position != NULL ? &pos : NULL, outbuf, outcount, datatype);
    if (rc == MPI_SUCCESS) {
        *position = pos;
    }
    return rc;
}
MPI_PMPI_ALIAS(Unpack_external_c,
               (const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position,
                void *outbuf, MPI_Count outcount, MPI_Datatype datatype));

/* external32 has no header either: count x the external size of one element */
static int pack_ext_size(const char *call, const char *datarep, MPI_Count incount,
                         MPI_Datatype datatype, MPI_Aint *size)
{
    mpi_type_t *t = NULL;
    size_t bytes;
    int err;

    if ((err = ext_datarep(call, datarep)) != MPI_SUCCESS) {
        return err;
    }
    if (incount < 0) {
        return mpi_err(NULL, call, MPI_ERR_COUNT, "negative count %lld", incount);
    }
    if (size == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "size is NULL");
    }
    if ((err = mpi_type_check(NULL, call, datatype, false, &t)) != MPI_SUCCESS) {
        return err;
    }
    if (__builtin_mul_overflow((size_t)incount, mpi_type_ext_size(t), &bytes) ||
        bytes > (size_t)PTRDIFF_MAX) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "%lld elements of %zu bytes overflow an MPI_Aint",
                       incount, mpi_type_ext_size(t));
    }
    *size = (MPI_Aint)bytes;
    return MPI_SUCCESS;
}

MPI_API int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                   MPI_Aint *size)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Pack_external_size");
    return pack_ext_size("MPI_Pack_external_size", datarep, incount, datatype, size);
}
MPI_PMPI_ALIAS(Pack_external_size,
               (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size));

MPI_API int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                                     MPI_Count *size)
{
    MPI_MT_GUARD();
    MPI_Aint n;
    int rc;

    MPI_CHECK_ACTIVE("MPI_Pack_external_size_c");
    rc = pack_ext_size("MPI_Pack_external_size_c", datarep, incount, datatype,
                       size != NULL ? &n : NULL);
    if (rc == MPI_SUCCESS) {
        *size = n;
    }
    return rc;
}
MPI_PMPI_ALIAS(Pack_external_size_c,
               (const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count *size));
