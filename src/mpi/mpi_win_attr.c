/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a window keeps for the program (bindings): attributes of the program's keyvals
 * (MPI-3.1 6.7.3; the keyvals in mpi_type_attr.c's store, of the window kind; a window is never
 * copied, so only the delete callbacks run: at Win_set_attr over a value, Win_delete_attr and
 * Win_free), info hints (Win_set_info / get_info over mpi_win_hints.c: the hints given at
 * creation or by Win_set_info, else their defaults) and the program's window error handlers (a
 * communicator's handler object, called with the window's handle: mpi_win.c sets it).
 * The predefined attributes and Win_get_attr are in mpi_win.c.
 */
#include "mpi/mpi_win.h"

int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                          MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_create_keyval";
    int err;

    MPI_CHECK_ACTIVE(call);
    if (win_keyval == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "win_keyval is NULL");
    }
    err = mpi_tkeyval_new_of(MPI_KIND_WIN_, win_copy_attr_fn, win_delete_attr_fn, extra_state,
                             win_keyval);
    return err == MPI_SUCCESS ? err : mpi_err(NULL, call, err, "out of memory");
}

int MPI_Win_free_keyval(int *win_keyval)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_free_keyval";

    MPI_CHECK_ACTIVE(call);
    if (win_keyval == NULL || !mpi_tkeyval_live_of(MPI_KIND_WIN_, *win_keyval)) {
        return mpi_err(NULL, call, win_keyval == NULL ? MPI_ERR_ARG : MPI_ERR_KEYVAL, "%s",
                       win_keyval == NULL ? "win_keyval is NULL" : "not a window keyval");
    }
    mpi_tkeyval_release(*win_keyval);
    *win_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* the window of a call on the program's keyval k, or NULL with the error raised in *err_p */
static mpi_win_t *win_keyval_enter(MPI_Win win, int k, const char *call, int *err_p)
{
    mpi_win_t *w = mpi_win_enter(win, call, err_p);

    if (w != NULL && !mpi_tkeyval_live_of(MPI_KIND_WIN_, k)) {
        *err_p = mpi_err(w->c, call, MPI_ERR_KEYVAL, "invalid window keyval %d", k);
        return NULL;
    }
    return w;
}

int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_set_attr";
    int err;
    mpi_win_t *w = win_keyval_enter(win, win_keyval, call, &err);

    if (w == NULL) {
        return err;
    }
    err = mpi_tattr_set(&w->attrs, win, win_keyval, attribute_val);
    return err == MPI_SUCCESS ? err
                              : mpi_err(w->c, call, err, "the old value's delete callback failed");
}

int MPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_delete_attr";
    bool found;
    int err;
    mpi_win_t *w = win_keyval_enter(win, win_keyval, call, &err);

    if (w == NULL) {
        return err;
    }
    err = mpi_tattr_delete(&w->attrs, win, win_keyval, &found);
    if (!found) {
        return mpi_err(w->c, call, MPI_ERR_KEYVAL, "no attribute of keyval %d on the window",
                       win_keyval);
    }
    return err == MPI_SUCCESS ? err : mpi_err(w->c, call, err, "the delete callback failed");
}

int MPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_set_info";
    int err;
    mpi_win_t *w = mpi_win_enter(win, call, &err);
    mpi_info_t *i;

    if (w == NULL) {
        return err;
    }
    if ((i = mpi_info_get(info)) == NULL) {
        return mpi_err(w->c, call, MPI_ERR_INFO, "invalid info %#x", info);
    }
    mpi_win_hints_take(w, i);
    return MPI_SUCCESS;
}

int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_get_info";
    int err;
    mpi_info_t *i;
    mpi_win_t *w = mpi_win_enter(win, call, &err);

    if (w == NULL) {
        return err;
    }
    if (info_used == NULL) {
        return mpi_err(w->c, call, MPI_ERR_ARG, "info_used is NULL");
    }
    err = mpi_info_new(info_used, &i);
    if (err == MPI_SUCCESS && (err = mpi_win_hints_put(w, i)) != MPI_SUCCESS) {
        mpi_info_release(info_used);
    }
    return err == MPI_SUCCESS ? err : mpi_err(w->c, call, err, "out of memory");
}

int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                              MPI_Errhandler *errhandler)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_create_errhandler";
    int err;

    MPI_CHECK_ACTIVE(call);
    if (win_errhandler_fn == NULL || errhandler == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "%s is NULL",
                       errhandler == NULL ? "errhandler" : "win_errhandler_fn");
    }
    err = mpi_errh_create(win_errhandler_fn, errhandler);
    return err == MPI_SUCCESS ? err : mpi_err(NULL, call, err, "out of memory");
}
