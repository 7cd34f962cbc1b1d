/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI face's one-sided synchronization (mpi_win.h): fence, flushes, passive-target locks
 * and PSCW (post, start, complete, wait).
 *
 * Locks: each member has an 8-byte lock word in the window's lock window: an EXCLUSIVE holder
 * r writes r + 1 in its bits from LOCK_SHIFT up (LOCK_EXCL(r)), each SHARED holder adds 1 and
 * marks its byte among the member's slots (MPI_WIN_SLOT_BASE + r). A lock is taken by the
 * accumulates' atomics (rcmsg_acc_compare_swap for exclusive; for shared, the slot by a put, then
 * get_accumulate +1 and, when an exclusive holder is found, -1 again and retry), so the target
 * serves them in its progress. A wait for other holders is bounded by their liveness
 * (mpi_win_spin): the exclusive holder the word names, or a shared one its slot names (one
 * known lost first). Unlock completes the origin's operations to the target (a flush), then
 * gives the word back (a shared holder: the count, then its slot).
 *
 * PSCW: Win_post sends an empty message (tag POST) on the window's duplicate communicator to
 * each origin of its group; Win_start receives one from each target; Win_complete completes
 * the operations to each target and sends it COMPLETE; Win_wait receives one from each origin.
 */
#include "mpi/mpi_win.h"

#include <stdint.h>
#include <stdlib.h>

#define LOCK_SHIFT   40
#define LOCK_EXCL(r) ((int64_t)((r) + 1) << LOCK_SHIFT) /* rank r's exclusive lock */
#define TAG_POST     1
#define TAG_DONE     2

static int sync_flush(mpi_win_t *w, const char *call, int rank)
{
    rcmsg_status_t s;

    if (rank != RCMSG_ANY_SOURCE && (rank < 0 || rank >= w->c->size)) {
        return rank == MPI_PROC_NULL ? MPI_SUCCESS
                                     : mpi_err(w->c, call, MPI_ERR_RANK,
                                               "%s: rank %d is not in the window", call, rank);
    }
    s = rcmsg_win_flush(rank, w->data);
    mpi_win_settle(w, rank == RCMSG_ANY_SOURCE ? -1 : rank);
    return mpi_win_status(w, call, s);
}

int MPI_Win_flush(int rank, MPI_Win win)
{
    MPI_MT_GUARD();
    int err;
    mpi_win_t *w = mpi_win_enter(win, "MPI_Win_flush", &err);

    return w == NULL ? err : sync_flush(w, "MPI_Win_flush", rank);
}

/* Local completion is not told apart from completion at the target. */
int MPI_Win_flush_local(int rank, MPI_Win win)
{
    MPI_MT_GUARD();
    int err;
    mpi_win_t *w = mpi_win_enter(win, "MPI_Win_flush_local", &err);

    return w == NULL ? err : sync_flush(w, "MPI_Win_flush_local", rank);
}

int MPI_Win_flush_all(MPI_Win win)
{
    MPI_MT_GUARD();
    int err;
    mpi_win_t *w = mpi_win_enter(win, "MPI_Win_flush_all", &err);

    return w == NULL ? err : sync_flush(w, "MPI_Win_flush_all", RCMSG_ANY_SOURCE);
}

int MPI_Win_flush_local_all(MPI_Win win)
{
    MPI_MT_GUARD();
    int err;
    mpi_win_t *w = mpi_win_enter(win, "MPI_Win_flush_local_all", &err);

    return w == NULL ? err : sync_flush(w, "MPI_Win_flush_local_all", RCMSG_ANY_SOURCE);
}

