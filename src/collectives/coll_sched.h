/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Schedules: the one engine every collective runs on (coll_sched.c).
 *
 * An algorithm is a builder: it records what one rank does as a list of steps cut into phases
 * by fences, all addresses and lengths resolved when it is built:
 *
 *     [copy, recv a, send b, copy] FENCE [reduce, send c] FENCE [copy]
 *      \------- phase 0 --------/        \-- phase 1 --/        \ 2 /
 *
 * A phase runs its steps in order: a local step (copy, reduce) at once, a send or a
 * receive is posted in the communicator's collective space with the call's tag. The next
 * phase starts once every message of the phase has completed. A receive of another length is
 * logged, naming the sender, and kept (`mismatch`): the schedule runs on, since the other
 * members wait for this rank's later messages, and ends with it. Once a step fails otherwise
 * no further phase starts; the schedule ends, with the first error, when what was posted has
 * completed.
 *
 * A blocking collective runs the same builder with no schedule (a->sched NULL): each step runs
 * as it is recorded, a phase's messages posted together and waited for at its end
 * (rcmsg_coll_phase_now), so no step is stored or walked and the call costs what the
 * algorithm written by hand would. A nonblocking one builds into memory of its own and becomes
 * a request (rcmsg_coll_sched_start): rcmsg's progress advances it, through a progress hook
 * registered only while a schedule is active, and the last phase completes the request.
 *
 * Memory: rcmsg_coll_scratch_get(a, bytes) hands out memory that lives as long as the call:
 * the schedule's (the algorithms' scratch, the steps themselves), or for a blocking call its
 * communicator's arena until the call ends. coll_scratch.c owns it.
 */
#ifndef RCMSG_COLL_SCHED_H
#define RCMSG_COLL_SCHED_H

#include <rcmsg.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum {
    RCMSG_COLL_STEP_SEND,
    RCMSG_COLL_STEP_RECV,
    RCMSG_COLL_STEP_COPY,   /* memmove(dst, src, len) */
    RCMSG_COLL_STEP_REDUCE, /* dst = src op src2, len elements (dst may be src or src2) */
    RCMSG_COLL_STEP_FENCE,  /* the end of a phase */
} rcmsg_coll_step_kind_t;

typedef struct {
    rcmsg_coll_step_kind_t kind;
    int peer; /* send, recv */
    void *dst;
    const void *src;
    const void *src2;
    size_t len;
    rcmsg_request_t req; /* send, recv: while posted */
} rcmsg_coll_step_t;

/* An arena: memory handed out in order, given back all at once (coll_scratch.c). */
typedef struct rcmsg_coll_chunk rcmsg_coll_chunk_t;
typedef struct {
    rcmsg_coll_chunk_t *head; /* the chunk handed out from; older ones after it */
    unsigned long allocs;     /* malloc calls made (tests: a steady loop makes none) */
} rcmsg_coll_arena_t;

/* bytes (16-byte aligned) that live until the arena is reset or freed; NULL, logged, without
 * memory. */
void *rcmsg_coll_arena_get(rcmsg_coll_arena_t *ar, size_t bytes);
/* Empties the arena, keeping its memory (one chunk of the whole size when it had more). */
void rcmsg_coll_arena_reset(rcmsg_coll_arena_t *ar);
void rcmsg_coll_arena_free(rcmsg_coll_arena_t *ar);

typedef struct rcmsg_coll_sched rcmsg_coll_sched_t;

/* Steps held in the schedule itself: a small blocking call takes no arena memory for them. */
#define RCMSG_COLL_SCHED_INLINE 6

struct rcmsg_coll_sched {
    rcmsg_coll_arena_t *arena; /* what the build takes memory from */
    rcmsg_coll_step_t *steps;
    int nsteps, cap;
    int cur;     /* the next step to run */
    int phase;   /* the first step of the phase under way: its messages are [phase, cur) */
    int pending; /* messages of the phase not yet completed */
    rcmsg_status_t err;
    /* The first message of the wrong size (the ranks disagree on count, datatype or root): the
     * schedule runs on to its end, since the other members wait for its later messages (a
     * rank that stopped at it left them waiting forever), and completes with it. */
    rcmsg_status_t mismatch;
    /* what the steps need: name, tag, communicator, op, datatype (a copy of the call's) */
    rcmsg_comm_t comm;
    int tag;
    int coll;
    rcmsg_op_t op;
    rcmsg_datatype_t dtype;
    /* nonblocking only */
    rcmsg_coll_arena_t own;   /* the schedule's own memory (it lives in it) */
    rcmsg_request_t req;      /* completed with the outcome */
    rcmsg_coll_sched_t *next; /* the active list */
    rcmsg_coll_step_t inline_steps[RCMSG_COLL_SCHED_INLINE]; /* the first steps (not cleared) */
};

#endif /* RCMSG_COLL_SCHED_H */
