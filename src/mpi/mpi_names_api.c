/* SPDX-License-Identifier: BSD-3-Clause */
/* Small calls of issue 43 item 1 (bindings): address arithmetic, handle conversions (a
 * Fortran handle is the C handle's value), status setters, the program's error classes and
 * codes, and the deprecated or removed names MPICH still provides, each over its replacement's
 * objects. */
#include "mpi/mpi_engines.h"
#include "mpi/mpi_type.h"

#include <string.h>

/* ---- addresses ------------------------------------------------------------------------------ */
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

/* ---- handle conversions -----------------------------------------------------------------------
 * each with its profiling name (PMPI_X_c2f, PMPI_X_f2c), the same function */
#define MPI_C2F(T, name)                                                                           \
    MPI_Fint MPI_##name##_c2f(T h)                                                                 \
    {                                                                                              \
        return (MPI_Fint)h;                                                                        \
    }                                                                                              \
    T MPI_##name##_f2c(MPI_Fint h)                                                                 \
    {                                                                                              \
        return (T)h;                                                                               \
    }                                                                                              \
    MPI_Fint PMPI_##name##_c2f(T h) __attribute__((alias("MPI_" #name "_c2f")));                   \
    T PMPI_##name##_f2c(MPI_Fint h) __attribute__((alias("MPI_" #name "_f2c")));
MPI_C2F(MPI_Comm, Comm)
MPI_C2F(MPI_Datatype, Type)
MPI_C2F(MPI_Group, Group)
MPI_C2F(MPI_Op, Op)
MPI_C2F(MPI_Info, Info)
MPI_C2F(MPI_Request, Request)
MPI_C2F(MPI_Errhandler, Errhandler)
MPI_C2F(MPI_Message, Message)
MPI_C2F(MPI_Win, Win)
#undef MPI_C2F

/* A Fortran status is the C status's five integers, in order. */
int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    if (c_status == NULL || c_status == MPI_STATUS_IGNORE || f_status == NULL ||
        f_status == MPI_F_STATUS_IGNORE) {
        return mpi_err(NULL, "MPI_Status_c2f", MPI_ERR_ARG, "no status (NULL or IGNORE)");
    }
    memcpy(f_status, c_status, sizeof(*c_status));
    return MPI_SUCCESS;
}

int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    if (c_status == NULL || c_status == MPI_STATUS_IGNORE || f_status == NULL ||
        f_status == MPI_F_STATUS_IGNORE) {
        return mpi_err(NULL, "MPI_Status_f2c", MPI_ERR_ARG, "no status (NULL or IGNORE)");
    }
    memcpy(c_status, f_status, sizeof(*c_status));
    return MPI_SUCCESS;
}

/* ---- status setters (for generalized requests' query functions) -------------------------------
 */
/* Set_elements(_x): the status then holds the bytes of count basic elements of datatype, so
 * that Get_elements gives count back and Get_count count / (basic elements of one). */
static int status_set_elements(const char *call, MPI_Status *status, MPI_Datatype datatype,
                               MPI_Count count)
{
    mpi_type_t *t = NULL;
    MPI_Count bytes;
    int err;

    MPI_CHECK_ACTIVE(call);
    if (status == NULL || status == MPI_STATUS_IGNORE || count < 0) {
        return mpi_err(NULL, call, count < 0 ? MPI_ERR_COUNT : MPI_ERR_ARG,
                       count < 0 ? "negative count %lld" : "no status (NULL or IGNORE)",
                       (long long)count);
    }
    if ((err = mpi_type_check(NULL, call, datatype, false, &t)) != MPI_SUCCESS) {
        return err;
    }
    if (t->basic == 0) {
        bytes = 0;
    } else if (count % t->basic == 0) {
        bytes = count / t->basic * (MPI_Count)t->size;
    } else { /* a partial element: its basic elements taken as of equal size */
        bytes = count * (MPI_Count)t->size / t->basic;
    }
    mpi_status_set(status, status->MPI_SOURCE, status->MPI_TAG, bytes, status->MPI_ERROR,
                   mpi_status_cancelled(status));
    return MPI_SUCCESS;
}

