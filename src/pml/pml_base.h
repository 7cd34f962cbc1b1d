/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bottom of the pml (pml_base.c): the state every file shares, the job and its peers'
 * links, expected sequence numbers and losses, owned here; the message names, the
 * sequence compare, registration, the record of discarded messages, and the hook up to a peer's
 * loss.
 */
#ifndef RCMSG_PML_BASE_H
#define RCMSG_PML_BASE_H

#include "pml_types.h"

/* A peer is lost (pml_on_peer_failed, pml_fail.c): the files below pml_fail.c call up through
 * this hook, which init sets, as the transports call their fail_cb. */
typedef void (*pml_peer_fail_t)(void *arg, int peer, rcmsg_status_t status, const char *cause);

typedef struct {
    rcmsg_wireup_t *w;
    int rank, size;
    pml_peer_t *peers;
    int *pending_peers, npending; /* the peers with work for progress (pml_peer_mark_pending) */
    int credits;                  /* RCMSG_EAGER_CREDITS: eager sends a peer may have unmatched */
    size_t max_len;               /* the node's memory: no buffer is longer */
    bool any_failed;              /* a peer was lost: finalize must not wait for every rank */
    bool finalizing; /* in rcmsg_pml_fini: every EAGER or RTS that comes is refused (on_msg) */
    rcmsg_status_t lost_launcher; /* RCMSG_ERR_LAUNCHER once the launcher is gone */
    uint64_t activity;         /* bumped by every message received and request completed (stalls) */
    pml_peer_fail_t peer_fail; /* set by init */
} pml_base_t;

extern pml_base_t pml;

/* Small and on the hot path of both sides: inline. */
static inline void pml_peer_mark_pending(int peer)
{
    if (!pml.peers[peer].pending) {
        pml.peers[peer].pending = true;
        pml.pending_peers[pml.npending++] = peer;
    }
}

/* Takes the i-th pending peer out of the list (the last one takes its place). */
static inline void pml_peer_unmark_pending(int i)
{
    pml.peers[pml.pending_peers[i]].pending = false;
    pml.pending_peers[i] = pml.pending_peers[--pml.npending];
}

/* Whether peer is lost (pml_fail.c), with what status, and whether the launcher told. */
static inline bool pml_peer_failed(int peer)
{
    return pml.peers[peer].loss.failed;
}

static inline rcmsg_status_t pml_peer_why(int peer)
{
    return pml.peers[peer].loss.why;
}

static inline bool pml_peer_reported(int peer)
{
    return pml.peers[peer].loss.reported;
}

/* The sequence number expected next from peer; its message seq taken (pml_rx.c). Liveness
 * reads a change as "heard from". */
static inline uint32_t pml_peer_rx_seq(int peer)
{
    return pml.peers[peer].rx_seq;
}

static inline void pml_peer_rx_took(int peer, uint32_t seq)
{
    pml.peers[peer].rx_seq = seq + 1;
}

/* The job's size and rank, room for the peers' links and the pending list. */
rcmsg_status_t pml_base_init(rcmsg_wireup_t *w);
/* Peer's link: its transport and the eager limit the pml takes for it. */
void pml_peer_link(int peer, rcmsg_btl_t *btl, size_t eager_limit);
/* Peer is lost with status why (pml_fail.c); the launcher reported its loss (before that). */
void pml_peer_set_lost(int peer, rcmsg_status_t why);
void pml_peer_set_reported(int peer);
void pml_base_fini(void);

void pml_set_peer_fail(pml_peer_fail_t fail);
/* Through the hook: peer is lost with status; cause: why, in words, or NULL. */
void pml_peer_fail(int peer, rcmsg_status_t status, const char *cause);
/* A peer sent what no correct rank sends: it is treated as lost (RCMSG_ERR_PEER_DATA). */
void pml_peer_bad(int peer, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Registers r's [buf, buf+len) on btl through the cache: r->reg and r->mem on success. */
rcmsg_status_t pml_mem_get(rcmsg_btl_t *btl, rcmsg_request_t r, void *buf, size_t len,
                           bool remote_read);
/* The record of eager messages discarded unreceived: seq added (bounded: the oldest go past
 * PML_DROPPED_MAX); whether seq is in it (then taken out). */
void pml_seqs_add(pml_seqs_t *s, uint32_t seq);
bool pml_seqs_take(pml_seqs_t *s, uint32_t seq);

#endif /* RCMSG_PML_BASE_H */
