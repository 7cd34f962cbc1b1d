/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_sm's internal header: the segment layout, the structs shared by its files, and the
 * functions one file calls in another. Not for use outside src/btl_sm/.
 *
 *   sm_btl.c     config, open/close, the ops table, progress, liveness, peer failure
 *   sm_segment.c the node key, the address record, connecting to a peer's segment
 *   sm_ring.c    rings: putting a cell, send, taking cells in progress
 *   sm_get.c     get: CMA reads, or staged copies through the segment
 *   sm_wake.c    wakeups and arm (blocking waits)
 *
 * Segment of a process (mapped by every local peer):
 *
 *   +--------+--------------------------------+-----+--------------------------------+
 *   | header | ring from local rank 0:        | ... | staging for local rank 0 | ... |
 *   |        | head | cell 0 .. n-1           |     | (CMA fallback copies)          |
 *   +--------+--------------------------------+-----+--------------------------------+
 *
 * Rings are single-producer (the sender) / single-consumer (the owner): the sender writes a
 * cell, then publishes it by a release store of the cell's seq (message index + 1); the owner
 * polls the next cell's seq with acquire, consumes cells in order and releases them by a
 * release store of head (once per progress call), which the sender reads only when its cached
 * copy says the ring is full. The sender's tail stays in its own memory. No locks. Both sides
 * prefetch the cells ahead of them (sm_ring.c): the lines move between the cores in parallel.
 */
#ifndef RCMSG_BTL_SM_INTERNAL_H
#define RCMSG_BTL_SM_INTERNAL_H

#include "sm_btl.h"

#include "base/clock.h"
#include "base/compiler.h"
#include "base/config_vars.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SM_MAGIC          0x72636d7367736d31ull /* "rcmsgsm1" */
#define SM_LIVENESS_US    100000
#define SM_CTL_CELLS      2
#define SM_PREFETCH_CELLS 16 /* cells the sender and the receiver prefetch ahead (sm_ring.c) */
#define SM_PREFETCH_LEN   (128 - 16)   /* the receiver: only after a message of two lines at most */
#define SM_CMA_PIECE      (1ull << 30) /* below MAX_RW_COUNT, the most one process_vm_readv moves */

enum { SM_CELL_MSG = 1, SM_CELL_GETREQ, SM_CELL_GETDONE };

/* Every setting sm uses, read once by rcmsg_sm_btl_open (sm_config_read) and nowhere else. */
typedef struct {
    unsigned ncells;      /* RCMSG_SM_CELLS: cells per ring */
    size_t eager_limit;   /* RCMSG_SM_EAGER_LIMIT, capped to cell_size - RCMSG_BTL_HDR_ROOM */
    size_t cell_size;     /* RCMSG_SM_CELL_SIZE, or eager_limit + RCMSG_BTL_HDR_ROOM: the
                           * largest message (header and payload) */
    bool cells_derived;   /* RCMSG_SM_CELL_SIZE is 0: the eager limit sized the cells */
    size_t staging;       /* RCMSG_SM_STAGING, rounded up to 64 bytes */
    int credits;          /* RCMSG_SM_EAGER_CREDITS (it unset, RCMSG_EAGER_CREDITS set: that) */
    rcmsg_sm_cma_t cma;   /* RCMSG_SM_CMA */
    const char *cma_text; /* its name, for messages */
    unsigned batch;       /* RCMSG_POLL_BATCH: cells taken per ring per progress() */
    bool sleeps;          /* RCMSG_WAIT_MODE not poll, or full progress: may sleep in sm_arm */
} sm_config_t;

/* A ring in its owner's segment, one per local sender. The sender keeps its own tail and a
 * cached copy of head (sm_peer_t), so the only line both sides write per message is the cell:
 * the owner polls the next cell's seq, in the same cache line as its header and first bytes. */
typedef struct {
    _Atomic uint64_t head; /* cells consumed, written by the owner; read by the sender only
                            * when its cached copy says the ring is full */
    _Atomic uint32_t sender_sleeping; /* the sender sleeps until head moves (see sm_arm) */
    char pad[52];
} sm_ring_t;

