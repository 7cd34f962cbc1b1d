/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive side (pml_recv.c): matched receives, unexpected messages, messages refused,
 * receives that can no longer be matched, and the rendezvous reads.
 */
#ifndef RCMSG_PML_RECV_H
#define RCMSG_PML_RECV_H

#include "pml_send.h"
#include "pml_match.h"

/* A peer's receive side, written here only. */
typedef struct {
    long orphans;       /* unexpected headers held for contexts with no communicator */
    pml_seqs_t dropped; /* its eager messages discarded unreceived (a CANCEL may name one) */
} pml_recv_peer_t;

typedef struct {
    pml_recv_peer_t *peers; /* indexed by world rank */
    rcmsg_match_t match;    /* posted receives and unexpected messages */
    long unexp_peak;
    size_t unexp_bytes, unexp_bytes_peak; /* eager payload held as unexpected */
    rcmsg_queue_t rndv_active;            /* rendezvous receives reading their data (rndv_link) */
    size_t chunk;                         /* RCMSG_RNDV_CHUNK */
    int max_reads;                        /* RCMSG_RNDV_READS */
} pml_recv_t;

extern pml_recv_t pml_rcv;

/* Unexpected headers peer left for contexts with no communicator (bounded: PML_ORPHANS_MAX). */
static inline long pml_recv_orphans(int peer)
{
    return pml_rcv.peers[peer].orphans;
}

/* u, an orphan, found its communicator: no longer counted against its sender. */
static inline void pml_unexp_adopt(pml_unexp_t *u)
{
    u->orphan = false;
    pml_rcv.peers[u->peer].orphans--;
}

rcmsg_status_t pml_recv_init(void);
void pml_recv_fini(void);
/* Whether peer's eager message seq was discarded here unreceived (then forgotten). */
bool pml_recv_dropped_take(int peer, uint32_t seq);
/* The record of peer's discarded messages, handed over (finalize): none is kept here. */
pml_seqs_t pml_recv_dropped_give(int peer);

/* An unexpected message is gone unreceived (taken back or refused): its memory counted off. */
void pml_unexp_forget(pml_unexp_t *u);
/* Keeps a message nothing matched (orphan: for a context with no communicator yet). */
void pml_unexp_push(const rcmsg_pml_rts_t *h, size_t hlen, int peer, const void *data, bool orphan);
/* Every posted receive that can no longer be matched (its source lost) fails. */
void pml_recv_fail_orphans(void);
/* A receive matched: r takes the message (header h from world rank peer; payload for eager). */
void pml_recv_matched(rcmsg_request_t r, const rcmsg_pml_rts_t *h, int peer, const void *data);
/* pml_unexp_find's search, when some message is unexpected. */
pml_unexp_t *pml_unexp_search(uint32_t ctx, int src, int tag, bool take);
/* The first unexpected message matching (ctx, src, tag); unlinked when take is true. Inline:
 * every receive posted asks, and with no unexpected message at all (a ping-pong's receive,
 * posted before its message) the answer needs no call (callgrind: 35 instructions less). */
static inline pml_unexp_t *pml_unexp_find(uint32_t ctx, int src, int tag, bool take)
{
    return pml_rcv.match.nmsgs != 0 ? pml_unexp_search(ctx, src, tag, take) : NULL;
}
/* A header names a sender rank that is not the peer it came from: the peer is bad; false. */
bool pml_src_bad(int peer, const struct rcmsg_comm *c, const rcmsg_pml_hdr_t *h)
    __attribute__((cold));

/* Whether the sender rank a header names is the peer it came from (inline: every message). */
static inline bool pml_src_check(int peer, const struct rcmsg_comm *c, const rcmsg_pml_hdr_t *h)
{
    if (__builtin_expect(h->src < 0 || h->src >= c->size || c->world[h->src] != peer, 0)) {
        return pml_src_bad(peer, c, h);
    }
    return true;
}
void pml_msg_refuse(int peer, const rcmsg_pml_rts_t *h, const char *why, rcmsg_log_level_t level,
                    rcmsg_status_t status);
/* Refuses (pml_msg_refuse) every unreceived message of context ctx; returns how many. */
long pml_unexp_refuse(uint32_t ctx, const char *why, rcmsg_status_t status);
/* The same for those from src (a rank of the communicator, or RCMSG_ANY_SOURCE) with tag (an
 * exact tag, internal ones too, or RCMSG_ANY_TAG). */
long pml_unexp_refuse_from(uint32_t ctx, int src, int tag, const char *why, rcmsg_status_t status);
bool pml_ctx_all_lost(uint32_t ctx, int my_rank);
rcmsg_status_t pml_recv_lost(const struct rcmsg_request *r, const struct rcmsg_comm *c);
rcmsg_status_t pml_lost_status(int peer);
/* The transport's broke_cb: every rendezvous receive from peer still reading is read again
 * from its first byte once its reads in flight are done (pml_rndv_step). */
void pml_on_peer_broke(void *arg, int peer);
bool pml_rndv_step(rcmsg_request_t r);

#endif /* RCMSG_PML_RECV_H */
