/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided: dynamic windows (osc.h; rcmsg_win_create_dynamic, rcmsg_win_attach / detach).
 * A dynamic window exposes no memory when it is made; each member attaches regions of its
 * own later, alone (no other member takes part), and an operation names the target's memory
 * by its address (disp is the address, the window's base being 0).
 *
 * Each member keeps its regions in a table: base, size and, with rc, the key of the region's
 * registration (made at attach, undone at detach). The tables are the memory of a second,
 * ordinary window made with the dynamic one (rcmsg_win_allocate's: mapped by the node's
 * members where sm is opened), so an origin reads a target's table one-sidedly, without the
 * target. Its writes are a sequence lock: the version is odd while the table changes, and
 * goes up by 2 with each change. An origin keeps a copy of each target's table; before an
 * access it reads the target's version (8 bytes) unless its copy was found current since the
 * last progress round (no message can have told it of a newer region since), and reads the
 * table again when the version moved: the region found gives the key the access goes with.
 * An access no region holds is refused before anything is posted.
 */
#include "config.h"

#include "osc.h"

#include "base/log.h"
#include "base/mt.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The regions a member can attach at once (more: RCMSG_ERR_NO_RESOURCE). */
#define OSC_DYN_MAX 1024
/* Reads of a table that found it changing before one gives up (RCMSG_ERR_TIMEOUT). */
#define OSC_DYN_TRIES 100000

typedef struct {
    uint64_t base, size;
    uint32_t rkey, pad;
} osc_region_t;

typedef struct {
    uint64_t version; /* odd while the regions change */
    uint64_t count;
    osc_region_t r[OSC_DYN_MAX];
} osc_dyn_table_t;

struct osc_dyn {
    rcmsg_win_t tables;     /* one table per member: this one's is mine */
    osc_dyn_table_t *mine;  /* tables' memory here */
    rcmsg_btl_mem_t *mem;   /* [OSC_DYN_MAX]: rc registrations of mine's regions */
    osc_dyn_table_t **copy; /* [size]: the others' tables as last read (or NULL) */
    uint64_t *fresh;        /* [size]: 1 + the round in which copy was found current */
    uint64_t round;         /* progress rounds seen (osc_dyn_stale): a round may bring news */
};

size_t osc_dyn_table_size(void)
{
    return sizeof(osc_dyn_table_t);
}

osc_dyn_t *osc_dyn_new(rcmsg_win_t tables)
{
    osc_dyn_t *d = calloc(1, sizeof(*d));

    if (d == NULL) {
        return NULL;
    }
    d->tables = tables;
    d->mine = tables->base;
    d->mem = calloc(OSC_DYN_MAX, sizeof(*d->mem));
    d->copy = calloc((size_t)tables->size, sizeof(*d->copy));
    d->fresh = calloc((size_t)tables->size, sizeof(*d->fresh));
    if (d->mem == NULL || d->copy == NULL || d->fresh == NULL) {
        free(d->mem);
        free(d->copy);
        free(d->fresh);
        free(d);
        return NULL;
    }
    return d;
}

rcmsg_win_t osc_dyn_tables(rcmsg_win_t win)
{
    return win->dyn->tables;
}

void osc_dyn_release(rcmsg_win_t win)
{
    osc_dyn_t *d = win->dyn;

    for (uint64_t i = 0; win->rc != NULL && i < d->mine->count; i++) {
        if (d->mem[i].priv != NULL) {
            win->rc->ops->mem_dereg(win->rc, &d->mem[i]);
        }
    }
    for (int i = 0; i < d->tables->size; i++) {
        free(d->copy[i]);
    }
    free(d->copy);
    free(d->fresh);
    free(d->mem);
    free(d);
    win->dyn = NULL;
}

void osc_dyn_stale(rcmsg_win_t win)
{
    win->dyn->round++;
}

/* The region of t holding the byte at disp, or NULL. */
static const osc_region_t *dyn_at(const osc_dyn_table_t *t, size_t disp)
{
    for (uint64_t i = 0; i < t->count; i++) {
        const osc_region_t *r = &t->r[i];
        if (disp >= r->base && disp - r->base < r->size) {
            return r;
        }
    }
    return NULL;
}

/* The region of t holding disp when regions of t hold every byte of [disp, disp + len)
 * (adjacent regions, one after the other: MPI lets an access cross them), or NULL. */
static const osc_region_t *dyn_lookup(const osc_dyn_table_t *t, size_t disp, size_t len)
{
    const osc_region_t *first = dyn_at(t, disp), *r = first;

    while (r != NULL && len > r->base + r->size - disp) {
        len -= r->base + r->size - disp;
        disp = r->base + r->size;
        r = dyn_at(t, disp);
    }
    return r != NULL ? first : NULL;
}

bool osc_dyn_mine(rcmsg_win_t win, size_t disp, size_t len)
{
    return win->dyn != NULL && (len == 0 || dyn_lookup(win->dyn->mine, disp, len) != NULL);
}

size_t osc_dyn_piece(rcmsg_win_t win, int target, size_t disp, size_t len, uint32_t *rkey_p)
{
    osc_dyn_t *d = win->dyn;
    const osc_region_t *r = dyn_at(target == win->rank ? d->mine : d->copy[target], disp);
    size_t in = r != NULL ? r->base + r->size - disp : len; /* (found by osc_check) */

    *rkey_p = r != NULL ? r->rkey : 0;
    return in < len ? in : len;
}

/* len bytes of target's table at off into p, complete. */
static rcmsg_status_t dyn_read(osc_dyn_t *d, int target, size_t off, void *p, size_t len)
{
    rcmsg_status_t s = len > 0 ? rcmsg_get(p, len, target, off, d->tables) : RCMSG_OK;

    return s == RCMSG_OK ? rcmsg_win_flush(target, d->tables) : s;
}

/* One read of target's table into t, *whole when consistent (the version even and the same
 * before and after the regions were read); only the head when the version is `have`'s. */
static rcmsg_status_t dyn_read_table(osc_dyn_t *d, int target, uint64_t have, osc_dyn_table_t *t,
                                     bool *whole)
{
    uint64_t head[2], again;
    rcmsg_status_t s = dyn_read(d, target, 0, head, sizeof(head));

    *whole = false;
    t->version = head[0];
    if (s != RCMSG_OK || head[0] % 2 != 0 || head[1] > OSC_DYN_MAX || head[0] == have) {
        return s; /* failed; changing now; or unchanged */
    }
    t->count = head[1];
    s = dyn_read(d, target, offsetof(osc_dyn_table_t, r), t->r, head[1] * sizeof(t->r[0]));
    if (s == RCMSG_OK) {
        s = dyn_read(d, target, 0, &again, sizeof(again));
    }
    *whole = s == RCMSG_OK && again == head[0];
    return s;
}

/* target's table into d->copy[target], consistent. The reads go to a table of their own and
 * the copy is replaced whole after them: the reads' waits may let the core lock go
 * (MPI_THREAD_MULTIPLE), and another thread may look the copy up meanwhile. */
static rcmsg_status_t dyn_refresh(osc_dyn_t *d, int target)
{
    osc_dyn_table_t *c = d->copy[target], *t;
    rcmsg_status_t s = RCMSG_OK;
    bool whole = false;

    uint64_t version;

    if (c == NULL && (c = d->copy[target] = calloc(1, sizeof(*c))) == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    /* the version first: an unchanged table (the common case) needs no table of its own */
    if ((s = dyn_read(d, target, 0, &version, sizeof(version))) != RCMSG_OK ||
        version == c->version) {
        return s;
    }
    if ((t = malloc(sizeof(*t))) == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int tries = 0; s == RCMSG_OK && tries < OSC_DYN_TRIES; tries++) {
        s = dyn_read_table(d, target, c->version, t, &whole);
        if (s != RCMSG_OK || whole || t->version == c->version) {
            break;
        }
        rcmsg_thread_pause(); /* changing now */
    }
    if (s == RCMSG_OK && whole) {
        memcpy(c->r, t->r, t->count * sizeof(t->r[0]));
        c->count = t->count;
        c->version = t->version;
    } else if (s == RCMSG_OK && t->version != c->version) {
        rcmsg_error("one-sided: member %d's table of attached regions kept changing over %d reads",
                    target, OSC_DYN_TRIES);
        s = RCMSG_ERR_TIMEOUT;
    }
    free(t);
    return s;
}

rcmsg_status_t osc_dyn_find(rcmsg_win_t win, int target, size_t disp, size_t len)
{
    osc_dyn_t *d = win->dyn;
    const osc_region_t *r;
    rcmsg_status_t s;

    if (target == win->rank) {
        r = dyn_lookup(d->mine, disp, len);
    } else {
        /* the round before the reads: one that delivers news during them makes the next access
         * read again; a copy taken as current that misses the address is read again once (the
         * news may have come without a round: a load from shared memory, a CMA get) */
        uint64_t round = d->round;
        bool read = d->fresh[target] != round + 1;

        for (;;) {
            if (read && (s = dyn_refresh(d, target)) != RCMSG_OK) {
                return s;
            }
            d->fresh[target] = read ? round + 1 : d->fresh[target];
            r = dyn_lookup(d->copy[target], disp, len);
            if (r != NULL || read) {
                break;
            }
            read = true;
        }
    }
    if (r == NULL) {
        return RCMSG_ERR_NOT_FOUND;
    }
    win->dyn_rkey = r->rkey;
    return RCMSG_OK;
}

/* ---- attach and detach: this member's table, written under its sequence lock ---------- */

static void dyn_write_begin(osc_dyn_table_t *t)
{
    __atomic_store_n(&t->version, t->version + 1, __ATOMIC_SEQ_CST);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the entries' stores after it */
}

static void dyn_write_end(osc_dyn_table_t *t)
{
    __atomic_store_n(&t->version, t->version + 1, __ATOMIC_SEQ_CST);
}

static rcmsg_status_t dyn_args(const char *call, rcmsg_win_t win, const void *base)
{
    if (win == RCMSG_WIN_NULL || win->dyn == NULL) {
        rcmsg_error("%s: %s", call, win == RCMSG_WIN_NULL ? "no window" : "not a dynamic window");
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (base == NULL) {
        rcmsg_error("%s: base is NULL", call);
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_win_attach(rcmsg_win_t win, void *base, size_t size)
{
    RCMSG_MT_GUARD();
    rcmsg_status_t s = dyn_args("rcmsg_win_attach", win, base);
    uintptr_t b = (uintptr_t)base;
    osc_dyn_table_t *t;
    rcmsg_btl_mem_t mem = {0};

    if (s != RCMSG_OK) {
        return s;
    }
    t = win->dyn->mine;
    if (size > UINTPTR_MAX - b) {
        rcmsg_error("rcmsg_win_attach: %zu bytes at %p wrap around the address space", size, base);
        return RCMSG_ERR_INVALID_PARAM;
    }
    for (uint64_t i = 0; i < t->count; i++) {
        const osc_region_t *r = &t->r[i];
        if (size > 0 && r->size > 0 && b < r->base + r->size && r->base < b + size) {
            rcmsg_error("rcmsg_win_attach: [%p, +%zu) overlaps the attached region [0x%llx, "
                        "+%llu)",
                        base, size, (unsigned long long)r->base, (unsigned long long)r->size);
            return RCMSG_ERR_INVALID_PARAM;
        }
    }
    if (t->count == OSC_DYN_MAX) {
        rcmsg_error("rcmsg_win_attach: %d regions are attached already (the most)", OSC_DYN_MAX);
        return RCMSG_ERR_NO_RESOURCE;
    }
    if (win->rc != NULL && size > 0 &&
        (s = win->rc->ops->mem_reg(win->rc, base, size, RCMSG_BTL_MEM_WINDOW, &mem)) != RCMSG_OK) {
        rcmsg_error("rcmsg_win_attach: registering %zu bytes at %p for remote access failed", size,
                    base);
        return s;
    }
    dyn_write_begin(t);
    win->dyn->mem[t->count] = mem;
    t->r[t->count++] =
        (osc_region_t){.base = b, .size = size, .rkey = mem.priv != NULL ? mem.rkey : 0};
    dyn_write_end(t);
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_win_detach(rcmsg_win_t win, const void *base)
{
    RCMSG_MT_GUARD();
    rcmsg_status_t s = dyn_args("rcmsg_win_detach", win, base);
    osc_dyn_t *d;
    osc_dyn_table_t *t;
    rcmsg_btl_mem_t mem;
    uint64_t i;

    if (s != RCMSG_OK) {
        return s;
    }
    d = win->dyn;
    t = d->mine;
    for (i = 0; i < t->count && t->r[i].base != (uintptr_t)base; i++) {
    }
    if (i == t->count) {
        rcmsg_error("rcmsg_win_detach: no region attached at %p", base);
        return RCMSG_ERR_NOT_FOUND;
    }
    mem = d->mem[i];
    dyn_write_begin(t);
    t->count--;
    t->r[i] = t->r[t->count]; /* the last one takes its place */
    d->mem[i] = d->mem[t->count];
    dyn_write_end(t);
    if (win->rc != NULL && mem.priv != NULL) { /* out of the table first */
        win->rc->ops->mem_dereg(win->rc, &mem);
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_win_attached(rcmsg_win_t win, int target, size_t disp, size_t len)
{
    RCMSG_MT_GUARD();
    if (win == RCMSG_WIN_NULL || target < 0 || target >= win->size) {
        rcmsg_error("rcmsg_win_attached: %s",
                    win == RCMSG_WIN_NULL ? "no window" : "target is not a member");
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (win->dyn == NULL) {
        return len <= win->m[target].size && disp <= win->m[target].size - len
                   ? RCMSG_OK
                   : RCMSG_ERR_NOT_FOUND;
    }
    return len == 0 ? RCMSG_OK : osc_dyn_find(win, target, disp, len);
}
