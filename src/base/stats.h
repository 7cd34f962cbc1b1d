/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters (RCMSG_STATS, RCMSG_STATS_FILE): per peer (and so per QP: a peer has one at a
 * time) and per rank, counted always with a plain increment into memory this module owns,
 * reported at rcmsg_finalize() when asked. Counting costs one compare and one add, whether
 * a report is wanted or not; there are no atomics (rcmsg is single-threaded).
 *
 * Each counter is declared once below, with the text rcmsg_info prints for it; the JSON keys
 * and the table columns are the names.
 */
#ifndef RCMSG_BASE_STATS_H
#define RCMSG_BASE_STATS_H

#include <rcmsg.h>
#include <stdint.h>
#include <stdio.h>

/* X(name, meaning): the counters kept per peer. */
#define RCMSG_STATS_PEER_LIST(X)                                                                   \
    X(msgs_sent_inline, "user messages sent inline (header and payload in the work request)")      \
    X(bytes_sent_inline, "payload bytes of those")                                                 \
    X(msgs_sent_eager,                                                                             \
      "user messages sent eagerly from a bounce buffer (inline ones not counted)")                 \
    X(bytes_sent_eager, "payload bytes of those")                                                  \
    X(msgs_sent_rndv, "user messages sent by rendezvous (an RTS; the receiver reads the data)")    \
    X(bytes_sent_rndv, "payload bytes of those")                                                   \
    X(msgs_recv_eager, "user messages received eagerly (inline ones included)")                    \
    X(bytes_recv_eager, "payload bytes of those")                                                  \
    X(msgs_recv_rndv, "user messages received by rendezvous (RTS received)")                       \
    X(bytes_recv_rndv, "payload bytes of those (as announced by the RTS)")                         \
    X(reads, "rendezvous reads issued by this rank (RDMA_READ chunks on rc, CMA reads on sm)")     \
    X(reads_bytes, "bytes of those")                                                               \
    X(credit_waits, "sends that found no eager credit and waited for one")                         \
    X(rndv_fallbacks, "eager-sized sends that went by rendezvous: credits did not come back")      \
    X(ctrl_sent, "control messages sent (FIN, CREDIT)")                                            \
    X(ctrl_recv, "control messages received (FIN, CREDIT)")                                        \
    X(qp_transitions, "QP state transitions made (rc)")                                            \
    X(cq_errors, "completions with an error status (rc; by status in the JSON)")                   \
    X(recoveries, "connections recovered after a QP error (rc)")                                   \
    X(rereads, "rendezvous messages read again from their first byte: their connection broke "     \
               "while they were read (rc)")                                                        \
    X(connects, "connections established (rc: reached RTS; sm: attached at init)")                 \
    X(disconnects, "connections closed (rc: idle recycling)")                                      \
    X(cm_retries, "connection manager packets sent again after a timeout (rc)")                    \
    X(rdmaw_sent, "messages sent by eager RDMA WRITE into the peer's ring (rc)")                   \
    X(rdmaw_recv, "messages received from this rank's ring for the peer (rc)")                     \
    X(rdmaw_fallbacks, "messages sent by SEND while a ring was set up (no free slot, too long, "   \
                       "a packet more than by SEND, or no bounce buffer)")                         \
    X(rdmaw_rings, "rings of the peer this rank was given to write (rc; again after a recovery)")

/* X(name, meaning): the counters kept per rank. */
#define RCMSG_STATS_RANK_LIST(X)                                                                   \
    X(unexp_peak, "most messages held in the unexpected queue at once")                            \
    X(unexp_bytes_peak, "most eager payload bytes held as unexpected at once")                     \
    X(cqes, "completions polled from the transports' completion queues (rc)")                      \
    X(empty_polls, "polls of a completion queue that found nothing (rc)")                          \
    X(qp_syncs, "QP states queried by the periodic sync (RCMSG_QP_SYNC_INTERVAL)")                 \
    X(qp_sync_mismatches, "QPs whose hardware state differed from the mirror")                     \
    X(stall_dumps, "dumps printed (RCMSG_STALL_TIMEOUT, SIGUSR1)")                                 \
    X(events_dropped, "event callbacks not delivered: the queue was full")

