/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The point-to-point layer (pml): requests, MPI matching, the eager and rendezvous protocols
 * and eager flow control, above the transport interface (the same code for every transport).
 *
 * Wire format: every message starts with pml_hdr_t; an RTS adds the sender's buffer address,
 * rkey and request id; a FIN carries the sender's request id back with the receiver's outcome
 * (a failed read, or a message discarded unreceived, fails the send: never a false success).
 * A BREAK (an RTS-sized header: ctx the collective space, tag the lost member's rank in the
 * communicator, status its status) tells a member that a rank which saw a member die
 * directly has broken the communicator's collectives, so that they fail there too.
 * A CANCEL (RTS-sized: ctx, src, tag of the message, addr its sequence number, sreq the
 * sender's request id) asks the receiver to take back a send it has not matched: it removes
 * the message from its unexpected queue if it is there and answers with a CANCEL_ACK (sreq,
 * status 1: taken back, 0: matched already, or never there), as MPICH's cancel of a send.
 * A BYE (a header only) closes a job that lost a rank, in place of the launcher's barrier:
 * each survivor, once its sends are flushed, tells every other survivor in rcmsg_finalize.
 * Every header carries the per-pair sequence number (checked on receipt: a gap fails the
 * peer) and piggybacks returned eager credits (never more than were lent).
 */
#ifndef RCMSG_PML_H
#define RCMSG_PML_H

#include "base/log.h"
#include "base/queue.h"
#include "wireup/wireup.h"

#include <rcmsg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* X(name): the message types. */
#define RCMSG_PML_MSG_LIST(X)                                                                      \
    X(EAGER) X(RTS) X(FIN) X(CREDIT) X(BREAK) X(CANCEL) X(CANCEL_ACK) X(BYE)

typedef enum {
#define RCMSG_PML_MSG_ENUM(name) RCMSG_PML_##name,
    RCMSG_PML_MSG_LIST(RCMSG_PML_MSG_ENUM)
#undef RCMSG_PML_MSG_ENUM
        RCMSG_PML_MSG_COUNT
} rcmsg_pml_msg_t;

typedef struct {
    uint8_t type; /* rcmsg_pml_msg_t */
    uint8_t pad;
    uint16_t credits; /* eager credits returned to the receiver of this header */
    uint32_t ctx;     /* communicator context (low bit: collective space) */
    int32_t src;      /* sender's rank in that communicator */
    int32_t tag;
    uint32_t seq; /* per-pair sequence number */
    uint32_t pad2;
    uint64_t len; /* message length */
} rcmsg_pml_hdr_t;

typedef struct {
    rcmsg_pml_hdr_t hdr;
    uint64_t addr; /* RTS: sender's buffer; CANCEL: the sequence number of the message;
                      FIN: PML_FIN_REFUSED when the message was discarded unmatched */
    uint64_t sreq; /* the sender's request id */
    uint32_t rkey;
    int32_t status; /* FIN: the receiver's outcome (RCMSG_OK, or why the data was not taken);
                       BREAK: the lost member's status; CANCEL_ACK: 1 taken back, 0 not */
} rcmsg_pml_rts_t;

#define PML_FIN_REFUSED 1 /* a FIN's addr: discarded unmatched (a cancel of it takes) */

struct rcmsg_comm {
    uint32_t ctx; /* even; ctx | 1 is the collective space */
    int rank;
    int size;
    int *world;               /* [size]: comm rank -> world rank */
    uint32_t coll_seq;        /* collectives started on this communicator (part of their tags) */
    rcmsg_status_t coll_lost; /* once a member is lost, what its collectives fail with */
    rcmsg_queue_link_t live_link; /* in the live communicators (pml_handle.h) */
    bool live;                    /* its slot of the handle table holds it */
    bool adopting;                /* taking the messages that came first (pml_comm_create) */
    /* Nonblocking collectives under way on it, counted by the collectives (their schedules
     * hold the handle): rcmsg_comm_free refuses the communicator while any is. */
    int nbc_active;
    /* The collectives' own state of this communicator (their scratch memory), opaque here:
     * NULL until they make it; freed by their rcmsg_pml_set_comm_fini hook with it. */
    struct rcmsg_coll_comm *coll;
    /* An intercommunicator (rcmsg_intercomm_create, src/collectives): this communicator is
     * the union of its two groups (rank, size and world are the union's), inter says which
     * part is this rank's group; NULL for an intracommunicator. Freed with the communicator. */
    struct rcmsg_comm_inter *inter;
    /* rcmsg_comm_log_errors(c, 0): the application reports the errors of its own making that
     * c's collectives find (pml_caller_level) */
    bool errors_quiet;
};

/* The level of an error of the application's own making found by c's collectives (NULL: no
 * communicator): "error", or "debug" when the application reports c's errors itself. */
static inline rcmsg_log_level_t rcmsg_pml_caller_level(const struct rcmsg_comm *c)
{
    return c != NULL && c->errors_quiet ? RCMSG_LOG_DEBUG : RCMSG_LOG_ERROR;
}

/* The groups of an intercommunicator within the union: ranks [local_off, local_off +
 * local_size) are this rank's group, [remote_off, remote_off + remote_size) the other. */
struct rcmsg_comm_inter {
    int local_off, local_size;
    int remote_off, remote_size;
};

rcmsg_status_t rcmsg_pml_init(rcmsg_wireup_t *w);
/* RCMSG_ERR_PENDING (and nothing released) while requests are still live. After a loss the
 * survivors part here (pml.h's BYE, their sends flushed): an error of that, all released. */
rcmsg_status_t rcmsg_pml_fini(void);

/* The same as the public calls, on a communicator's collective space when coll is true. */
rcmsg_status_t rcmsg_pml_isend(const void *buf, size_t len, int dest, int tag, rcmsg_comm_t comm,
                               bool coll, rcmsg_request_t *req_p);
rcmsg_status_t rcmsg_pml_irecv(void *buf, size_t len, int source, int tag, rcmsg_comm_t comm,
                               bool coll, rcmsg_request_t *req_p);

/* The same without any argument check, for a layer above whose public call checked its
 * arguments once (the collectives, the agreement on a context): comm is a live communicator,
 * dest or source a rank of it (source: or RCMSG_ANY_SOURCE), tag >= 0 (or an internal tag of
 * the pml's), buf a buffer of len bytes (NULL when len is 0). Refused only without the
 * launcher (RCMSG_ERR_LAUNCHER, as every call). rcmsg_wait / rcmsg_waitall complete them. */
rcmsg_status_t rcmsg_pml_isend_unchecked(const void *buf, size_t len, int dest, int tag,
                                         struct rcmsg_comm *comm, bool coll,
                                         rcmsg_request_t *req_p);
rcmsg_status_t rcmsg_pml_irecv_unchecked(void *buf, size_t len, int source, int tag,
                                         struct rcmsg_comm *comm, bool coll,
                                         rcmsg_request_t *req_p);

/* The longest buffer this node can have (its memory, in bytes): a layer above that posts
 * through the unchecked entries refuses longer ones in its public call. */
size_t rcmsg_pml_max_len(void);

/* Takes back a receive that nothing has matched yet (*req_p becomes NULL); RCMSG_ERR_STATE
 * when it is matched already (it must then be waited for). For the layers above the pml
 * (a receive they posted and will not need); rcmsg_cancel is the public cancel. */
rcmsg_status_t rcmsg_pml_cancel_recv(rcmsg_request_t *req_p);

/* A request completed by a layer above (a nonblocking collective's schedule), not by the pml:
 * wait, test and the rest see it as any other (status: source and tag 0, count 0, error the
 * outcome); rcmsg_cancel refuses it. Its owner advances it from a progress hook and ends it
 * with rcmsg_pml_req_owned_complete, after which it must not touch it. */
rcmsg_status_t rcmsg_pml_req_owned(rcmsg_request_t *req_p);
void rcmsg_pml_req_owned_complete(rcmsg_request_t r, rcmsg_status_t status);
/* Whether a request is complete, without progress (for an owner that tests many). */
bool rcmsg_pml_req_done(rcmsg_request_t r);

/* Requests allocated and not yet freed (posted, in flight, or complete and not yet waited
 * for): the progress thread of RCMSG_ASYNC_PROGRESS=full sleeps long only when there are none. */
long rcmsg_pml_live_requests(void);

/* Whether a peer was lost during the job (its requests failed with RCMSG_ERR_CONNECTION); after
 * rcmsg_pml_fini, whether its survivors parted without the launcher's barrier. */
bool rcmsg_pml_peer_lost(void);

/* Between rcmsg_pml_fini and the end of the wireup's closing barrier (pml_fini_recv.c): the
 * transports, polled by the barrier (rcmsg_wireup_t's fini_poll), still answer what peers send
 * this rank (a message is discarded, a CANCEL answered, a rendezvous refused). Releases that. */
void rcmsg_pml_fini_recv_end(void);

/* RCMSG_COLL_CHECK over comm_dup and comm_split: the ranks of comm agree that each calls the
 * same (split: with a valid color) before anything changes; own is this rank's own verdict on
 * its arguments, refused everywhere when refused on one rank. Set by the collectives at their
 * init when the check is on (the pml calls nothing of the layers above it); NULL: no check. */
typedef rcmsg_status_t (*rcmsg_pml_comm_check_t)(rcmsg_comm_t comm, bool split, int color,
                                                 rcmsg_status_t own);
void rcmsg_pml_set_comm_check(rcmsg_pml_comm_check_t check);

/* Frees a communicator's comm->coll (not NULL) when the communicator is freed, by
 * rcmsg_comm_free or at finalize. Set by the collectives at their init. */
typedef void (*rcmsg_pml_comm_fini_t)(rcmsg_comm_t comm);
void rcmsg_pml_set_comm_fini(rcmsg_pml_comm_fini_t fini);

/* For rcmsg_info: the lines of the state dump and what they say. */
void rcmsg_pml_dump_describe(FILE *out);

/* Where a received sequence number stands against the expected one (modular). */
typedef enum {
    RCMSG_PML_SEQ_IN_ORDER,  /* the one expected */
    RCMSG_PML_SEQ_DUPLICATE, /* already seen */
    RCMSG_PML_SEQ_GAP,       /* ahead: messages are missing */
} rcmsg_pml_seq_t;
rcmsg_pml_seq_t rcmsg_pml_seq_check(uint32_t expected, uint32_t got);

const char *rcmsg_pml_msg_name(unsigned type);

#endif /* RCMSG_PML_H */
