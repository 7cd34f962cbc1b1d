/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI face's windows, the engine under their bindings (mpi_win.h): a window's lookup at
 * the start of a call, its errors, and the settling of the temporaries of noncontiguous
 * origin buffers once their operations are complete.
 */
#include "mpi/mpi_win.h"

#include <stdlib.h>

mpi_win_t *mpi_win_enter(MPI_Win win, const char *call, int *err_p)
{
    mpi_win_t *w;

    *err_p = MPI_SUCCESS;
    if (mpi_state != MPI_STATE_ACTIVE) {
        *err_p = mpi_check_active(call);
        return NULL;
    }
    w = mpi_handle_get(MPI_KIND_WIN_, win);
    if (w == NULL) {
        *err_p = mpi_err(NULL, call, MPI_ERR_WIN, "%s: invalid window", call);
    }
    return w;
}

int mpi_win_status(mpi_win_t *w, const char *call, rcmsg_status_t s)
{
    return s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(w->c, call, s);
}

void mpi_win_settle(mpi_win_t *w, int target)
{
    mpi_win_tmp_t **pp = &w->tmps;

    while (*pp != NULL) {
        mpi_win_tmp_t *t = *pp;
        if (target >= 0 && t->target != target) {
            pp = &t->next;
            continue;
        }
        if (t->dest != NULL) {
            mpi_type_unpack(t->t, t->tmp, t->count, t->dest);
            mpi_type_release(t->t);
        }
        *pp = t->next;
        free(t->tmp);
        free(t);
    }
}
