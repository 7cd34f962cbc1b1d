/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A status's counts: Get_count, Get_elements, and their MPI_Count forms (Get_elements_x,
 * and MPI-4.0's large-count Get_count_c, Get_elements_c): each pair over one function.
 */
#include "mpi/mpi_engines.h"
#include "mpi/mpi_type.h"

#include <limits.h>

/* Get_count's work: the elements of datatype the status's bytes are (0 for a 0-byte type),
 * MPI_UNDEFINED when they are not whole ones or more than limit. */
static int get_count(const char *call, const MPI_Status *status, MPI_Datatype datatype,
                     MPI_Count limit, MPI_Count *count)
{
    mpi_type_t *t = mpi_type_get(datatype);
    MPI_Count bytes;
    size_t size;

    if (status == NULL || status == MPI_STATUS_IGNORE || count == NULL || t == NULL) {
        return mpi_err(NULL, call, t == NULL ? MPI_ERR_TYPE : MPI_ERR_ARG, "%s",
                       t == NULL ? "invalid datatype" : "no status or NULL count");
    }
    bytes = mpi_status_bytes(status);
    size = mpi_type_size(t);
    if (size == 0) {
        *count = 0;
    } else if (bytes % (MPI_Count)size != 0 || bytes / (MPI_Count)size > limit) {
        *count = MPI_UNDEFINED;
    } else {
        *count = bytes / (MPI_Count)size;
    }
    return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_MT_GUARD();
    MPI_Count n;
    int err = get_count("MPI_Get_count", status, datatype, INT_MAX, count == NULL ? NULL : &n);

    if (err == MPI_SUCCESS) {
        *count = (int)n;
    }
    return err;
}

int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    MPI_MT_GUARD();
    return get_count("MPI_Get_count_c", status, datatype, LLONG_MAX, count);
}
MPI_PMPI_ALIAS(Get_count_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));

static int get_elements(const char *call, const MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count *count)
{
    mpi_type_t *t = mpi_type_get(datatype);

    if (status == NULL || status == MPI_STATUS_IGNORE || count == NULL || t == NULL) {
        return mpi_err(NULL, call, t == NULL ? MPI_ERR_TYPE : MPI_ERR_ARG, "%s",
                       t == NULL ? "invalid datatype" : "no status or NULL count");
    }
    mpi_type_basic_count(t, (size_t)mpi_status_bytes(status), count);
    return MPI_SUCCESS;
}

int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    MPI_MT_GUARD();
    return get_elements("MPI_Get_elements_x", status, datatype, count);
}

int MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    MPI_MT_GUARD();
    return get_elements("MPI_Get_elements_c", status, datatype, count);
}
MPI_PMPI_ALIAS(Get_elements_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_MT_GUARD();
    MPI_Count n;
    int err = get_elements("MPI_Get_elements", status, datatype, count == NULL ? NULL : &n);

    if (err == MPI_SUCCESS) {
        *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    }
    return err;
}
