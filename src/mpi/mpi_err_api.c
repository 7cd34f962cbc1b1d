/* SPDX-License-Identifier: BSD-3-Clause */
/* The calls of errors and error handlers (bindings over mpi_err.c's objects). */
#include "mpi/mpi_engines.h"

int MPI_Error_class(int errorcode, int *errorclass)
{
    MPI_MT_GUARD();
    if (!mpi_err_code_valid(errorcode)) {
        return mpi_err(NULL, "MPI_Error_class", MPI_ERR_ARG, "invalid error code %d", errorcode);
    }
    *errorclass = mpi_err_class(errorcode);
    return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
    MPI_MT_GUARD();
    if (!mpi_err_code_valid(errorcode)) {
        return mpi_err(NULL, "MPI_Error_string", MPI_ERR_ARG, "invalid error code %d", errorcode);
    }
    *resultlen = mpi_err_string(errorcode, string);
    return MPI_SUCCESS;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler)
{
    MPI_MT_GUARD();
    int err;

    if (function == NULL || errhandler == NULL) {
        return mpi_err(NULL, "MPI_Comm_create_errhandler", MPI_ERR_ARG, "NULL %s",
                       function == NULL ? "function" : "errhandler");
    }
    err = mpi_errh_create(function, errhandler);
    if (err != MPI_SUCCESS) {
        return mpi_err(NULL, "MPI_Comm_create_errhandler", err,
                       err == MPI_ERR_NO_MEM ? "out of memory" : "out of handles");
    }
    return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c = mpi_comm_check(comm, "MPI_Comm_set_errhandler", &err);

    if (c == NULL) {
        return err;
    }
    if (!mpi_errh_valid(errhandler)) {
        return mpi_err(c, "MPI_Comm_set_errhandler", MPI_ERR_ARG, "invalid errhandler %#x",
                       (unsigned)errhandler);
    }
    mpi_errh_set(c, errhandler);
    return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c = mpi_comm_check(comm, "MPI_Comm_get_errhandler", &err);

    if (c == NULL) {
        return err;
    }
    if (errhandler == NULL) {
        return mpi_err(c, "MPI_Comm_get_errhandler", MPI_ERR_ARG, "errhandler is NULL");
    }
    *errhandler = mpi_errh_get(c);
    return MPI_SUCCESS;
}

int MPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    MPI_MT_GUARD();
    if (errhandler == NULL || !mpi_errh_valid(*errhandler)) {
        return mpi_err(NULL, "MPI_Errhandler_free", MPI_ERR_ARG, "invalid errhandler");
    }
    mpi_errh_free(errhandler);
    return MPI_SUCCESS;
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c = mpi_comm_check(comm, "MPI_Comm_call_errhandler", &err);

    if (c == NULL) {
        return err;
    }
    mpi_errh_call(c, errorcode);
    return MPI_SUCCESS;
}

/* The names MPI-3.0 removed (MPICH still provides them): the Comm_ calls. */
int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return MPI_Comm_create_errhandler(function, errhandler);
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return MPI_Comm_set_errhandler(comm, errhandler);
}

int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return MPI_Comm_get_errhandler(comm, errhandler);
}
