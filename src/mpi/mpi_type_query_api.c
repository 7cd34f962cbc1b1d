/* SPDX-License-Identifier: BSD-3-Clause */
/* The calls that commit, free and query datatypes (bindings over mpi_type.c's objects):
 * Type_commit, Type_free, Type_size(_x, _c), Type_get_extent(_x, _c),
 * Type_get_true_extent(_x, _c), Get_address (and MPI-3.0's removed Address). The constructors:
 * mpi_type_api.c. */
#include "mpi/mpi_engines.h"
#include "mpi/mpi_type.h"

#include <limits.h>

static int type_check(const char *call, MPI_Datatype dt, mpi_type_t **t_p)
{
    return mpi_type_check(NULL, call, dt, false, t_p);
}

/* Commit and Free: the type behind a handle passed by pointer (MPI active, not NULL) */
static int type_check_ref(const char *call, const MPI_Datatype *datatype, mpi_type_t **t_p)
{
    MPI_CHECK_ACTIVE(call);
    if (datatype == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "datatype is NULL");
    }
    return type_check(call, *datatype, t_p);
}

MPI_API int MPI_Type_commit(MPI_Datatype *datatype)
{
    MPI_MT_GUARD();
    mpi_type_t *t = NULL;
    int rc = type_check_ref("MPI_Type_commit", datatype, &t);

    if (rc == MPI_SUCCESS) {
        t->committed = true; /* flattened at construction: nothing else to do */
    }
    return rc;
}

/* Type_free releases the handle; the type lives on while a parent type or a pending
 * operation holds a reference (mpi_type_retain). */
MPI_API int MPI_Type_free(MPI_Datatype *datatype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_free";
    mpi_type_t *t = NULL;
    int rc = type_check_ref(call, datatype, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (t->predefined) {
        return mpi_err(NULL, call, MPI_ERR_TYPE,
                       "cannot free the predefined datatype %s (0x%x): only the types the "
                       "program built (MPI_Type_dup included) can be freed",
                       mpi_type_predef_name(*datatype), (unsigned)*datatype);
    }
    if (mpi_type_is_f90(t)) {
        return mpi_err(NULL, call, MPI_ERR_TYPE,
                       "cannot free %s (0x%x): MPI calls the types of MPI_Type_create_f90_* "
                       "predefined",
                       t->name != NULL ? t->name : "an f90 type", (unsigned)*datatype);
    }
    if ((rc = mpi_tattr_delete_all(&t->attrs, *datatype)) != MPI_SUCCESS) {
        return mpi_err(NULL, call, rc, "an attribute's delete callback failed");
    }
    mpi_handle_release(MPI_KIND_DATATYPE_, t->handle);
    t->handle = MPI_DATATYPE_NULL;
    mpi_type_release(t);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

/* The type of a query; NULL out pointers are MPI_ERR_ARG. */
static int type_query(const char *call, MPI_Datatype dt, const void *out1, const void *out2,
                      mpi_type_t **t_p)
{
    if (out1 == NULL || out2 == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "an output argument is NULL");
    }
    return type_check(call, dt, t_p);
}

/* Type_size (x false: *size is an int, MPI_UNDEFINED when the size does not fit one) and
 * Type_size_x (x: an MPI_Count). */
static int type_get_size(const char *call, MPI_Datatype dt, bool x, void *size)
{
    mpi_type_t *t = NULL;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = type_query(call, dt, size, size, &t);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (x) {
        *(MPI_Count *)size = (MPI_Count)t->size;
    } else {
        *(int *)size = t->size > INT_MAX ? MPI_UNDEFINED : (int)t->size;
    }
    return MPI_SUCCESS;
}

MPI_API int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    MPI_MT_GUARD();
    return type_get_size("MPI_Type_size_x", datatype, true, size);
}

MPI_API int MPI_Type_size(MPI_Datatype datatype, int *size)
{
    MPI_MT_GUARD();
    return type_get_size("MPI_Type_size", datatype, false, size);
}

/* The Type_get_extent family: the bounds (true_bounds: those of the data) into lb and extent,
 * which point to MPI_Aint, or to MPI_Count for the _x calls (x). */
static int type_get_extent(const char *call, MPI_Datatype dt, bool true_bounds, bool x, void *lb,
                           void *extent)
{
    mpi_type_t *t = NULL;
    MPI_Aint l, e;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = type_query(call, dt, lb, extent, &t);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    l = true_bounds ? t->true_lb : t->lb;
    e = true_bounds ? t->true_ub - t->true_lb : t->extent;
    if (x) {
        *(MPI_Count *)lb = l;
        *(MPI_Count *)extent = e;
    } else {
        *(MPI_Aint *)lb = l;
        *(MPI_Aint *)extent = e;
    }
    return MPI_SUCCESS;
}

MPI_API int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    MPI_MT_GUARD();
    return type_get_extent("MPI_Type_get_extent", datatype, false, false, lb, extent);
}

MPI_API int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    MPI_MT_GUARD();
    return type_get_extent("MPI_Type_get_extent_x", datatype, false, true, lb, extent);
}

MPI_API int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                                     MPI_Aint *true_extent)
{
    MPI_MT_GUARD();
    return type_get_extent("MPI_Type_get_true_extent", datatype, true, false, true_lb, true_extent);
}

MPI_API int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                       MPI_Count *true_extent)
{
    MPI_MT_GUARD();
    return type_get_extent("MPI_Type_get_true_extent_x", datatype, true, true, true_lb,
                           true_extent);
}

MPI_API int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    MPI_MT_GUARD();
    return type_get_size("MPI_Type_size_c", datatype, true, size);
}
MPI_PMPI_ALIAS(Type_size_c, (MPI_Datatype datatype, MPI_Count *size));

MPI_API int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    MPI_MT_GUARD();
    return type_get_extent("MPI_Type_get_extent_c", datatype, false, true, lb, extent);
}
MPI_PMPI_ALIAS(Type_get_extent_c, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent));

MPI_API int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb,
                                       MPI_Count *true_extent)
{
    MPI_MT_GUARD();
    return type_get_extent("MPI_Type_get_true_extent_c", datatype, true, true, true_lb,
                           true_extent);
}
MPI_PMPI_ALIAS(Type_get_true_extent_c,
               (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent));

/* Valid before Init and after Finalize too (it touches no state). */
MPI_API int MPI_Get_address(const void *location, MPI_Aint *address)
{
    MPI_MT_GUARD();
    if (address == NULL) {
        return mpi_err(NULL, "MPI_Get_address", MPI_ERR_ARG, "address is NULL");
    }
    *address = (MPI_Aint)location;
    return MPI_SUCCESS;
}

/* ---- the name MPI-3.0 removed (MPICH still provides it): the call that replaces it ---- */
int MPI_Address(void *location, MPI_Aint *address)
{
    return MPI_Get_address(location, address);
}
