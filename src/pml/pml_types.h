/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pml's types and limits (a request, a peer, an unexpected message), shared by its files;
 * the state of each file is declared in that file's header.
 */
#ifndef RCMSG_PML_TYPES_H
#define RCMSG_PML_TYPES_H
#include "pml.h"
#include "pml_match.h"
#include "base/clock.h"
#include "base/config_vars.h"
#include "base/log.h"
#include "base/queue.h"
#include "base/rcache.h"
#include "base/stats.h"
#include "btl/btl.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PML_REQ_CHUNK 256
#define PML_MAX_READS RCMSG_RNDV_READS_MAX /* descs[]: one per read in flight */
#define PML_TAG_SPLIT 0x7ffffff0           /* internal tag in the collective space */
/* rcmsg_comm_idup's agreement number seq of its parent, in the collective space: between the
 * collectives' tags (below 2^28) and PML_TAG_SPLIT */
#define PML_TAG_IDUP(seq) (0x10000000 | (int)((seq)&0xffffffu))
/* rcmsg_comm_create_ranks's agreement on a list and key of hash h (pml_ctx.c), in the
 * point-to-point space: internal tags -2 down to -2 - (2^30 - 1), never ANY_TAG's */
#define PML_TAG_AGREE(h) (-2 - (int)((h)&0x3fffffffu))

#define PML_CTX_IDS       16384 /* communicator context ids per process (pml_ctx.c) */
#define PML_CTX_WORDS     (PML_CTX_IDS / 64)
#define PML_CREDIT_ROUNDS 64    /* progress rounds a send out of credits waits for them */
#define PML_WATCH_CALLS   256   /* progress calls between two looks at the liveness clock */
#define PML_WATCH_US      10000 /* and at least this long between two looks at the launcher */
#define PML_ORPHANS_MAX   65536 /* unexpected headers a peer may leave for unknown contexts */
#define PML_FINI_POLLS    1024  /* finalize reads what the transports hold: at most so many polls */
#define PML_DROPPED_MAX   65536 /* discarded eager messages of a peer remembered for a CANCEL */

/* PML_REQ_OWNED: a request a layer above completes (a collective schedule: rcmsg_pml_req_owned). */
typedef enum { PML_REQ_SEND, PML_REQ_RECV, PML_REQ_OWNED } pml_req_kind_t;

struct rcmsg_request {
    /* Cleared by pml_req_alloc for every request: what eager messages use. */
    rcmsg_queue_link_t link; /* the free list or a peer's send queue */
    pml_req_kind_t kind;
    bool complete;    /* done for wait and test: finished, and no cancel answer awaited */
    bool finished;    /* the operation itself is over (an eager send: on the wire) */
    bool cancel_wait; /* a CANCEL is out to the receiver: its answer is awaited (pml_cancel.c) */
    bool cancelled;   /* cancelled: taken back unmatched (status.cancelled) */
    bool sent;        /* send: its EAGER or RTS is on the wire, with sequence number seq */
    bool in_use;
    bool queued; /* a send still in its peer's send queue */
    bool truncated;
    bool cancel_asked; /* send: a CANCEL went out for it (answered or not) */
    bool refused;      /* send: its receiver discarded it unmatched (a FIN said so): a cancel
                          of it takes */
    bool rndv;         /* a rendezvous: the fields below the line are set up (pml_req_rndv_begin) */
    uint32_t gen;      /* bumped at every allocation: names the request in FINs */
    uint32_t index;    /* position in the request chunks */
    uint32_t seq;      /* send (sent): the sequence number its EAGER or RTS went with */
    int credit_rounds; /* send: tries that found no eager credit */
    uint32_t ctx;
    int my_rank;   /* this rank in the request's communicator (kept: the comm may be freed) */
    int peer;      /* send: destination world rank; recv: matched sender's world rank */
    int src;       /* recv: requested source (comm rank or ANY) */
    int src_world; /* recv: requested source as a world rank, or -1 for ANY */
    int tag;
    void *buf;
    size_t len;
    rcmsg_msg_status_t st;
    rcmsg_match_recv_t mrecv;  /* recv: in the matching queues until matched */
    rcmsg_rcache_entry_t *reg; /* registration held until completion */
    /* Rendezvous only: left as they are by pml_req_alloc, cleared by pml_req_rndv_begin. */
    rcmsg_queue_link_t rndv_link; /* pml.rndv_active */
    const rcmsg_btl_mem_t *mem;
    uint64_t raddr;
    uint32_t rkey;
    uint64_t sreq;
    size_t msg_len, posted, done;
    int reads_out;
    bool reread;      /* its connection broke: read the whole message again (pml_on_peer_broke) */
    unsigned rereads; /* times it was read again */
    rcmsg_btl_desc_t descs[PML_MAX_READS];
};
RCMSG_STATIC_ASSERT(RCMSG_ARRAY_SIZE(((struct rcmsg_request *)NULL)->descs) >= RCMSG_RNDV_READS_MAX,
                    "a rendezvous request has a descriptor for each read RCMSG_RNDV_READS allows");

typedef struct pml_unexp {
    rcmsg_match_msg_t m;
    rcmsg_pml_rts_t h; /* header (and RTS fields) */
    int peer;          /* world rank of the sender */
    bool orphan;       /* for a context with no communicator yet: sender not yet checked */
    char *data;        /* eager payload (h.hdr.len bytes) */
} pml_unexp_t;

/* Sequence numbers of a peer's eager messages discarded here unreceived (pml_cancel.c): a
 * CANCEL of one is answered 'taken back'. */
typedef struct {
    uint32_t *v;
    int n, cap;
} pml_seqs_t;

/* A peer's loss (in its pml_peer_t): pml_fail.c marks it through pml_peer_set_lost and
 * pml_peer_set_reported, every file reads it through pml_peer_failed, pml_peer_why and
 * pml_peer_reported (pml_base.h). */
typedef struct {
    bool failed;
    bool reported;      /* its loss came from the launcher, which tells every rank */
    rcmsg_status_t why; /* failed: the status its requests fail with */
} pml_loss_t;

/* A peer's state read by files above and below the one that writes it (pml_base.c owns it,
 * every file reads and writes it through pml_base.h): its link (transport, counters and
 * limits, set at init), whether it is in the pending-peers list, the sequence number
 * expected next from it and its loss. The rest of a peer's state is kept by the file that
 * writes it, in an array indexed by peer: the send side's (pml_send.h), the receive side's
 * (pml_recv.h), BYE (pml_rx.h), liveness's (pml_liveness.h) and the communicators' breaking
 * (pml_break.h). */
typedef struct {
    rcmsg_btl_t *btl;
    uint64_t *stat;     /* the peer's counters (rcmsg_stats_row) */
    size_t max_inline;  /* btl's: eager messages up to this (with the header) go inline */
    size_t eager_limit; /* payloads up to this go eagerly (pml_eager_limit of its btl) */
    uint32_t rx_seq;    /* expected next: pml_rx.c's, one per message taken (liveness: heard) */
    bool pending;       /* in the pending-peers list */
    pml_loss_t loss;
} pml_peer_t;

/* A peer's receive path, written by pml_rx.c only: whether its BYE came (finalize after a
 * loss: it flushed; it may exit now). */
typedef struct {
    bool bye;
} pml_rx_peer_t;

#endif /* RCMSG_PML_TYPES_H */