typedef enum {
#define RCMSG_STATS_ENUM(name, text) RCMSG_STAT_##name,
    RCMSG_STATS_PEER_LIST(RCMSG_STATS_ENUM)
#undef RCMSG_STATS_ENUM
        RCMSG_STAT_PEER_COUNT
} rcmsg_stat_t;

typedef enum {
#define RCMSG_STATS_ENUM(name, text) RCMSG_RSTAT_##name,
    RCMSG_STATS_RANK_LIST(RCMSG_STATS_ENUM)
#undef RCMSG_STATS_ENUM
        RCMSG_RSTAT_COUNT
} rcmsg_rstat_t;

/* Completion statuses counted one by one (ibv_wc_status values below this; the rest together). */
#define RCMSG_STATS_STATUS_MAX 32

typedef struct {
    uint64_t c[RCMSG_STAT_PEER_COUNT];
    uint64_t by_status[RCMSG_STATS_STATUS_MAX];
    const char *transport; /* static name, NULL: none */
    uint32_t qpn;          /* the current QP (rc), 0: none */
} rcmsg_stats_peer_t;

typedef struct {
    rcmsg_stats_peer_t *peers; /* [npeers], NULL before rcmsg_stats_init() */
    int npeers;
    int rank;
    uint64_t r[RCMSG_RSTAT_COUNT];
    const char *(*status_name)(int status); /* names of by_status[] (set by rc) */
} rcmsg_stats_t;

extern rcmsg_stats_t rcmsg_stats;

/* Adds n to peer's counter id; peers outside the job (or before init) are not counted. */
static inline void rcmsg_stat_add(int peer, rcmsg_stat_t id, uint64_t n)
{
    if ((unsigned)peer < (unsigned)rcmsg_stats.npeers) {
        rcmsg_stats.peers[peer].c[id] += n;
    }
}

static inline void rcmsg_rstat_add(rcmsg_rstat_t id, uint64_t n)
{
    rcmsg_stats.r[id] += n;
}

static inline void rcmsg_rstat_max(rcmsg_rstat_t id, uint64_t v)
{
    if (v > rcmsg_stats.r[id]) {
        rcmsg_stats.r[id] = v;
    }
}

/* peer's counter row, for a layer that keeps it next to its own per-peer state (the pml: one
 * add per message, no bounds check); a scratch row nobody reports for a peer outside the job. */
uint64_t *rcmsg_stats_row(int peer);

/* A completion error of peer with status (counted in cq_errors and by status). */
void rcmsg_stat_status(int peer, int status);
void rcmsg_stats_set_transport(int peer, const char *name);
void rcmsg_stats_set_qpn(int peer, uint32_t qpn);

/* Zeroes every counter and sizes them for a job of size ranks (this one: rank). */
int rcmsg_stats_init(int rank, int size);
/* After init: whether RCMSG_STATS_FILE, if set, names a file this process can write (its
 * directory exists and may be written, or the file exists and may be): else logs why, naming
 * the variable and the path, and returns RCMSG_ERR_CONFIG, so that rcmsg_init fails rather
 * than a long job's counters being lost at finalize. Nothing is created. */
rcmsg_status_t rcmsg_stats_file_check(void);
/* The report RCMSG_STATS and RCMSG_STATS_FILE ask for (at finalize), then nothing is kept. */
void rcmsg_stats_report(void);
void rcmsg_stats_fini(void);

/* For rcmsg_info: every counter and what it means. */
void rcmsg_stats_describe(FILE *out);

#endif /* RCMSG_BASE_STATS_H */
