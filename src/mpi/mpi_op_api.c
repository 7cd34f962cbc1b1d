/* SPDX-License-Identifier: BSD-3-Clause */
/* The calls of operations (bindings over mpi_op.c): MPI_Op_create (and MPI-4.0's Op_create_c),
 * MPI_Op_free, MPI_Op_commutative, MPI_Reduce_local. */
#include "mpi/mpi_engines.h"

/* Op_create and Op_create_c: one of the two functions (the other NULL). */
static int op_create(const char *call, MPI_User_function *fn, MPI_User_function_c *fn_c,
                     int commute, MPI_Op *op)
{
    int err;

    if ((fn == NULL && fn_c == NULL) || op == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "NULL %s",
                       fn == NULL && fn_c == NULL ? "user function" : "op");
    }
    err = mpi_op_new(fn, fn_c, commute != 0, op);
    if (err != MPI_SUCCESS) {
        return mpi_err(NULL, call, err, "out of memory for a new operation");
    }
    return MPI_SUCCESS;
}

int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Op_create");
    return op_create("MPI_Op_create", user_fn, NULL, commute, op);
}

/* A user operation called with an MPI_Count length (in every reduction, Reduce_local too). */
int MPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Op_create_c");
    return op_create("MPI_Op_create_c", NULL, user_fn, commute, op);
}
MPI_PMPI_ALIAS(Op_create_c, (MPI_User_function_c * user_fn, int commute, MPI_Op *op));

int MPI_Op_free(MPI_Op *op)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Op_free");
    if (op == NULL || !mpi_op_valid(*op) || mpi_op_predefined(*op)) {
        return mpi_err(NULL, "MPI_Op_free", MPI_ERR_OP, "%s",
                       op != NULL && mpi_op_valid(*op) ? "a predefined operation cannot be freed"
                                                       : "invalid operation");
    }
    mpi_op_delete(op);
    return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int *commute)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Op_commutative");
    if (commute == NULL) {
        return mpi_err(NULL, "MPI_Op_commutative", MPI_ERR_ARG, "NULL commute");
    }
    if (op == MPI_REPLACE || op == MPI_NO_OP) {
        *commute = 0; /* the one-sided operations: the order matters (as MPICH answers) */
        return MPI_SUCCESS;
    }
    if (!mpi_op_valid(op)) {
        return mpi_err(NULL, "MPI_Op_commutative", MPI_ERR_OP, "invalid operation");
    }
    *commute = mpi_op_commutative(op);
    return MPI_SUCCESS;
}

int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    MPI_MT_GUARD();
    int err;

    MPI_CHECK_ACTIVE("MPI_Reduce_local");
    if (count < 0) {
        return mpi_err(NULL, "MPI_Reduce_local", MPI_ERR_COUNT, "negative count %d", count);
    }
    err = mpi_op_check(NULL, "MPI_Reduce_local", op, datatype);
    if (err != MPI_SUCCESS) {
        return err;
    }
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE) {
        return mpi_err(NULL, "MPI_Reduce_local", MPI_ERR_BUFFER,
                       "MPI_IN_PLACE is not allowed (as %s)",
                       inbuf == MPI_IN_PLACE ? "inbuf" : "inoutbuf");
    }
    if (count > 0 &&
        (err = mpi_check_alias(NULL, "MPI_Reduce_local", inbuf, inoutbuf)) != MPI_SUCCESS) {
        return err;
    }
    err = mpi_op_apply(op, inbuf, inoutbuf, count, datatype);
    if (err != MPI_SUCCESS) {
        return mpi_err(NULL, "MPI_Reduce_local", err, "out of memory");
    }
    return MPI_SUCCESS;
}

int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.rcount = count};
    mpi_c_out_t o;
    int err = mpi_c_all(MPI_COMM_WORLD, "MPI_Reduce_local_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = MPI_Reduce_local(inbuf, inoutbuf, o.rcount, datatype, op);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Reduce_local_c, (const void *inbuf, void *inoutbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op));
