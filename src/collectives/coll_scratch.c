/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scratch memory of the collectives, kept per communicator: the one place in src/collectives
 * that allocates. A steady loop of a collective thus allocates nothing after its first call.
 *
 * Arenas (rcmsg_coll_arena_t) hand out memory in order and take it back all at once. A blocking
 * collective takes its scratch from its communicator's arena (comm->coll, made at the first
 * blocking call that takes scratch on it), emptied when the call ends (rcmsg_coll_scratch_end)
 * and kept: when a call needed more than the first chunk, the emptied arena is a single chunk
 * of the whole size, so a steady loop allocates nothing after its first call. Under
 * RCMSG_THREAD_MULTIPLE the arenas are the core lock's (docs/threads.md), and a blocking
 * collective still runs to completion before the next starts on the same communicator (MPI
 * orders the collectives of one communicator; other threads' run on others); each
 * communicator, dup and split children included, has its own arena, freed with it
 * (rcmsg_comm_free or finalize: the pml calls coll_scratch_fini). A nonblocking collective's
 * schedule, its scratch included, lives in an arena of its own, freed when it completes.
 */
#include "config.h"

#include "coll.h"

#include "base/log.h"
#include "pml/pml.h"

#include <stddef.h>
#include <stdlib.h>

struct rcmsg_coll_chunk {
    rcmsg_coll_chunk_t *next;
    size_t cap, used;
    max_align_t data[];
};

struct rcmsg_coll_comm {
    rcmsg_coll_arena_t arena; /* the blocking collectives' scratch */
};

/* The pml's hook: the communicator is being freed. */
static void coll_scratch_fini(rcmsg_comm_t comm)
{
    rcmsg_coll_arena_free(&comm->coll->arena);
    free(comm->coll);
    comm->coll = NULL;
}

void rcmsg_coll_scratch_init(void)
{
    rcmsg_pml_set_comm_fini(coll_scratch_fini);
}

/* comm->coll, made at the first blocking call that takes scratch; NULL, logged, without memory. */
static __attribute__((noinline)) struct rcmsg_coll_comm *coll_comm_new(const rcmsg_coll_args_t *a)
{
    struct rcmsg_coll_comm *cc = calloc(1, sizeof(*cc));

    if (cc == NULL) {
        rcmsg_error("%s: out of memory for the scratch state of communicator 0x%x",
                    rcmsg_coll_name(a->coll), a->comm->ctx);
        return NULL;
    }
    cc->arena.allocs = 1; /* this one */
    a->comm->coll = cc;
    return cc;
}

void *rcmsg_coll_scratch_get(const rcmsg_coll_args_t *a, size_t bytes)
{
    struct rcmsg_coll_comm *cc;

    if (a->sched != NULL) { /* (a schedule in the unit tests has no communicator) */
        return rcmsg_coll_arena_get(a->sched->arena, bytes);
    }
    cc = a->comm->coll;
    if (cc == NULL && (cc = coll_comm_new(a)) == NULL) {
        return NULL;
    }
    return rcmsg_coll_arena_get(&cc->arena, bytes);
}

void rcmsg_coll_scratch_end(rcmsg_comm_t comm)
{
    rcmsg_coll_arena_reset(&comm->coll->arena);
}

unsigned long rcmsg_coll_scratch_allocs(rcmsg_comm_t comm)
{
    return comm->coll != NULL ? comm->coll->arena.allocs : 0;
}

/* ---- arenas ---- */

#define COLL_CHUNK_MIN 4096

/* A new chunk at the head of ar, of twice the last one's size (at least b bytes), its first b
 * bytes handed out. */
static __attribute__((noinline)) void *arena_grow(rcmsg_coll_arena_t *ar, size_t bytes, size_t b)
{
    rcmsg_coll_chunk_t *c = ar->head;
    size_t cap = c != NULL && c->cap * 2 > COLL_CHUNK_MIN ? c->cap * 2 : COLL_CHUNK_MIN;

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

void *rcmsg_coll_arena_get(rcmsg_coll_arena_t *ar, size_t bytes)
{
    rcmsg_coll_chunk_t *c = ar->head;
    size_t b = (bytes + 15) & ~(size_t)15;

    if (c != NULL && c->cap - c->used >= b) {
        void *p = (char *)c->data + c->used;
        c->used += b;
        return p;
    }
    return arena_grow(ar, bytes, b);
}

void rcmsg_coll_arena_free(rcmsg_coll_arena_t *ar)
{
    while (ar->head != NULL) {
        rcmsg_coll_chunk_t *c = ar->head;
        ar->head = c->next;
        free(c);
    }
}

/* Replaces ar's chunks (more than one) with one of their whole size. */
static __attribute__((noinline)) void arena_merge(rcmsg_coll_arena_t *ar)
{
    size_t total = 0;

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

void rcmsg_coll_arena_reset(rcmsg_coll_arena_t *ar)
{
    if (ar->head != NULL && ar->head->next != NULL) {
        arena_merge(ar);
    } else if (ar->head != NULL) {
        ar->head->used = 0;
    }
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
    for (rcmsg_coll_chunk_t *c = comm->coll->arena.head; c != NULL; c = c->next) {
        bytes += c->cap;
    }
    return bytes;
}