typedef struct {
    _Atomic uint64_t seq; /* index + 1 of the message it holds, written last by the sender */
    _Atomic uint32_t len; /* atomic: read once by the owner (sm_cell_handle), never re-read */
    _Atomic uint32_t type;
    char data[];
} sm_cell_t;

typedef struct {
    uint64_t magic;
    uint32_t pid, local_rank, nlocal, ncells;
    uint64_t cell_size, staging;
    _Atomic uint32_t closed; /* the owner finalized (sm_close): its exit is no loss */
    char pad[20];
    _Atomic uint32_t sleeping; /* the owner sleeps until a cell arrives (see sm_arm) */
    char pad2[60];
} sm_seg_hdr_t;
RCMSG_STATIC_ASSERT(sizeof(sm_seg_hdr_t) == 128, "the header keeps the rings cache-line aligned");

/* The body of a GETREQ (a chunk asked for) and of a GETDONE (the chunk is in staging). */
typedef struct {
    uint64_t remote_addr, len, token;
} sm_getreq_t;

typedef struct {
    int world; /* -1: not connected */
    int local_rank;
    pid_t pid;
    char *seg; /* its segment, mapped */
    size_t seg_size;
    bool cma; /* process_vm_readv works with this peer */
    bool failed;
    /* staged get from this peer (CMA fallback): one at a time, others wait */
    rcmsg_btl_desc_t *staged;
    char *staged_local;
    uint64_t staged_remote, staged_done;
    bool staged_req_pending; /* a GETREQ to send when its ring has room */
    uint64_t staged_asked;   /* length of the chunk asked for */
    /* a GETDONE this rank owes the peer (it asked us for data) */
    bool owe_done;
    uint64_t done_len, done_token;
    /* this rank as a sender into the peer's ring */
    uint64_t tail;       /* messages written */
    uint64_t head_cache; /* the ring's head when last read */
    bool full;           /* a put found the ring full: wake this rank when head moves */
    /* this rank as the receiver of the peer's ring here: cells before it were prefetched */
    uint64_t rx_ahead;
    uint64_t tx_ahead; /* as its sender: cells before it were prefetched for writing */
    /* wakeups: the peer's wakeup pipe, opened for writing (-1: none) */
    int wake_fd;
    bool sleeps; /* the peer may sleep (its RCMSG_WAIT_MODE is not poll, or its progress full) */
    /* the watch thread's (base/watch.h): a pidfd of the peer's process (-1: none, the thread
     * looks every SM_LIVENESS_US), and whether its loss was logged (by the thread or here) */
    int pidfd;
    atomic_bool exit_said;
} sm_peer_t;

typedef struct {
    rcmsg_btl_t super;
    rcmsg_btl_job_t job;
    sm_config_t cfg;
    int memfd;
    int wake_fd, wake_wr; /* this rank's wakeup pipe (read end readable after a peer's
                           * sm_wake(); the write end only keeps it open) */
    char *seg;
    size_t seg_size;
    size_t cell_stride, ring_size;
    uint64_t cell_mask;      /* ncells - 1 when ncells is a power of two (the default 64), else 0 */
    sm_peer_t *peers;        /* [job.size] */
    int *local_to_world;     /* [nlocal] */
    rcmsg_btl_desc_t **done; /* finished CMA gets, reported from progress */
    int ndone, capdone;
    unsigned calls;
    rcmsg_deadline_t next_check; /* sm_liveness */
    bool watched;                /* sm_watch_take registered with the watch thread */
    bool stop;                   /* recv_cb asked for no more messages in this progress call */
} sm_btl_t;

static inline sm_btl_t *sm_btl_of(rcmsg_btl_t *btl)
{
    return (sm_btl_t *)btl;
}

/* ---- layout ---- */

static inline sm_ring_t *sm_ring(const sm_btl_t *sm, char *seg, int sender_local)
{
    return (sm_ring_t *)(seg + sizeof(sm_seg_hdr_t) + (size_t)sender_local * sm->ring_size);
}

/* A mask where it can: a 64-bit division per message (both sides) cost bibw of tiny messages
 * a few percent. */
