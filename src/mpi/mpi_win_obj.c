/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI face's windows, the engine under their bindings (mpi_win.h): a window's lookup at
 * the start of a call, its errors, the settling of the temporaries of noncontiguous origin
 * buffers once their operations are complete, and the waits on a lock word another holds.
 *
 * Such a wait (mpi_win_spin) never outlives the holder: each round it backs off (a yield for
 * the first SPIN_YIELDS rounds, then sleeps from 16 us doubling to 1 ms), and tests a receive
 * from the holder on the window's communicator that nothing ever matches: rcmsg's liveness
 * then watches the holder (probes it over rc), and the receive fails once the holder is lost.
 * The target's loss fails the caller's own atomic on the word.
 */
#include "mpi/mpi_win.h"

#include <stdlib.h>
#include <time.h>

#define SPIN_YIELDS 64

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
    int holder = w->lost_holder - 1;

    if (s == RCMSG_OK) {
        return MPI_SUCCESS;
    }
    if (holder < 0) {
        return mpi_err_rcmsg(w->c, call, s);
    }
    w->lost_holder = 0;
    return mpi_err(w->c, call, mpi_err_code(mpi_err_class_of(s), s),
                   "window \"%s\": %s of target rank %d is held by rank %d, %s (%s)",
                   w->name[0] != '\0' ? w->name : "(no name)", w->lost_what, w->lost_target, holder,
                   holder == w->c->rank ? "this rank itself, which no longer holds it"
                                        : "which is lost: it will never be released",
                   rcmsg_status_name(s));
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

/* ---- waits on a held word ------------------------------------------------------------------ */

void mpi_win_spin_init(mpi_win_spin_t *sp, int target)
{
    *sp = (mpi_win_spin_t){.target = target, .watched = -1, .watch = RCMSG_REQUEST_NULL};
}

void mpi_win_spin_end(mpi_win_spin_t *sp)
{
    if (sp->watched >= 0) {
        (void)rcmsg_cancel(&sp->watch);
        (void)rcmsg_wait(&sp->watch, NULL); /* cancelled (or failed with the loss) */
        sp->watched = -1;
    }
}

/* A yield, then naps of 16 us doubling to 1 ms (rcmsg's lock let go while asleep). */
static void spin_back_off(unsigned round)
{
    rcmsg_thread_pause();
    if (round >= SPIN_YIELDS) {
        rcmsg_thread_nap(round - SPIN_YIELDS < 6 ? 16u << (round - SPIN_YIELDS) : 1000u);
    }
}

/* RCMSG_OK while rank's watch has not failed (posted for it first); its loss status once it
 * has (the test progresses rcmsg). */
static rcmsg_status_t spin_watch(mpi_win_t *w, mpi_win_spin_t *sp, int rank)
{
    int done = 0;
    rcmsg_status_t s;

    if (sp->watched != rank) {
        mpi_win_spin_end(sp);
        s = rcmsg_irecv(NULL, 0, rank, MPI_WIN_TAG_WATCH, w->c->rc, &sp->watch);
        if (s != RCMSG_OK) {
            return s;
        }
        sp->watched = rank;
    }
    s = rcmsg_test(&sp->watch, &done, NULL);
    if (done) {
        sp->watched = -1; /* a message for it (none is ever sent): posted again next round */
    }
    return s;
}

rcmsg_status_t mpi_win_spin(mpi_win_t *w, mpi_win_spin_t *sp, int holder, const char *what)
{
    rcmsg_status_t s = RCMSG_OK;

    spin_back_off(sp->rounds++);
    if (holder == w->c->rank) {
        /* another thread of this process holds it (MULTIPLE): wait; else left held by an
         * earlier call of this rank that failed */
        s = w->acc_held > 0 ? RCMSG_OK : RCMSG_ERR_STATE;
    } else if (holder >= 0) {
        s = spin_watch(w, sp, holder);
    }
    if (s != RCMSG_OK) {
        mpi_win_spin_end(sp);
        w->lost_holder = holder + 1;
        w->lost_target = sp->target;
        w->lost_what = what;
    }
    return s;
}
