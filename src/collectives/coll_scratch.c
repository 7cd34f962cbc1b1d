/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scratch memory of the collectives, kept per communicator: the one place in src/collectives
 * that allocates. A steady loop of a collective thus allocates nothing after its first call.
 *
 * Each communicator (comm->coll, made at its first collective that needs scratch) holds a
 * small stack of buffers, one per nesting level: rcmsg_coll_scratch_get takes the next level
 * and grows its buffer to the size asked (the old contents are dropped: a level is empty
 * when taken), rcmsg_coll_scratch_put gives it back. Levels nest because one call can hold
 * two at once: alltoall's copy of an in-place input while the algorithm takes its own, and
 * RCMSG_COLL_CHECK's records while the Bruck allgather that exchanges them takes its own.
 * rcmsg is called from one thread at a time (the MPI face provides FUNNELED at most), and a
 * collective runs to completion before the next starts on the same communicator, so the stack
 * never interleaves. Each communicator, dup and split children included, has its own; the
 * buffers live until the communicator is freed (rcmsg_comm_free or finalize: the pml calls
 * coll_scratch_fini).
 *
 * Arenas (rcmsg_coll_arena_t) hold schedules (coll_sched.h): memory handed out in order and
 * given back all at once. A blocking collective builds into its communicator's arena, emptied
 * before each build and kept: when a build needed more than its first chunk, the next empty
 * one is a single chunk of the whole size, so a steady loop allocates nothing. A nonblocking
 * collective's schedule lives in an arena of its own, freed when it completes.
 */
#include "config.h"

#include "coll.h"

#include "base/log.h"
#include "pml/pml.h"

#include <stddef.h>
#include <stdlib.h>

/* Nesting depth: alltoall's copy, the check's records, the check's allgather (3), plus one. */
#define COLL_SCRATCH_LEVELS 4
#define COLL_SCRATCH_MIN    256 /* the smallest buffer made: small calls share one size */

struct rcmsg_coll_chunk {
    rcmsg_coll_chunk_t *next;
    size_t cap, used;
    max_align_t data[];
};

struct rcmsg_coll_comm {
    rcmsg_coll_arena_t arena; /* the blocking collectives' schedules (rcmsg_coll_comm_arena) */
    struct {
        void *buf;
        size_t cap;
    } level[COLL_SCRATCH_LEVELS];
    int depth;            /* levels taken */
    unsigned long allocs; /* malloc calls made for this communicator (tests) */
};

/* The pml's hook: the communicator is being freed. */
static void coll_scratch_fini(rcmsg_comm_t comm)
{
    for (int i = 0; i < COLL_SCRATCH_LEVELS; i++) {
        free(comm->coll->level[i].buf);
    }
    rcmsg_coll_arena_free(&comm->coll->arena);
    free(comm->coll);
    comm->coll = NULL;
}

void rcmsg_coll_scratch_init(void)
{
    rcmsg_pml_set_comm_fini(coll_scratch_fini);
}

static struct rcmsg_coll_comm *coll_comm_of(const rcmsg_coll_args_t *a)
{
    if (a->comm->coll == NULL) {
        a->comm->coll = calloc(1, sizeof(*a->comm->coll));
        if (a->comm->coll == NULL) {
            rcmsg_error("%s: out of memory for the scratch state of communicator 0x%x",
                        rcmsg_coll_name(a->coll), a->comm->ctx);
            return NULL;
        }
        a->comm->coll->allocs = 1;
    }
    return a->comm->coll;
}

/* Grows level l to at least bytes; its contents are not kept. */
static void *level_grow(const rcmsg_coll_args_t *a, struct rcmsg_coll_comm *cc, int l, size_t bytes)
{
    size_t cap = bytes < COLL_SCRATCH_MIN ? COLL_SCRATCH_MIN : (bytes + 63) & ~(size_t)63;

    free(cc->level[l].buf); /* first: the old and the new one need not fit together */
    cc->level[l].buf = malloc(cap);
    cc->level[l].cap = cc->level[l].buf != NULL ? cap : 0;
    cc->allocs++;
    if (cc->level[l].buf == NULL) {
        rcmsg_error("%s: out of memory for %zu bytes of scratch on communicator 0x%x (%d ranks)",
                    rcmsg_coll_name(a->coll), bytes, a->comm->ctx, a->comm->size);
    }
    return cc->level[l].buf;
}

