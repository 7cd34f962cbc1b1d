/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided: the windows (osc.h). A window is made collectively over a private duplicate of
 * the user's communicator: each member registers its memory with rc (when rc is opened) for
 * remote read, write and atomics, and the members exchange base, size and key by an allgather
 * on that duplicate, so the key goes to the members only. One progress hook serves every live
 * window (osc_am.c's messages), registered while any lives.
 */
#include "config.h"

#include "osc.h"

#include "base/log.h"
#include "base/mt.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static rcmsg_queue_t osc_wins = {0};
static int osc_nwins;

void osc_win_each(void (*fn)(rcmsg_win_t win))
{
    for (rcmsg_queue_link_t *l = rcmsg_queue_first(&osc_wins); l != NULL;) {
        rcmsg_queue_link_t *next = rcmsg_queue_next(l);
        fn(RCMSG_CONTAINER_OF(l, struct rcmsg_win, link));
        l = next;
    }
}

static int osc_count;

static void osc_poll_one(rcmsg_win_t win)
{
    if (win->dyn != NULL) {
        osc_dyn_stale(win);
    }
    osc_count += osc_am_poll(win);
}

static int osc_hook(void *arg)
{
    (void)arg;
    osc_count = 0;
    osc_win_each(osc_poll_one);
    return osc_count;
}

/* The window's tables, its rc registrations and its atomic slots; logs what fails. */
static rcmsg_status_t osc_win_setup(rcmsg_win_t win)
{
    rcmsg_wireup_t *w = rcmsg_core_wireup();
    rcmsg_status_t s;

    win->m = calloc((size_t)win->size, sizeof(*win->m));
    win->btl = calloc((size_t)win->size, sizeof(*win->btl));
    win->pending = calloc((size_t)win->size, sizeof(*win->pending));
    win->mapped = calloc((size_t)win->size, sizeof(*win->mapped));
    win->err = calloc((size_t)win->size, sizeof(*win->err));
    win->am_ops = calloc((size_t)win->size, sizeof(*win->am_ops)); /* zeroed: empty queues */
    win->slots = aligned_alloc(64, OSC_SLOTS * sizeof(uint64_t));
    if (win->m == NULL || win->btl == NULL || win->pending == NULL || win->err == NULL ||
        win->am_ops == NULL || win->slots == NULL || win->mapped == NULL) {
        rcmsg_error("rcmsg_win_create: out of memory for a window of %d members", win->size);
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < OSC_SLOTS; i++) {
        win->free_slots[i] = i;
    }
    win->nfree = OSC_SLOTS;
    win->rc = rcmsg_wireup_btl(w, "rc");
    if (win->rc == NULL) {
        return RCMSG_OK;
    }
    s = win->rc->ops->mem_reg(win->rc, win->slots, OSC_SLOTS * sizeof(uint64_t),
                              RCMSG_BTL_MEM_LOCAL, &win->slots_mem);
    if (s == RCMSG_OK && win->len > 0) {
        s = win->rc->ops->mem_reg(win->rc, win->base, win->len, RCMSG_BTL_MEM_WINDOW, &win->mem);
    }
    if (s != RCMSG_OK) {
        rcmsg_error("rcmsg_win_create: registering %zu bytes at %p for remote access failed",
                    win->len, win->base);
    }
    return s;
}

/* The transport of each member (its world rank, through the window's communicator). */
static rcmsg_status_t osc_win_peers(rcmsg_win_t win)
{
    rcmsg_wireup_t *w = rcmsg_core_wireup();
    osc_member_t mine = {.base = (uintptr_t)win->base,
                         .size = win->len,
                         .rkey = win->mem.priv != NULL ? win->mem.rkey : 0,
                         .pid = (int32_t)getpid(),
                         .fd = win->shm_fd};
    int *world = win->world = calloc((size_t)win->size, sizeof(int));
    int me = rcmsg_rank();
    rcmsg_status_t s;

    if (world == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    s = rcmsg_allgather(&me, world, 1, RCMSG_INT32, win->comm);
    if (s == RCMSG_OK) {
        s = rcmsg_allgather(&mine, win->m, sizeof(mine), RCMSG_UINT8, win->comm);
    }
    for (int i = 0; s == RCMSG_OK && i < win->size; i++) {
        win->btl[i] = w->peer_btl[world[i]];
    }
    if (s == RCMSG_OK) {
        osc_shm_map(win);
    }
    return s;
}

static void osc_win_release(rcmsg_win_t win)
{
    if (win->dyn != NULL) {
        osc_dyn_release(win); /* (its regions' registrations: before rc is forgotten) */
    }
    if (win->rc != NULL && win->mem.priv != NULL) {
        win->rc->ops->mem_dereg(win->rc, &win->mem);
    }
    if (win->rc != NULL && win->slots_mem.priv != NULL) {
        win->rc->ops->mem_dereg(win->rc, &win->slots_mem);
    }
    if (win->comm != RCMSG_COMM_NULL) {
        (void)rcmsg_comm_free(&win->comm);
    }
    osc_shm_release(win); /* before m: it needs the members' sizes */
    free(win->m);
    free(win->world);
    free(win->btl);
    free(win->pending);
    free(win->err);
    free(win->am_ops);
    free(win->slots);
    free(win);
}

/* tables: a dynamic window's (osc_dyn.c), else NULL. */
static rcmsg_status_t osc_win_make(void *base, size_t size, bool allocated, rcmsg_win_t tables,
                                   rcmsg_comm_t comm, rcmsg_win_t *win_p)
{
    rcmsg_win_t win = calloc(1, sizeof(*win));
    rcmsg_status_t s, all, mem = RCMSG_OK;
    int flag = 0;

    if (win == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    win->base = base;
    win->len = size;
    win->allocated = allocated;
    win->shm_fd = -1;
    if (allocated) {
        mem = osc_shm_alloc(win, size); /* a failure fails the agreement below */
    }
    if (tables != RCMSG_WIN_NULL && (win->dyn = osc_dyn_new(tables)) == NULL) {
        mem = RCMSG_ERR_NO_MEMORY;
    }
    rcmsg_queue_init(&win->am_sending);
    s = rcmsg_comm_dup(comm, &win->comm);
    if (s != RCMSG_OK) {
        if (win->dyn != NULL) {
            osc_dyn_release(win);
        }
        osc_shm_release(win);
        free(win);
        return s;
    }
    win->rank = rcmsg_comm_rank(win->comm);
    win->size = rcmsg_comm_size(win->comm);
    s = mem != RCMSG_OK ? mem : osc_win_setup(win);
    /* every member learns whether one failed, so that none goes on alone */
    flag = s != RCMSG_OK;
    all = rcmsg_allreduce(RCMSG_IN_PLACE, &flag, 1, RCMSG_INT32, RCMSG_MAX, win->comm);
    if (all == RCMSG_OK && flag) {
        all = s != RCMSG_OK ? s : RCMSG_ERR_CONNECTION;
        rcmsg_error("rcmsg_win_create: %s",
                    s != RCMSG_OK ? "failed here (see above)" : "another member failed to set up");
    }
    if (all == RCMSG_OK) {
        all = osc_win_peers(win);
    }
    if (all == RCMSG_OK) {
        all = osc_am_open(win);
    }
    if (all == RCMSG_OK && osc_nwins == 0) {
        all = rcmsg_progress_register(osc_hook, NULL);
    }
    if (all != RCMSG_OK) {
        if (win->am_req != RCMSG_REQUEST_NULL) {
            osc_am_close(win);
        }
        osc_win_release(win);
        return all;
    }
    if (osc_nwins++ == 0) {
        rcmsg_queue_init(&osc_wins);
    }
    rcmsg_queue_push_tail(&osc_wins, &win->link);
    *win_p = win;
    return RCMSG_OK;
}

static rcmsg_status_t osc_args(const char *call, size_t size, const void *base, rcmsg_comm_t comm,
                               rcmsg_win_t *win_p)
{
    int inter = 0;

    if (win_p == NULL) {
        rcmsg_error("%s: win_p is NULL", call);
        return RCMSG_ERR_INVALID_PARAM;
    }
    *win_p = RCMSG_WIN_NULL;
    if (rcmsg_core_wireup() == NULL) {
        rcmsg_error("%s: rcmsg is not initialized", call);
        return RCMSG_ERR_NOT_INITIALIZED;
    }
    if (comm == RCMSG_COMM_NULL || rcmsg_comm_test_inter(comm, &inter) != RCMSG_OK || inter) {
        rcmsg_error("%s: %s", call,
                    inter ? "an intercommunicator cannot hold a window" : "invalid communicator");
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (base == NULL && size > 0) {
        rcmsg_error("%s: base is NULL with a size of %zu bytes", call, size);
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_win_create(void *base, size_t size, rcmsg_comm_t comm, rcmsg_win_t *win_p)
{
    RCMSG_MT_GUARD();
    rcmsg_status_t s = osc_args("rcmsg_win_create", size, base, comm, win_p);

    return s != RCMSG_OK
               ? s
               : osc_win_make(size > 0 ? base : NULL, size, false, RCMSG_WIN_NULL, comm, win_p);
}

rcmsg_status_t rcmsg_win_allocate(size_t size, rcmsg_comm_t comm, void **base_p, rcmsg_win_t *win_p)
{
    RCMSG_MT_GUARD();
    rcmsg_status_t s = osc_args("rcmsg_win_allocate", 0, NULL, comm, win_p);

    if (s == RCMSG_OK && base_p == NULL) {
        rcmsg_error("rcmsg_win_allocate: base_p is NULL");
        s = RCMSG_ERR_INVALID_PARAM;
    }
    if (s != RCMSG_OK) {
        return s;
    }
    s = osc_win_make(NULL, size, true, RCMSG_WIN_NULL, comm, win_p);
    if (s == RCMSG_OK) {
        *base_p = (*win_p)->base;
    }
    return s;
}

/* A dynamic window (osc_dyn.c) over a window of tables made first (the same members). */
rcmsg_status_t rcmsg_win_create_dynamic(rcmsg_comm_t comm, rcmsg_win_t *win_p)
{
    RCMSG_MT_GUARD();
    rcmsg_win_t tables = RCMSG_WIN_NULL;
    rcmsg_status_t s = osc_args("rcmsg_win_create_dynamic", 0, NULL, comm, win_p);

    if (s == RCMSG_OK) {
        s = osc_win_make(NULL, osc_dyn_table_size(), true, RCMSG_WIN_NULL, comm, &tables);
    }
    if (s == RCMSG_OK && (s = osc_win_make(NULL, 0, false, tables, comm, win_p)) != RCMSG_OK) {
        (void)osc_win_close(tables);
    }
    return s;
}

rcmsg_status_t rcmsg_win_free(rcmsg_win_t *win_p)
{
    RCMSG_MT_GUARD();
    rcmsg_win_t tables;
    rcmsg_status_t s, t = RCMSG_OK;

    if (win_p == NULL || *win_p == RCMSG_WIN_NULL) {
        rcmsg_error("rcmsg_win_free: %s", win_p == NULL ? "win_p is NULL" : "no window");
        return RCMSG_ERR_INVALID_PARAM;
    }
    tables = (*win_p)->dyn != NULL ? osc_dyn_tables(*win_p) : RCMSG_WIN_NULL;
    s = osc_win_close(*win_p);
    if (tables != RCMSG_WIN_NULL) {
        t = osc_win_close(tables);
    }
    *win_p = RCMSG_WIN_NULL;
    return s != RCMSG_OK ? s : t;
}

rcmsg_status_t osc_win_close(rcmsg_win_t win)
{
    rcmsg_status_t s, b;

    s = osc_flush(win, -1);
    b = rcmsg_barrier(win->comm); /* no member accesses this one's memory any more */
    osc_am_close(win);
    rcmsg_queue_remove(&osc_wins, &win->link);
    if (--osc_nwins == 0) {
        (void)rcmsg_progress_unregister(osc_hook, NULL);
    }
    osc_win_release(win);
    return s != RCMSG_OK ? s : b;
}

rcmsg_status_t rcmsg_win_query(rcmsg_win_t win, void **base_p, size_t *size_p, int *members_p)
{
    RCMSG_MT_GUARD();
    if (win == RCMSG_WIN_NULL) {
        rcmsg_error("rcmsg_win_query: no window");
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (base_p != NULL) {
        *base_p = win->base;
    }
    if (size_p != NULL) {
        *size_p = win->len;
    }
    if (members_p != NULL) {
        *members_p = win->size;
    }
    return RCMSG_OK;
}
