/* SPDX-License-Identifier: BSD-3-Clause */
/* The calls of attributes (bindings over mpi_attr.c's objects): keyvals, set and delete, and
 * the MPI-1 names. MPI_Comm_get_attr is mpi_env.c's (the predefined attributes). */
#include "mpi/mpi_engines.h"

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                           void *extra_state)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Comm_create_keyval");
    if (comm_keyval == NULL) {
        return mpi_err(NULL, "MPI_Comm_create_keyval", MPI_ERR_ARG, "NULL comm_keyval");
    }
    if (mpi_keyval_new(comm_copy_attr_fn, comm_delete_attr_fn, extra_state, comm_keyval) !=
        MPI_SUCCESS) {
        return mpi_err(NULL, "MPI_Comm_create_keyval", MPI_ERR_NO_MEM, "out of memory");
    }
    return MPI_SUCCESS;
}

int MPI_Comm_free_keyval(int *comm_keyval)
{
    MPI_MT_GUARD();
    int err;

    MPI_CHECK_ACTIVE("MPI_Comm_free_keyval");
    if (comm_keyval == NULL) {
        return mpi_err(NULL, "MPI_Comm_free_keyval", MPI_ERR_ARG, "NULL comm_keyval");
    }
    if ((err = mpi_check_keyval(NULL, "MPI_Comm_free_keyval", *comm_keyval)) != MPI_SUCCESS) {
        return err;
    }
    mpi_keyval_release(*comm_keyval);
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    MPI_MT_GUARD();
    const char *call = "MPI_Comm_set_attr";
    int err;
    bool callback;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE(call);
    if ((c = mpi_comm_check(comm, call, &err)) == NULL ||
        (err = mpi_check_keyval(c, call, comm_keyval)) != MPI_SUCCESS) {
        return err;
    }
    err = mpi_attr_set(c, comm_keyval, attribute_val, &callback);
    if (err != MPI_SUCCESS && callback) {
        return mpi_err(c, call, err, "the delete callback of keyval %d failed", comm_keyval);
    }
    if (err != MPI_SUCCESS) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    return MPI_SUCCESS;
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    MPI_MT_GUARD();
    const char *call = "MPI_Comm_delete_attr";
    int err;
    bool set;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE(call);
    if ((c = mpi_comm_check(comm, call, &err)) == NULL ||
        (err = mpi_check_keyval(c, call, comm_keyval)) != MPI_SUCCESS) {
        return err;
    }
    err = mpi_attr_remove(c, comm_keyval, &set);
    if (!set) {
        return mpi_err(c, call, MPI_ERR_KEYVAL, "keyval %d is not set on %s", comm_keyval, c->name);
    }
    if (err != MPI_SUCCESS) {
        return mpi_err(c, call, err, "the delete callback of keyval %d failed", comm_keyval);
    }
    return MPI_SUCCESS;
}

/* the MPI-1 names */
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                      void *extra_state)
{
    MPI_MT_GUARD();
    return MPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

int MPI_Keyval_free(int *keyval)
{
    MPI_MT_GUARD();
    return MPI_Comm_free_keyval(keyval);
}

int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    MPI_MT_GUARD();
    return MPI_Comm_set_attr(comm, keyval, attribute_val);
}

int MPI_Attr_delete(MPI_Comm comm, int keyval)
{
    MPI_MT_GUARD();
    return MPI_Comm_delete_attr(comm, keyval);
}