int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    MPI_MT_GUARD();
    return status_set_elements("MPI_Status_set_elements", status, datatype, count);
}

int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    MPI_MT_GUARD();
    return status_set_elements("MPI_Status_set_elements_x", status, datatype, count);
}

int MPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Status_set_cancelled");
    if (status == NULL || status == MPI_STATUS_IGNORE) {
        return mpi_err(NULL, "MPI_Status_set_cancelled", MPI_ERR_ARG, "no status (NULL or IGNORE)");
    }
    mpi_status_set(status, status->MPI_SOURCE, status->MPI_TAG, mpi_status_bytes(status),
                   status->MPI_ERROR, flag != 0);
    return MPI_SUCCESS;
}

/* ---- the program's error classes, codes and strings --------------------------------------- */
int MPI_Add_error_class(int *errorclass)
{
    MPI_MT_GUARD();
    int err;

    MPI_CHECK_ACTIVE("MPI_Add_error_class");
    if (errorclass == NULL) {
        return mpi_err(NULL, "MPI_Add_error_class", MPI_ERR_ARG, "errorclass is NULL");
    }
    err = mpi_err_add_class(errorclass);
    return err == MPI_SUCCESS
               ? err
               : mpi_err(NULL, "MPI_Add_error_class", err, "no error class left (192 at most)");
}

int MPI_Add_error_code(int errorclass, int *errorcode)
{
    MPI_MT_GUARD();
    int err;

    MPI_CHECK_ACTIVE("MPI_Add_error_code");
    if (errorcode == NULL || !mpi_err_is_class(errorclass)) {
        return mpi_err(NULL, "MPI_Add_error_code", MPI_ERR_ARG,
                       errorcode == NULL ? "errorcode is NULL"
                                         : "%d is not an error class (predefined, other than "
                                           "MPI_SUCCESS, or one MPI_Add_error_class gave)",
                       errorclass);
    }
    err = mpi_err_add_code(errorclass, errorcode);
    return err == MPI_SUCCESS ? err
                              : mpi_err(NULL, "MPI_Add_error_code", err, "no error code left");
}

int MPI_Add_error_string(int errorcode, const char *string)
{
    MPI_MT_GUARD();
    int err;

    MPI_CHECK_ACTIVE("MPI_Add_error_string");
    if (string == NULL || strlen(string) >= MPI_MAX_ERROR_STRING) {
        return mpi_err(NULL, "MPI_Add_error_string", MPI_ERR_ARG,
                       string == NULL ? "string is NULL" : "string longer than %d characters",
                       MPI_MAX_ERROR_STRING - 1);
    }
    if (!mpi_err_user(errorcode)) {
        return mpi_err(NULL, "MPI_Add_error_string", MPI_ERR_ARG,
                       "%d is not an error class or code the program added", errorcode);
    }
    err = mpi_err_add_string(errorcode, string);
    return err == MPI_SUCCESS ? err : mpi_err(NULL, "MPI_Add_error_string", err, "out of memory");
}

/* ---- deprecated names ------------------------------------------------------------------------ */
/* Type_extent, Type_lb, Type_ub: from Type_get_extent */
static int type_bound(const char *call, MPI_Datatype datatype, MPI_Aint *out, int which)
{
    MPI_MT_GUARD();
    mpi_type_t *t = NULL;
    int err;

    MPI_CHECK_ACTIVE(call);
    if (out == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "the output argument is NULL");
    }
    if ((err = mpi_type_check(NULL, call, datatype, false, &t)) != MPI_SUCCESS) {
        return err;
    }
    *out = which == 0 ? t->extent : which == 1 ? t->lb : t->lb + t->extent;
    return MPI_SUCCESS;
}

int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    return type_bound("MPI_Type_extent", datatype, extent, 0);
}

int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    return type_bound("MPI_Type_lb", datatype, displacement, 1);
}

int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    return type_bound("MPI_Type_ub", datatype, displacement, 2);
}

/* ---- profiling control ------------------------------------------------------------------- */
/* No profiling layer sits under the MPI face: MPI-3.1 14.2.4 leaves Pcontrol doing nothing. */
int MPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