int MPI_Win_sync(MPI_Win win)
{
    MPI_MT_GUARD();
    int err;

    if (mpi_win_enter(win, "MPI_Win_sync", &err) == NULL) {
        return err;
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}

int MPI_Win_fence(int assert, MPI_Win win)
{
    MPI_MT_GUARD();
    int err;
    mpi_win_t *w = mpi_win_enter(win, "MPI_Win_fence", &err);
    rcmsg_status_t s;

    if (w == NULL) {
        return err;
    }
    w->fenced = !(assert &MPI_MODE_NOSUCCEED);
    s = rcmsg_win_fence(w->data);
    mpi_win_settle(w, -1);
    return mpi_win_status(w, "MPI_Win_fence", s);
}

/* ---- passive target ------------------------------------------------------------------- */

static const uint8_t slot_set = 1, slot_clear = 0;

/* One atomic on rank's lock word, issued: its old value in *old once flushed. */
static rcmsg_status_t lock_post(mpi_win_t *w, int rank, int64_t *add, int64_t *cmp, bool cas,
                                int64_t *old)
{
    return cas ? rcmsg_acc_compare_swap(cmp, add, old, RCMSG_INT64, rank, MPI_WIN_LOCK_WORD,
                                        w->locks)
               : rcmsg_get_accumulate(add, old, 1, RCMSG_INT64, RCMSG_SUM, rank, MPI_WIN_LOCK_WORD,
                                      w->locks);
}

/* One atomic on rank's lock word, completed: its old value in *old. */
static rcmsg_status_t lock_op(mpi_win_t *w, int rank, int64_t add, int64_t cmp, bool cas,
                              int64_t *old)
{
    rcmsg_status_t s = lock_post(w, rank, &add, &cmp, cas, old);

    return s == RCMSG_OK ? rcmsg_win_flush(rank, w->locks) : s;
}

/* This rank's shared-holder slot at rank: set (v = &slot_set) or cleared; issued only. A
 * put: no other rank writes the byte (a store where the lock window is mapped, sm). */
static rcmsg_status_t lock_slot(mpi_win_t *w, int rank, const uint8_t *v)
{
    return rcmsg_put(v, 1, rank, MPI_WIN_SLOT_BASE + (size_t)w->c->rank, w->locks);
}

/* Gives back a shared lock on rank (add -1 to the word; then the slot), completed. */
static rcmsg_status_t lock_shared_drop(mpi_win_t *w, int rank)
{
    int64_t add = -1, cmp = 0, old;
    rcmsg_status_t s = lock_post(w, rank, &add, &cmp, false, &old);

    s = s == RCMSG_OK ? lock_slot(w, rank, &slot_clear) : s;
    return s == RCMSG_OK ? rcmsg_win_flush(rank, w->locks) : s;
}

/* The exclusive holder named by a lock word (-1: none; shared holders are counted only). */
static int lock_holder(int64_t word)
{
    return (int)(word >> LOCK_SHIFT) - 1;
}

/* A shared holder of rank's lock for an exclusive waiter to watch (slots: [members] bytes;
 * count: the shared holders the word counts): one known lost if the live marked ones cannot
 * make the count (a slot is set before its holder adds 1 and cleared after it takes 1 back, so
 * a lost rank's byte may be set while it holds nothing), else the first live marked one; -1:
 * none marked. */
static int lock_shared_holder(mpi_win_t *w, int rank, uint8_t *slots, int64_t count)
{
    int first = -1, lost = -1, flag = 0;
    int64_t live = 0;
    rcmsg_status_t s = rcmsg_get(slots, (size_t)w->c->size, rank, MPI_WIN_SLOT_BASE, w->locks);

    if (s != RCMSG_OK || rcmsg_win_flush(rank, w->locks) != RCMSG_OK) {
        return -1; /* the next try on the word fails the same way */
    }
    for (int r = 0; r < w->c->size; r++) {
        if (slots[r] == 0 || r == w->c->rank) {
            continue;
        }
        if (rcmsg_iprobe(r, MPI_WIN_TAG_WATCH, w->c->rc, &flag, NULL) != RCMSG_OK) {
            lost = lost < 0 ? r : lost;
            continue;
        }
        live++;
        first = first < 0 ? r : first;
    }
    return lost >= 0 && count > live ? lost : first >= 0 ? first : lost;
}

/* One try at rank's lock: *held true when another holds it (its word in *old). */
static rcmsg_status_t lock_try(mpi_win_t *w, int rank, int type, int64_t *old, bool *held)
{
    rcmsg_status_t s;

    if (type == MPI_LOCK_EXCLUSIVE) {
        s = lock_op(w, rank, LOCK_EXCL(w->c->rank), 0, true, old);
        *held = s == RCMSG_OK && *old != 0;
        return s;
    }
    s = lock_slot(w, rank, &slot_set);
    s = s == RCMSG_OK ? lock_op(w, rank, 1, 0, false, old) : s;
    *held = s == RCMSG_OK && lock_holder(*old) >= 0;
    return *held ? lock_shared_drop(w, rank) : s;
}

/* Takes rank's lock; while others hold it, waits (mpi_win_spin: bounded by their liveness). */
static rcmsg_status_t lock_take(mpi_win_t *w, int rank, int type)
{
    int64_t old = 0;
    bool held = false;
    int holder;
    uint8_t *slots = NULL;
    mpi_win_spin_t sp;
    rcmsg_status_t s;

    mpi_win_spin_init(&sp, rank);
    while ((s = lock_try(w, rank, type, &old, &held)) == RCMSG_OK && held) {
        holder = lock_holder(old);
        if (holder < 0 && (slots != NULL || (slots = malloc((size_t)w->c->size)) != NULL)) {
            holder = lock_shared_holder(w, rank, slots, old & ((INT64_C(1) << LOCK_SHIFT) - 1));
        }
        if ((s = mpi_win_spin(w, &sp, holder, "the lock")) != RCMSG_OK) {
            break;
        }
    }
    mpi_win_spin_end(&sp);
    free(slots);
    return s;
}

static int lock_one(mpi_win_t *w, const char *call, int type, int rank, int assert)
{
    rcmsg_status_t s = RCMSG_OK;

    if (rank == MPI_PROC_NULL) {
        return MPI_SUCCESS;
    }
    if (rank < 0 || rank >= w->c->size || w->lock_state[rank] != 0) {
        return mpi_err(
            w->c, call, rank < 0 || rank >= w->c->size ? MPI_ERR_RANK : MPI_ERR_RMA_SYNC,
            "%s: %s %d", call,
            rank < 0 || rank >= w->c->size ? "no window member" : "already locked:", rank);
    }
    if (w->started) {
        return mpi_err(w->c, call, MPI_ERR_RMA_SYNC,
                       "%s: an active-target access epoch is open (MPI_Win_start without "
                       "MPI_Win_complete)",
                       call);
    }
    w->fenced = false;
    if (!(assert &MPI_MODE_NOCHECK)) {
        s = lock_take(w, rank, type);
    }
    if (s == RCMSG_OK) {
        w->lock_state[rank] = type | (assert &MPI_MODE_NOCHECK ? 1 << 16 : 0);
        w->nlocked++;
    }
    return mpi_win_status(w, call, s);
}

static int unlock_one(mpi_win_t *w, const char *call, int rank)
{
    int64_t old;
    int st;
    rcmsg_status_t s, g = RCMSG_OK;

    if (rank == MPI_PROC_NULL) {
        return MPI_SUCCESS;
    }
    if (rank < 0 || rank >= w->c->size || w->lock_state[rank] == 0) {
        return mpi_err(w->c, call, MPI_ERR_RMA_SYNC, "%s: rank %d is not locked", call, rank);
    }
    st = w->lock_state[rank];
    s = rcmsg_win_flush(rank, w->data);
    mpi_win_settle(w, rank);
    if (!(st & (1 << 16))) {
        g = (st & 0xffff) == MPI_LOCK_EXCLUSIVE
                ? lock_op(w, rank, -LOCK_EXCL(w->c->rank), 0, false, &old)
                : lock_shared_drop(w, rank);
    }
    w->lock_state[rank] = 0;
    w->nlocked--;
    return mpi_win_status(w, call, s != RCMSG_OK ? s : g);
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_lock";
    int err;
    mpi_win_t *w = mpi_win_enter(win, call, &err);

    if (w == NULL) {
        return err;
    }
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED) {
        return mpi_err(w->c, call, MPI_ERR_LOCKTYPE, "%s: invalid lock type %d", call, lock_type);
    }
    return lock_one(w, call, lock_type, rank, assert);
}