static inline sm_cell_t *sm_cell(const sm_btl_t *sm, sm_ring_t *ring, uint64_t index)
{
    uint64_t slot = sm->cell_mask != 0 ? index & sm->cell_mask : index % sm->cfg.ncells;

    return (sm_cell_t *)((char *)(ring + 1) + slot * sm->cell_stride);
}

static inline char *sm_staging(const sm_btl_t *sm, char *seg, int sender_local)
{
    return seg + sizeof(sm_seg_hdr_t) + (size_t)sm->job.local_size * sm->ring_size +
           (size_t)sender_local * sm->cfg.staging;
}

/* ---- sm_segment.c ---- */
rcmsg_status_t sm_addr_pack(rcmsg_btl_t *btl, void *buf, size_t *len_p);
rcmsg_status_t sm_connect(rcmsg_btl_t *btl, int peer, const void *addr, size_t len);
/* Creates and maps this rank's segment (memfd) and writes its header. */
rcmsg_status_t sm_segment_create(sm_btl_t *sm);

/* ---- sm_ring.c ---- */
/* Copies a cell into peer's segment (our ring there). RCMSG_ERR_NO_RESOURCE when full. */
rcmsg_status_t sm_put(sm_btl_t *sm, sm_peer_t *p, uint32_t type, const void *a, size_t alen,
                      const void *b, size_t blen);
rcmsg_status_t sm_send(rcmsg_btl_t *btl, int peer, const void *hdr, size_t hdr_len,
                       const void *payload, size_t len);
/* Takes up to cfg.batch published cells from local sender s; returns how many. */
int sm_ring_poll(sm_btl_t *sm, int s);

/* ---- sm_get.c ---- */
rcmsg_status_t sm_get(rcmsg_btl_t *btl, int peer, void *local, const rcmsg_btl_mem_t *lmem,
                      uint64_t remote_addr, uint32_t rkey, size_t len, rcmsg_btl_desc_t *desc);
/* May this process read the peer's memory (CMA)? */
bool sm_cma_probe(sm_btl_t *sm, sm_peer_t *p);
/* Asks the peer for the next chunk of the staged get (when its ring has room). */
void sm_staged_request(sm_btl_t *sm, sm_peer_t *p);
rcmsg_status_t sm_osc_put(rcmsg_btl_t *btl, int peer, const void *local,
                          const rcmsg_btl_mem_t *lmem, uint64_t remote_addr, uint32_t rkey,
                          size_t len, rcmsg_btl_desc_t *desc);
void sm_on_getreq(sm_btl_t *sm, sm_peer_t *p, const sm_getreq_t *req);
void sm_on_getdone(sm_btl_t *sm, sm_peer_t *p, const sm_getreq_t *done);

/* ---- sm_wake.c ---- */
/* Sets *flag, then fences: the caller checks for work next. */
void sm_sleep_announce(_Atomic uint32_t *flag);
/* After publishing a change the sleeper waits for: wakes it if it announced a sleep. */
void sm_wake(sm_peer_t *p, _Atomic uint32_t *flag);
rcmsg_status_t sm_wake_open(sm_peer_t *p, int peer, uint32_t pid, uint32_t wake_fd);
rcmsg_status_t sm_wake_create(sm_btl_t *sm);
rcmsg_status_t sm_arm(rcmsg_btl_t *btl);
int sm_event_fd(rcmsg_btl_t *btl);

/* ---- sm_btl.c ---- */
/* Marks p failed for good (once): fails its staged get, calls fail_cb. */
void sm_peer_fail(sm_btl_t *sm, sm_peer_t *p, const char *why);
/* Checks that local peers are alive (at most every SM_LIVENESS_US); returns how many were
 * found gone now. */
int sm_liveness(sm_btl_t *sm);
/* The watch thread watches p's process from connect on (sm_watch_forget before close). */
rcmsg_status_t sm_watch_peer(sm_btl_t *sm, sm_peer_t *p);
void sm_watch_forget(sm_btl_t *sm);

#endif /* RCMSG_BTL_SM_INTERNAL_H */