void *rcmsg_coll_scratch_get(const rcmsg_coll_args_t *a, size_t bytes)
{
    struct rcmsg_coll_comm *cc;
    void *p;

    if (a->sched != NULL) { /* a build: memory that lives as long as the schedule */
        return rcmsg_coll_arena_get(a->sched->arena, bytes);
    }
    cc = coll_comm_of(a);
    if (cc == NULL) {
        return NULL;
    }
    if (cc->depth == COLL_SCRATCH_LEVELS) {
        rcmsg_error("%s: scratch nested more than %d deep on communicator 0x%x (a bug)",
                    rcmsg_coll_name(a->coll), COLL_SCRATCH_LEVELS, a->comm->ctx);
        return NULL;
    }
    p = cc->level[cc->depth].buf;
    if (p == NULL || bytes > cc->level[cc->depth].cap) {
        p = level_grow(a, cc, cc->depth, bytes);
    }
    if (p != NULL) {
        cc->depth++;
    }
    return p;
}

void rcmsg_coll_scratch_put(const rcmsg_coll_args_t *a, void *p)
{
    struct rcmsg_coll_comm *cc = a->comm->coll;

    if (p == NULL || a->sched != NULL) {
        return; /* the get failed: nothing was taken; a build's memory goes with its schedule */
    }
    if (cc == NULL || cc->depth == 0 || cc->level[cc->depth - 1].buf != p) {
        rcmsg_error("%s: scratch %p given back out of order on communicator 0x%x (a bug)",
                    rcmsg_coll_name(a->coll), p, a->comm->ctx);
        return;
    }
    cc->depth--;
}

unsigned long rcmsg_coll_scratch_allocs(rcmsg_comm_t comm)
{
    return comm->coll != NULL ? comm->coll->allocs + comm->coll->arena.allocs : 0;
}

/* ---- arenas ---- */

#define COLL_CHUNK_MIN 4096

void *rcmsg_coll_arena_get(rcmsg_coll_arena_t *ar, size_t bytes)
{
    rcmsg_coll_chunk_t *c = ar->head;
    size_t b = (bytes + 15) & ~(size_t)15, cap;

    if (c != NULL && c->cap - c->used >= b) {
        void *p = (char *)c->data + c->used;
        c->used += b;
        return p;
    }
    cap = c != NULL && c->cap * 2 > COLL_CHUNK_MIN ? c->cap * 2 : COLL_CHUNK_MIN;
    cap = cap < b ? b : cap;
    c = malloc(sizeof(*c) + cap);
    ar->allocs++;
    if (c == NULL) {
        rcmsg_error("out of memory for %zu bytes of a collective's schedule", bytes);
        return NULL;
    }
    *c = (rcmsg_coll_chunk_t){.next = ar->head, .cap = cap, .used = b};
    ar->head = c;
    return c->data;
}

void rcmsg_coll_arena_free(rcmsg_coll_arena_t *ar)
{
    while (ar->head != NULL) {
        rcmsg_coll_chunk_t *c = ar->head;
        ar->head = c->next;
        free(c);
    }
}

void rcmsg_coll_arena_reset(rcmsg_coll_arena_t *ar)
{
    size_t total = 0;

    if (ar->head == NULL || ar->head->next == NULL) {
        if (ar->head != NULL) {
            ar->head->used = 0;
        }
        return;
    }
    for (rcmsg_coll_chunk_t *c = ar->head; c != NULL; c = c->next) {
        total += c->cap;
    }
    rcmsg_coll_arena_free(ar);
    ar->head = malloc(sizeof(*ar->head) + total); /* NULL: the next get makes one */
    ar->allocs++;
    if (ar->head != NULL) {
        *ar->head = (rcmsg_coll_chunk_t){.cap = total};
    }
}

rcmsg_coll_arena_t *rcmsg_coll_comm_arena(const rcmsg_coll_args_t *a)
{
    struct rcmsg_coll_comm *cc = coll_comm_of(a);

    if (cc == NULL) {
        return NULL;
    }
    rcmsg_coll_arena_reset(&cc->arena);
    return &cc->arena;
}

bool rcmsg_coll_table_grow(void **tab, size_t elem, size_t *cap, size_t need)
{
    size_t n = *cap ? *cap : 16;
    void *t;

    while (n < need) {
        n *= 2;
    }
    if (n == *cap) {
        return true;
    }
    t = realloc(*tab, n * elem);
    if (t == NULL) {
        rcmsg_error("out of memory for a table of %zu entries", n);
        return false;
    }
    *tab = t;
    *cap = n;
    return true;
}

size_t rcmsg_coll_scratch_bytes(rcmsg_comm_t comm)
{
    size_t bytes = 0;

    if (comm->coll == NULL) {
        return 0;
    }
    for (int i = 0; i < COLL_SCRATCH_LEVELS; i++) {
        bytes += comm->coll->level[i].cap;
    }
    for (rcmsg_coll_chunk_t *c = comm->coll->arena.head; c != NULL; c = c->next) {
        bytes += c->cap;
    }
    return bytes;
}
