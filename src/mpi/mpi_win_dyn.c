/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI face's dynamic windows (MPI-3.1 11.2.4; mpi_win.h): Win_attach and Win_detach over
 * rcmsg.h's dynamic windows (rcmsg_win_create_dynamic, whose members attach regions alone and
 * whose accesses name the target's address; docs/osc.md). Win_create_dynamic makes the window
 * as the other flavors (mpi_win.c): flavor MPI_WIN_FLAVOR_DYNAMIC, base MPI_BOTTOM, size 0,
 * disp_unit 1, so that a target_disp (an MPI_Aint from MPI_Get_address) is the target's
 * address, checked to lie inside the regions it attached (mpi_win_rma.c, before anything is
 * posted), and every communication and synchronization call works on it as on the others.
 */
#include "mpi/mpi_win.h"

/* The dynamic window of a call, or NULL with the error raised in *err_p. */
static mpi_win_t *dyn_enter(MPI_Win win, const char *call, const void *base, int *err_p)
{
    mpi_win_t *w = mpi_win_enter(win, call, err_p);

    if (w != NULL && w->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        *err_p = mpi_err(w->c, call, MPI_ERR_RMA_FLAVOR,
                         "%s: not a window of MPI_Win_create_dynamic", call);
        return NULL;
    }
    if (w != NULL && base == NULL) {
        *err_p = mpi_err(w->c, call, MPI_ERR_ARG, "%s: base is NULL", call);
        return NULL;
    }
    return w;
}

int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_attach";
    int err;
    mpi_win_t *w = dyn_enter(win, call, base, &err);
    rcmsg_status_t s;

    if (w == NULL) {
        return err;
    }
    if (size < 0) {
        return mpi_err(w->c, call, MPI_ERR_SIZE, "%s: negative size %lld", call, (long long)size);
    }
    s = rcmsg_win_attach(w->data, base, (size_t)size);
    if (s == RCMSG_ERR_INVALID_PARAM || s == RCMSG_ERR_NO_RESOURCE) {
        return mpi_err(w->c, call, mpi_err_code(MPI_ERR_RMA_ATTACH, s), "%s: %lld bytes at %p: %s",
                       call, (long long)size, base,
                       s == RCMSG_ERR_NO_RESOURCE
                           ? "1024 regions are attached already (the most)"
                           : "they overlap a region attached already (or wrap around)");
    }
    return s == RCMSG_OK ? MPI_SUCCESS : mpi_win_status(w, call, s);
}

int MPI_Win_detach(MPI_Win win, const void *base)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_detach";
    int err;
    mpi_win_t *w = dyn_enter(win, call, base, &err);
    rcmsg_status_t s;

    if (w == NULL) {
        return err;
    }
    s = rcmsg_win_detach(w->data, base);
    if (s == RCMSG_ERR_NOT_FOUND) {
        return mpi_err(w->c, call, mpi_err_code(MPI_ERR_RMA_RANGE, s),
                       "%s: no region is attached at %p", call, base);
    }
    return s == RCMSG_OK ? MPI_SUCCESS : mpi_win_status(w, call, s);
}