int MPI_Win_unlock(int rank, MPI_Win win)
{
    MPI_MT_GUARD();
    int err;
    mpi_win_t *w = mpi_win_enter(win, "MPI_Win_unlock", &err);

    return w == NULL ? err : unlock_one(w, "MPI_Win_unlock", rank);
}

int MPI_Win_lock_all(int assert, MPI_Win win)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_lock_all";
    int err;
    mpi_win_t *w = mpi_win_enter(win, call, &err);

    for (int r = 0; w != NULL && r < w->c->size && err == MPI_SUCCESS; r++) {
        err = lock_one(w, call, MPI_LOCK_SHARED, r, assert);
    }
    return err;
}

int MPI_Win_unlock_all(MPI_Win win)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_unlock_all";
    int err, first = MPI_SUCCESS;
    mpi_win_t *w = mpi_win_enter(win, call, &err);

    if (w == NULL) {
        return err;
    }
    for (int r = 0; r < w->c->size; r++) {
        err = w->lock_state[r] != 0 ? unlock_one(w, call, r) : MPI_SUCCESS;
        first = first != MPI_SUCCESS ? first : err;
    }
    return first;
}

/* ---- PSCW ---------------------------------------------------------------------------- */

/* The window ranks of group's members into ranks; *n their number. */
static int pscw_ranks(mpi_win_t *w, const char *call, MPI_Group group, int *ranks, int *n)
{
    mpi_group_t *g = mpi_group_get(group);

    if (g == NULL) {
        return mpi_err(w->c, call, MPI_ERR_GROUP, "%s: invalid group", call);
    }
    *n = 0;
    for (int i = 0; i < g->size; i++) {
        int r = 0;
        while (r < w->c->size && w->c->members[r] != g->members[i]) {
            r++;
        }
        if (r == w->c->size) {
            *n = 0;
            return mpi_err(w->c, call, MPI_ERR_GROUP,
                           "%s: a member of the group is not in the window", call);
        }
        ranks[(*n)++] = r;
    }
    return MPI_SUCCESS;
}

