/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided communication (rcmsg.h's windows, docs/osc.md). Three files, calls going down:
 *   osc_win.c  the windows: made and freed collectively over a private duplicate of the
 *              user's communicator, the members' base, size and rc key exchanged among them,
 *              the memory registered with rc for remote access; the progress hook while any
 *              window lives
 *   osc_rma.c  put, get, fetch-and-add, compare-and-swap by the transport of each target
 *              (btl.h's put, get and atomic ops), checked against the target's window first;
 *              completions counted per target; flush and fence
 *   osc_am.c   what a transport cannot do (sm's atomics, puts without CMA) as a message to the
 *              target, done there by its progress hook, answered by a reply
 *   osc_dyn.c  dynamic windows: each member's table of attached regions (in a window of
 *              tables), the others' tables cached and read again one-sidedly
 * The state of a window is its struct below, owned by osc_win.c; osc_rma.c and osc_am.c keep
 * their counters and queues in it.
 */
#ifndef RCMSG_OSC_H
#define RCMSG_OSC_H

#include "base/queue.h"
#include "base/rcache.h"
#include "btl/btl.h"

#include <rcmsg.h>
#include <stdbool.h>
#include <stdint.h>

/* What each member tells the others of its memory when the window is made. */
typedef struct {
    uint64_t base;
    uint64_t size;
    uint32_t rkey; /* with rc: the window's registration key, 0 otherwise */
    int32_t pid;   /* rcmsg_win_allocate's shared memory (osc_shm.c): its memfd, or fd -1 */
    int32_t fd;
    uint32_t pad;
} osc_member_t;

/* The largest piece of a put or get by message (osc_am.c); longer ones go in pieces. */
#define OSC_AM_MAX (64 * 1024)
/* Atomic results in flight per window over rc (registered slots): more wait for one. */
#define OSC_SLOTS 256

/* osc_am.c: the replies being sent to one origin (target side), oldest first. */
typedef struct {
    rcmsg_queue_t replies;
    rcmsg_queue_link_t link; /* in the window's am_sending while replies is not empty */
} osc_am_origin_t;

/* osc_dyn.c: a dynamic window's state (NULL in the others). */
typedef struct osc_dyn osc_dyn_t;

struct rcmsg_win {
    rcmsg_comm_t comm; /* a private duplicate: the messages of osc_am.c, the fence's barrier */
    int rank, size;
    void *base;
    size_t len;
    bool allocated;            /* rcmsg_win_allocate: base is ours to free (osc_shm.c) */
    int shm_fd;                /* its memfd, or -1 (heap memory) */
    char **mapped;             /* [size]: members' windows mapped here (osc_shm.c), or NULL */
    osc_member_t *m;           /* [size] */
    int *world;                /* [size]: each member's rank in the job */
    rcmsg_btl_t **btl;         /* [size]: the transport that reaches each member */
    rcmsg_btl_t *rc;           /* the rc transport when opened (NULL otherwise) */
    rcmsg_btl_mem_t mem;       /* base registered with rc (priv NULL: not registered) */
    rcmsg_btl_mem_t slots_mem; /* slots registered with rc */
    uint64_t *slots;           /* [OSC_SLOTS]: atomic results over rc */
    int free_slots[OSC_SLOTS]; /* indices of free slots, nfree of them */
    int nfree;
    unsigned *pending;           /* [size]: operations started and not complete, per target */
    unsigned npending;           /* their sum */
    rcmsg_status_t *err;         /* [size]: first error since the last flush, per target */
    rcmsg_queue_t *am_ops;       /* [size] osc_am.c: operations by message in flight, per target */
    unsigned am_inflight;        /* of npending: those in am_ops (0: the poll walks no queue) */
    osc_am_origin_t *am_origins; /* [size] osc_am.c: replies being sent (target side), per
                                  * origin: one an origin does not take keeps no other's */
    rcmsg_queue_t am_sending;    /* osc_am.c: the origins with replies being sent */
    rcmsg_comm_t am_comm;        /* osc_am.c: a second duplicate, of the replies alone (their
                                  * receives, posted ahead, would sit before the requests' in
                                  * comm's matching queue of each target: a walk per request) */
    rcmsg_request_t am_req;      /* osc_am.c: the posted receive of the next request */
    char *am_buf;                /* its buffer */
    rcmsg_queue_link_t link;     /* in the live windows (osc_win.c) */
    osc_dyn_t *dyn;              /* rcmsg_win_create_dynamic's: disp is an address (osc_dyn.c) */
    uint32_t dyn_rkey;           /* its last checked access's region key (osc_check to the post) */
};

/* osc_shm.c: rcmsg_win_allocate's memory (shared where sm is opened: win->base, win->shm_fd;
 * logs what fails); the local members' windows mapped (win->mapped, after the exchange: a
 * member not mapped is reached by its transport); all of it released. */
rcmsg_status_t osc_shm_alloc(rcmsg_win_t win, size_t size);
void osc_shm_map(rcmsg_win_t win);
void osc_shm_release(rcmsg_win_t win);

/* osc_win.c: the live windows, for the hook. */
void osc_win_each(void (*fn)(rcmsg_win_t win));
/* A window's collective end: its operations completed, a barrier, everything released. */
rcmsg_status_t osc_win_close(rcmsg_win_t win);

/* osc_dyn.c: the bytes of a member's table of regions (the tables window's size each). */
size_t osc_dyn_table_size(void);
/* A dynamic window's state over tables (a window of one table per member, made before it);
 * NULL when out of memory. Released with the window (its regions deregistered); its tables
 * window is closed by the caller after the dynamic one. */
osc_dyn_t *osc_dyn_new(rcmsg_win_t tables);
rcmsg_win_t osc_dyn_tables(rcmsg_win_t win);
void osc_dyn_release(rcmsg_win_t win);
/* The target's attached regions hold [disp, disp + len) (one, or adjacent ones; its table
 * read again when this member's copy is not known current): RCMSG_OK and win->dyn_rkey the
 * key of the one at disp; RCMSG_ERR_NOT_FOUND when not; or the error of reading the table. */
rcmsg_status_t osc_dyn_find(rcmsg_win_t win, int target, size_t disp, size_t len);
/* The bytes of [disp, disp + len) in the target's region that holds disp (found by
 * osc_check just before: an access may cross adjacent regions), *rkey_p its key. */
size_t osc_dyn_piece(rcmsg_win_t win, int target, size_t disp, size_t len, uint32_t *rkey_p);
/* This member's own regions hold [disp, disp + len) (the target side of osc_am.c). */
bool osc_dyn_mine(rcmsg_win_t win, size_t disp, size_t len);
/* The progress hook's: the copies of the others' tables are no longer known current. */
void osc_dyn_stale(rcmsg_win_t win);

/* osc_rma.c: the completion of one operation to target (status: its outcome). */
void osc_done(rcmsg_win_t win, int target, rcmsg_status_t status);
/* The target's window holds [disp, disp + len) (atomic: at an 8-byte aligned address);
 * RCMSG_ERR_INVALID_PARAM, logged naming call, otherwise. */
rcmsg_status_t osc_check(const char *call, rcmsg_win_t win, int target, size_t disp, size_t len,
                         bool atomic);
/* Completes every operation of win to target (-1: all); the first error among them. */
rcmsg_status_t osc_flush(rcmsg_win_t win, int target);

/* osc_am.c. Kinds of the operations by message. */
typedef enum {
    OSC_AM_PUT,
    OSC_AM_GET,
    OSC_AM_FADD,
    OSC_AM_CSWAP,
    OSC_AM_ACC,  /* accumulate: operand the rcmsg_op_t, compare the rcmsg_datatype_t */
    OSC_AM_GACC, /* the same, answering the old bytes */
    OSC_AM_ACAS, /* compare-and-swap of one element: data is compare then swap */
} osc_am_kind_t;

/* One operation by message: len bytes of the target's window at disp; dlen bytes of data go
 * with the request, rlen bytes of the answer land at result; *old_p (may be NULL) gets an
 * atomic's old value. */
typedef struct {
    osc_am_kind_t kind;
    int target;
    uint64_t disp;
    size_t len;
    const void *data;
    size_t dlen;
    void *result;
    size_t rlen;
    uint64_t operand, compare;
    uint64_t *old_p;
} osc_am_call_t;
/* Duplicates comm for the replies and posts the receive of requests (at creation, collective);
 * cancels it and frees what remains (at free:
 * every operation of win complete). */
rcmsg_status_t osc_am_open(rcmsg_win_t win);
void osc_am_close(rcmsg_win_t win);
/* Starts one operation by message (len <= OSC_AM_MAX); it completes through osc_done. */
rcmsg_status_t osc_am_start(rcmsg_win_t win, const osc_am_call_t *c);
/* The progress hook's work on one window: requests served, replies and operations completed. */
int osc_am_poll(rcmsg_win_t win);

#endif /* RCMSG_OSC_H */
