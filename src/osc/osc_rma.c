/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided: the operations (osc.h). Each is checked against the target's window (as it
 * told at creation) before anything is posted, then started on the transport that reaches
 * the target (btl.h's put, get, atomic) or, where that transport cannot, by message
 * (osc_am.c). Every operation started counts in the window's pending[target] until its
 * completion (osc_done); flush waits for the count to reach zero, driving progress.
 */
#include "config.h"

#include "osc.h"

#include "base/log.h"
#include "base/mt.h"
#include "progress/progress.h"

#include <stdlib.h>
#include <string.h>

/* One operation on a transport: its descriptor first (the completion gets it back). */
typedef struct {
    rcmsg_btl_desc_t desc;
    rcmsg_win_t win;
    int target;
    rcmsg_rcache_entry_t *reg; /* the origin buffer's registration (rc), or NULL */
    int slot;                  /* atomics over rc: the result slot, else -1 */
    uint64_t result;           /* atomics elsewhere: the old value */
    uint64_t *old_p;
} osc_op_t;

void osc_done(rcmsg_win_t win, int target, rcmsg_status_t status)
{
    win->pending[target]--;
    win->npending--;
    if (status != RCMSG_OK && win->err[target] == RCMSG_OK) {
        win->err[target] = status;
    }
}

static void osc_op_complete(rcmsg_btl_desc_t *desc, rcmsg_status_t status)
{
    osc_op_t *op = (osc_op_t *)desc;
    rcmsg_win_t win = op->win;

    if (op->reg != NULL) {
        rcmsg_rcache_put(op->reg);
    }
    if (op->slot >= 0) {
        op->result = win->slots[op->slot];
        win->free_slots[win->nfree++] = op->slot;
    }
    if (op->old_p != NULL && status == RCMSG_OK) {
        *op->old_p = op->result;
    }
    osc_done(win, op->target, status);
    free(op);
}

static void osc_progress_once(unsigned *idle)
{
    if (rcmsg_progress() == 0) {
        rcmsg_progress_idle(idle);
    } else {
        *idle = 0;
    }
}

rcmsg_status_t osc_flush(rcmsg_win_t win, int target)
{
    rcmsg_status_t s = RCMSG_OK;
    unsigned idle = 0;
    int lo = target < 0 ? 0 : target, hi = target < 0 ? win->size : target + 1;

    while (target < 0 ? win->npending > 0 : win->pending[target] > 0) {
        osc_progress_once(&idle);
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* stores into mapped windows (osc_shm.c) */
    for (int i = lo; i < hi; i++) {
        if (s == RCMSG_OK) {
            s = win->err[i];
        }
        win->err[i] = RCMSG_OK;
    }
    return s;
}

rcmsg_status_t osc_check(const char *call, rcmsg_win_t win, int target, size_t disp, size_t len,
                         bool atomic)
{
    const osc_member_t *m;

    if (win == RCMSG_WIN_NULL) {
        rcmsg_error("%s: no window", call);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (target < 0 || target >= win->size) {
        rcmsg_error("%s: target %d is not a member of the window (%d members)", call, target,
                    win->size);
        return RCMSG_ERR_INVALID_PARAM;
    }
    m = &win->m[target];
    if (win->dyn != NULL) { /* disp is an address: in a region the target attached */
        rcmsg_status_t s = len > 0 ? osc_dyn_find(win, target, disp, len) : RCMSG_OK;
        if (s == RCMSG_ERR_NOT_FOUND) {
            rcmsg_error("%s: %zu bytes at address 0x%zx are outside every region target %d "
                        "attached to the dynamic window: refused, nothing sent",
                        call, len, disp, target);
            return RCMSG_ERR_INVALID_PARAM;
        }
        if (s != RCMSG_OK) {
            return s;
        }
        uint32_t rkey; /* (win->dyn_rkey, set by osc_dyn_find) */
        if (atomic && osc_dyn_piece(win, target, disp, len, &rkey) < len) {
            rcmsg_error("%s: the atomic at address 0x%zx crosses two of target %d's regions: "
                        "refused, nothing sent",
                        call, disp, target);
            return RCMSG_ERR_INVALID_PARAM;
        }
    } else if (len > m->size || disp > m->size - len) {
        rcmsg_error("%s: %zu bytes at displacement %zu are outside target %d's window of %llu "
                    "bytes: refused, nothing sent",
                    call, len, disp, target, (unsigned long long)m->size);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (atomic && (m->base + disp) % 8 != 0) {
        rcmsg_error("%s: displacement %zu of target %d's window is not 8-byte aligned (base "
                    "0x%llx): refused, nothing sent",
                    call, disp, target, (unsigned long long)m->base);
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_OK;
}

static osc_op_t *osc_op_new(rcmsg_win_t win, int target)
{
    osc_op_t *op = calloc(1, sizeof(*op));

    if (op != NULL) {
        op->desc.complete = osc_op_complete;
        op->win = win;
        op->target = target;
        op->slot = -1;
    }
    return op;
}

/* Posts op (made ready by the caller) with post() until the transport takes it: a full queue
 * or a connect under way is waited out with progress. On RCMSG_OK the operation counts as
 * pending; otherwise op is released here. */
typedef rcmsg_status_t (*osc_post_fn_t)(rcmsg_btl_t *btl, osc_op_t *op, const void *arg);

static rcmsg_status_t osc_start(rcmsg_btl_t *btl, osc_op_t *op, osc_post_fn_t post, const void *arg)
{
    rcmsg_win_t win = op->win;
    unsigned idle = 0;
    rcmsg_status_t s;

    win->pending[op->target]++;
    win->npending++;
    while ((s = post(btl, op, arg)) == RCMSG_ERR_NO_RESOURCE) {
        osc_progress_once(&idle);
    }
    if (s != RCMSG_OK) {
        win->pending[op->target]--;
        win->npending--;
        if (op->reg != NULL) {
            rcmsg_rcache_put(op->reg);
        }
        if (op->slot >= 0) {
            win->free_slots[win->nfree++] = op->slot;
        }
        free(op);
    }
    return s;
}

typedef struct {
    void *origin;
    size_t len;
    uint64_t raddr;
    uint32_t rkey;
    const rcmsg_btl_mem_t *lmem;
    bool get;
    rcmsg_btl_atomic_t aop;
    uint64_t operand, compare;
} osc_args_t;

static rcmsg_status_t osc_post_rw(rcmsg_btl_t *btl, osc_op_t *op, const void *arg)
{
    const osc_args_t *a = arg;

    if (a->get) {
        return btl->ops->get(btl, op->desc.peer, a->origin, a->lmem, a->raddr, a->rkey, a->len,
                             &op->desc);
    }
    return btl->ops->put(btl, op->desc.peer, a->origin, a->lmem, a->raddr, a->rkey, a->len,
                         &op->desc);
}

static rcmsg_status_t osc_post_atomic(rcmsg_btl_t *btl, osc_op_t *op, const void *arg)
{
    const osc_args_t *a = arg;
    uint64_t *result = op->slot >= 0 ? &op->win->slots[op->slot] : &op->result;

    return btl->ops->atomic(btl, op->desc.peer, a->aop, result, a->lmem, a->raddr, a->rkey,
                            a->operand, a->compare, &op->desc);
}

static int osc_world(rcmsg_win_t win, int target)
{
    return win->world[target];
}

/* The key of the target's memory (a dynamic window's: its region's, found by osc_check just
 * before: no other thread runs in between). */
static uint32_t osc_rkey(rcmsg_win_t win, int target)
{
    return win->dyn != NULL ? win->dyn_rkey : win->m[target].rkey;
}

/* One piece of a put or get on the target's transport with the target memory's rkey
 * (registering origin with rc). */
static rcmsg_status_t osc_rw(rcmsg_win_t win, int target, size_t disp, void *origin, size_t len,
                             bool get, uint32_t rkey)
{
    rcmsg_btl_t *btl = win->btl[target];
    static const rcmsg_btl_mem_t none = {0};
    osc_args_t a = {.origin = origin,
                    .len = len,
                    .raddr = win->m[target].base + disp,
                    .rkey = rkey,
                    .lmem = &none,
                    .get = get};
    osc_op_t *op = osc_op_new(win, target);
    const void *handle;
    rcmsg_status_t s;

    if (op == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    op->desc.peer = osc_world(win, target);
    if (btl == win->rc && (get || len > btl->caps.max_inline)) {
        s = rcmsg_rcache_get(btl, origin, len, false, &op->reg, &handle);
        if (s != RCMSG_OK) {
            free(op);
            return s;
        }
        a.lmem = handle;
    } else if (btl == win->rc) {
        a.lmem = NULL; /* inline */
    }
    return osc_start(btl, op, osc_post_rw, &a);
}

/* A put or get: in pieces the transport takes, or by message where it has no put; rkey: the
 * target memory's (a piece may let the core lock go: the key is not read again from win). */
static rcmsg_status_t osc_transfer(rcmsg_win_t win, int target, size_t disp, void *origin,
                                   size_t len, bool get, uint32_t rkey)
{
    rcmsg_btl_t *btl = win->btl[target];
    size_t max = btl->caps.max_get > 0 ? btl->caps.max_get : OSC_AM_MAX;
    bool am = !get && btl->ops->put == NULL;
    rcmsg_status_t s = RCMSG_OK;

    if (win->mapped[target] != NULL) { /* mapped here (osc_shm.c): complete at once */
        char *at = win->mapped[target] + disp;
        memmove(get ? origin : at, get ? at : origin, len);
        return RCMSG_OK;
    }

    for (size_t off = 0; s == RCMSG_OK && off < len;) {
        size_t piece = len - off;
        if (!am) {
            piece = piece < max ? piece : max;
            s = osc_rw(win, target, disp + off, (char *)origin + off, piece, get, rkey);
            if (s == RCMSG_ERR_UNSUPPORTED && !get) {
                am = true; /* sm without CMA: by message from here on */
                s = RCMSG_OK;
                continue;
            }
        } else {
            piece = piece < OSC_AM_MAX ? piece : OSC_AM_MAX;
            s = osc_am_start(win, &(osc_am_call_t){.kind = get ? OSC_AM_GET : OSC_AM_PUT,
                                                   .target = target,
                                                   .disp = disp + off,
                                                   .len = piece,
                                                   .data = (char *)origin + off,
                                                   .dlen = get ? 0 : piece,
                                                   .result = (char *)origin + off,
                                                   .rlen = get ? piece : 0});
        }
        off += piece;
    }
    return s;
}

/* A dynamic window's put or get, region by region (each its own key; osc_dyn.c). */
static rcmsg_status_t osc_transfer_dyn(rcmsg_win_t win, int target, size_t disp, char *origin,
                                       size_t len, bool get)
{
    rcmsg_status_t s = RCMSG_OK;

    for (size_t off = 0, piece; s == RCMSG_OK && off < len; off += piece) {
        uint32_t rkey;
        piece = osc_dyn_piece(win, target, disp + off, len - off, &rkey);
        s = osc_transfer(win, target, disp + off, origin + off, piece, get, rkey);
    }
    return s;
}

static rcmsg_status_t osc_rw_any(rcmsg_win_t win, int target, size_t disp, void *origin, size_t len,
                                 bool get)
{
    return win->dyn != NULL
               ? osc_transfer_dyn(win, target, disp, origin, len, get)
               : osc_transfer(win, target, disp, origin, len, get, win->m[target].rkey);
}

rcmsg_status_t rcmsg_put(const void *origin, size_t len, int target, size_t disp, rcmsg_win_t win)
{
    RCMSG_MT_GUARD();
    rcmsg_status_t s = osc_check("rcmsg_put", win, target, disp, len, false);

    if (s == RCMSG_OK && origin == NULL && len > 0) {
        rcmsg_error("rcmsg_put: origin is NULL");
        s = RCMSG_ERR_INVALID_PARAM;
    }
    return s != RCMSG_OK ? s : osc_rw_any(win, target, disp, (void *)(uintptr_t)origin, len, false);
}

rcmsg_status_t rcmsg_get(void *origin, size_t len, int target, size_t disp, rcmsg_win_t win)
{
    RCMSG_MT_GUARD();
    rcmsg_status_t s = osc_check("rcmsg_get", win, target, disp, len, false);

    if (s == RCMSG_OK && origin == NULL && len > 0) {
        rcmsg_error("rcmsg_get: origin is NULL");
        s = RCMSG_ERR_INVALID_PARAM;
    }
    return s != RCMSG_OK ? s : osc_rw_any(win, target, disp, origin, len, true);
}

/* An atomic on the target's transport, or by message where it has none. */
static rcmsg_status_t osc_atomic(rcmsg_win_t win, int target, size_t disp, rcmsg_btl_atomic_t aop,
                                 uint64_t operand, uint64_t compare, uint64_t *old_p)
{
    rcmsg_btl_t *btl = win->btl[target];
    osc_args_t a = {.raddr = win->m[target].base + disp,
                    .rkey = osc_rkey(win, target),
                    .lmem = &win->slots_mem,
                    .aop = aop,
                    .operand = operand,
                    .compare = compare};
    osc_am_call_t am = {.kind = aop == RCMSG_BTL_ATOMIC_FADD ? OSC_AM_FADD : OSC_AM_CSWAP,
                        .target = target,
                        .disp = disp,
                        .len = 8,
                        .operand = operand,
                        .compare = compare,
                        .old_p = old_p};
    osc_op_t *op;
    unsigned idle = 0;
    rcmsg_status_t s;

    if (win->mapped[target] != NULL) { /* mapped here (osc_shm.c): the CPU's, at once */
        uint64_t *at = (uint64_t *)(void *)(win->mapped[target] + disp), old = compare;
        if (aop == RCMSG_BTL_ATOMIC_FADD) {
            old = __atomic_fetch_add(at, operand, __ATOMIC_SEQ_CST);
        } else {
            __atomic_compare_exchange_n(at, &old, operand, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST);
        }
        if (old_p != NULL) {
            *old_p = old;
        }
        return RCMSG_OK;
    }
    if (btl->ops->atomic == NULL) {
        return osc_am_start(win, &am);
    }
    op = osc_op_new(win, target);
    if (op == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    op->desc.peer = osc_world(win, target);
    op->old_p = old_p;
    if (btl == win->rc) {
        while (win->nfree == 0) {
            osc_progress_once(&idle); /* every slot in flight: one completes */
        }
        op->slot = win->free_slots[--win->nfree];
    }
    s = osc_start(btl, op, osc_post_atomic, &a);
    if (s == RCMSG_ERR_UNSUPPORTED) { /* a device without atomics */
        s = osc_am_start(win, &am);
    }
    return s;
}

rcmsg_status_t rcmsg_fetch_add(uint64_t add, uint64_t *old_p, int target, size_t disp,
                               rcmsg_win_t win)
{
    RCMSG_MT_GUARD();
    rcmsg_status_t s = osc_check("rcmsg_fetch_add", win, target, disp, 8, true);

    return s != RCMSG_OK ? s : osc_atomic(win, target, disp, RCMSG_BTL_ATOMIC_FADD, add, 0, old_p);
}

rcmsg_status_t rcmsg_compare_swap(uint64_t compare, uint64_t swap, uint64_t *old_p, int target,
                                  size_t disp, rcmsg_win_t win)
{
    RCMSG_MT_GUARD();
    rcmsg_status_t s = osc_check("rcmsg_compare_swap", win, target, disp, 8, true);

    return s != RCMSG_OK
               ? s
               : osc_atomic(win, target, disp, RCMSG_BTL_ATOMIC_CSWAP, swap, compare, old_p);
}

rcmsg_status_t rcmsg_win_flush(int target, rcmsg_win_t win)
{
    RCMSG_MT_GUARD();
    if (win == RCMSG_WIN_NULL ||
        (target != RCMSG_ANY_SOURCE && (target < 0 || target >= win->size))) {
        rcmsg_error("rcmsg_win_flush: %s",
                    win == RCMSG_WIN_NULL ? "no window" : "target is not a member");
        return RCMSG_ERR_INVALID_PARAM;
    }
    return osc_flush(win, target == RCMSG_ANY_SOURCE ? -1 : target);
}

rcmsg_status_t rcmsg_win_fence(rcmsg_win_t win)
{
    RCMSG_MT_GUARD();
    rcmsg_status_t s, b;

    if (win == RCMSG_WIN_NULL) {
        rcmsg_error("rcmsg_win_fence: no window");
        return RCMSG_ERR_INVALID_PARAM;
    }
    s = osc_flush(win, -1);
    b = rcmsg_barrier(win->comm);
    return s != RCMSG_OK ? s : b;
}