/* Post (send true: an empty message to each of group) or Start (receive one from each). */
static int pscw_open(MPI_Group group, MPI_Win win, const char *call, bool post)
{
    int err;
    mpi_win_t *w = mpi_win_enter(win, call, &err);
    int *ranks, *n;
    bool *open;
    rcmsg_status_t s = RCMSG_OK;

    if (w == NULL) {
        return err;
    }
    ranks = post ? w->post : w->start;
    n = post ? &w->npost : &w->nstart;
    open = post ? &w->posted : &w->started;
    if (*open || (!post && w->nlocked > 0)) {
        return mpi_err(w->c, call, MPI_ERR_RMA_SYNC, "%s: %s", call,
                       *open ? "an epoch of it is open already"
                             : "a passive-target access epoch is open (a lock is held)");
    }
    if ((err = pscw_ranks(w, call, group, ranks, n)) != MPI_SUCCESS) {
        return err;
    }
    *open = true; /* an empty group opens an epoch too (nothing to send or receive) */
    w->fenced = post && w->fenced;
    for (int i = 0; i < *n && s == RCMSG_OK; i++) {
        s = post ? rcmsg_send(NULL, 0, ranks[i], TAG_POST, w->c->rc)
                 : rcmsg_recv(NULL, 0, ranks[i], TAG_POST, w->c->rc, NULL);
    }
    return mpi_win_status(w, call, s);
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    MPI_MT_GUARD();
    (void)assert;
    return pscw_open(group, win, "MPI_Win_post", true);
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    MPI_MT_GUARD();
    (void)assert;
    return pscw_open(group, win, "MPI_Win_start", false);
}

int MPI_Win_complete(MPI_Win win)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_complete";
    int err;
    mpi_win_t *w = mpi_win_enter(win, call, &err);
    rcmsg_status_t first = RCMSG_OK;

    if (w == NULL || !w->started) {
        return w == NULL ? err
                         : mpi_err(w->c, call, MPI_ERR_RMA_SYNC, "%s: no MPI_Win_start", call);
    }
    for (int i = 0; i < w->nstart; i++) {
        rcmsg_status_t s = rcmsg_win_flush(w->start[i], w->data);
        mpi_win_settle(w, w->start[i]);
        if (s == RCMSG_OK) {
            s = rcmsg_send(NULL, 0, w->start[i], TAG_DONE, w->c->rc);
        }
        first = first != RCMSG_OK ? first : s;
    }
    w->nstart = 0;
    w->started = false;
    return mpi_win_status(w, call, first);
}

/* As Win_wait, without blocking: *flag 1 once every origin's COMPLETE is in (those that are
 * are taken as they come). */
int MPI_Win_test(MPI_Win win, int *flag)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_test";
    int err, in = 1;
    mpi_win_t *w = mpi_win_enter(win, call, &err);
    rcmsg_status_t s = RCMSG_OK;

    if (w == NULL || !w->posted || flag == NULL) {
        return w == NULL
                   ? err
                   : mpi_err(w->c, call, flag == NULL ? MPI_ERR_ARG : MPI_ERR_RMA_SYNC, "%s: %s",
                             call, flag == NULL ? "flag is NULL" : "no MPI_Win_post");
    }
    for (int i = 0; i < w->npost && s == RCMSG_OK; i++) {
        if (w->post[i] < 0) {
            continue; /* its COMPLETE came at an earlier test */
        }
        s = rcmsg_iprobe(w->post[i], TAG_DONE, w->c->rc, &in, NULL);
        if (s == RCMSG_OK && in) {
            s = rcmsg_recv(NULL, 0, w->post[i], TAG_DONE, w->c->rc, NULL);
            w->post[i] = -1;
        }
    }
    *flag = 1;
    for (int i = 0; i < w->npost; i++) {
        *flag = *flag && w->post[i] < 0;
    }
    if (*flag) {
        w->npost = 0;
        w->posted = false;
    }
    return mpi_win_status(w, call, s);
}

int MPI_Win_wait(MPI_Win win)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_wait";
    int err;
    mpi_win_t *w = mpi_win_enter(win, call, &err);
    rcmsg_status_t first = RCMSG_OK;

    if (w == NULL || !w->posted) {
        return w == NULL ? err : mpi_err(w->c, call, MPI_ERR_RMA_SYNC, "%s: no MPI_Win_post", call);
    }
    for (int i = 0; i < w->npost; i++) {
        rcmsg_status_t s = w->post[i] < 0
                               ? RCMSG_OK /* taken by Win_test */
                               : rcmsg_recv(NULL, 0, w->post[i], TAG_DONE, w->c->rc, NULL);
        first = first != RCMSG_OK ? first : s;
    }
    w->npost = 0;
    w->posted = false;
    return mpi_win_status(w, call, first);
}
