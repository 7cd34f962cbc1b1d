/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport interface (btl = byte transfer layer). Protocols above (eager, rendezvous,
 * matching) see only this: one ops table of function pointers and one caps struct of limits
 * per transport. Transports never call up except through the callbacks given here.
 *
 * A transport instance embeds rcmsg_btl_t as its first member and downcasts with a typed
 * helper (see rc_btl_of() in btl_rc). Peers are named by their rank in the job.
 *
 * Ownership rules:
 *  - send() copies header and payload (into a registered bounce buffer or inline) before it
 *    returns RCMSG_OK: the caller may reuse both at once. Delivery is reliable and in order
 *    per peer, or the peer's endpoint fails and every later send to it returns
 *    RCMSG_ERR_CONNECTION. RCMSG_ERR_NO_RESOURCE means "no room now": call progress, retry.
 *  - get() reads remote memory into local memory; desc is owned by the caller and must stay
 *    valid until desc->complete() has been called (exactly once, from progress(), with the
 *    final status). The local buffer belongs to the transport until then.
 *  - The receive callback's data is valid only inside the callback: copy out what you keep.
 *  - Memory handles from mem_reg() belong to the caller until mem_dereg().
 *
 * Threads (RCMSG_THREAD_MULTIPLE, docs/threads.md): the layer above serializes every call into
 * a transport. Whenever more than one thread may call rcmsg, each op of the table (and so each
 * callback a transport makes from inside one: recv_cb, fail_cb, broke_cb, desc->complete) runs
 * with rcmsg's core lock held (src/base/mt.h), one op at a time per process, from any thread:
 * a transport needs no lock against the calls from above and must not assume the same thread
 * calls it twice (no thread-local state). A transport that runs threads of its own (btl_rc's
 * async and connection-manager threads) guards what they share with the ops by locks of its
 * own, taken inside the core lock (lock order: core, then the transport's), and its threads
 * never call up (the callbacks) nor take the core lock while holding one of its locks. btl_sm
 * and btl_self have no thread of their own: nothing more to do.
 */
#ifndef RCMSG_BTL_H
#define RCMSG_BTL_H

#include <rcmsg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rcmsg_btl rcmsg_btl_t;

/* Room a transport keeps in front of an eager payload for the protocol's header (the pml's
 * largest, its RTS, is 56 bytes): a transport that sizes its buffers from an eager limit
 * makes them this much larger. */
#define RCMSG_BTL_HDR_ROOM 64

/* caps.eager_limit of a transport without one of its own: the pml's RCMSG_EAGER_LIMIT. */
#define RCMSG_BTL_EAGER_DEFAULT SIZE_MAX

/* What a transport can do; the protocols size their messages from these. */
typedef struct {
    size_t max_send;    /* largest header + payload of one send() */
    size_t eager_limit; /* largest payload worth sending eagerly (a copy through send()) rather
                         * than by rendezvous (a get); RCMSG_BTL_EAGER_DEFAULT: the pml's
                         * choice. The pml caps it by max_send less its header. */
    size_t max_inline;  /* sends up to this size go inline (no bounce copy on RC) */
    size_t max_get;     /* largest single get() (0: get unsupported) */
    unsigned max_gets;  /* gets worth having in flight per peer (RC: the QP's max_rd_atomic) */
    int chunked_gets;   /* split long gets into RCMSG_RNDV_CHUNK pieces (RC); 0: one get of any
                         * length is best (a single process_vm_readv on sm) */
    int stops;          /* progress() delivers nothing more in a call once recv_cb returned
                         * true (sm); 0: it delivers all it polled */
    int eager_credits;  /* eager messages the pml lets a peer over this transport have unmatched
                         * (sm: RCMSG_SM_EAGER_CREDITS); 0: the pml's RCMSG_EAGER_CREDITS */
} rcmsg_btl_caps_t;

/* A registered region. The transport fills it; addr/len echo the request. */
typedef struct rcmsg_btl_mem {
    void *addr;
    size_t len;
    uint32_t lkey;
    uint32_t rkey;
    void *priv; /* transport's handle (struct ibv_mr *, ...) */
} rcmsg_btl_mem_t;

/* mem_reg's access (its int argument): what the region is for. */
#define RCMSG_BTL_MEM_LOCAL  0 /* this rank writes into it (a get's destination) */
#define RCMSG_BTL_MEM_READ   1 /* peers read it (a rendezvous sender's buffer) */
#define RCMSG_BTL_MEM_WINDOW 2 /* a one-sided window: peers read, write and do atomics on it */

/* The 64-bit atomics of the atomic op (one-sided, src/osc). */
typedef enum {
    RCMSG_BTL_ATOMIC_FADD,  /* *result = old; remote += operand */
    RCMSG_BTL_ATOMIC_CSWAP, /* *result = old; remote = operand if old == compare */
} rcmsg_btl_atomic_t;

/* A get's (put's, atomic's) descriptor: owned by the caller, see the rules above. */
typedef struct rcmsg_btl_desc {
    void (*complete)(struct rcmsg_btl_desc *desc, rcmsg_status_t status);
    void *arg;
    int peer;
    size_t len;
} rcmsg_btl_desc_t;

/* Called from progress() for each message received; data valid only inside the call. Returns
 * true when the message completed what the caller of progress waits for: a transport with
 * caps.stops (sm) then takes no more messages in this call, so the waiter returns at once
 * rather than reading cells its peer may be writing. Other transports ignore it. */
typedef bool (*rcmsg_btl_recv_cb_t)(void *arg, int peer, const void *data, size_t len);

/* Called from progress() when a peer's endpoint has failed for good; cause says why in words
 * (valid only inside the call). */
typedef void (*rcmsg_btl_fail_cb_t)(void *arg, int peer, rcmsg_status_t status, const char *cause);

/* Called from progress when the connection to peer broke and is being recovered (rc): a read
 * from peer that completed before the break is not trusted (Soft-RoCE was seen to complete one
 * with wrong bytes just before its QP went to ERR); the layer above reads again the messages
 * whose reads it has not finished. */
typedef void (*rcmsg_btl_broke_cb_t)(void *arg, int peer);

typedef struct {
    /* Pack this process's address for all peers (once, after open). *len_p: in buf size, out used.
     */
    rcmsg_status_t (*addr_pack)(rcmsg_btl_t *btl, void *buf, size_t *len_p);
    /* Connect to peer with the address blob it published: starts making the endpoint ready
     * (a transport that needs a handshake only records the peer here). */
    rcmsg_status_t (*connect)(rcmsg_btl_t *btl, int peer, const void *addr, size_t len);
    /* Drives the connects started by connect(): RCMSG_OK once every peer given to connect() is
     * ready, RCMSG_INPROGRESS while some are under way, an error (logged naming the peer) when
     * one failed, within the transport's own bound. Delivers no message (the callbacks may not
     * be set yet) and may be called again after RCMSG_OK, to keep answering peers still
     * finishing their side (wireup calls it during the closing fence of init). */
    rcmsg_status_t (*connect_progress)(rcmsg_btl_t *btl);
    /* Optional (NULL: nothing to do): answers the peers' handshakes while wireup still gives
     * peers to connect() (between its address fetches), so that a peer that is done fetching
     * does not wait for this rank; concludes nothing. */
    void (*connect_poll)(rcmsg_btl_t *btl);
    rcmsg_status_t (*send)(rcmsg_btl_t *btl, int peer, const void *hdr, size_t hdr_len,
                           const void *payload, size_t len);
    rcmsg_status_t (*get)(rcmsg_btl_t *btl, int peer, void *local, const rcmsg_btl_mem_t *lmem,
                          uint64_t remote_addr, uint32_t rkey, size_t len, rcmsg_btl_desc_t *desc);
    /* One-sided (src/osc; NULL: unsupported, the layer above does it by messages). As get:
     * desc completes once from progress() (for put: the bytes are in the peer's memory; for
     * atomic: *result holds the old value), or the call fails and nothing was started. put
     * takes lmem NULL when len <= caps.max_inline (the bytes are copied at once); atomic's
     * result is 8 bytes, aligned, inside lmem, and so is its remote address. */
    rcmsg_status_t (*put)(rcmsg_btl_t *btl, int peer, const void *local,
                          const rcmsg_btl_mem_t *lmem, uint64_t remote_addr, uint32_t rkey,
                          size_t len, rcmsg_btl_desc_t *desc);
    rcmsg_status_t (*atomic)(rcmsg_btl_t *btl, int peer, rcmsg_btl_atomic_t op, uint64_t *result,
                             const rcmsg_btl_mem_t *lmem, uint64_t remote_addr, uint32_t rkey,
                             uint64_t operand, uint64_t compare, rcmsg_btl_desc_t *desc);
    /* access: RCMSG_BTL_MEM_LOCAL, _READ or _WINDOW (a boolean "remote read" means _READ) */
    rcmsg_status_t (*mem_reg)(rcmsg_btl_t *btl, void *addr, size_t len, int remote_read,
                              rcmsg_btl_mem_t *mem_p);
    void (*mem_dereg)(rcmsg_btl_t *btl, rcmsg_btl_mem_t *mem);
    /* Probes peer's liveness without using its receive buffers (RC: a zero-length RDMA_WRITE
     * its hardware acknowledges): a dead peer makes the endpoint fail through fail_cb within
     * the transport's retry bound. RCMSG_ERR_UNSUPPORTED from transports that notice lost
     * peers by themselves (sm, self). */
    rcmsg_status_t (*ping)(rcmsg_btl_t *btl, int peer);
    /* Drive completions; returns the number of events handled (0: idle). */
    int (*progress)(rcmsg_btl_t *btl);
    /* Drive progress until every send posted so far has completed at its peer (or failed),
     * bounded by RCMSG_DRAIN_TIMEOUT: RCMSG_ERR_TIMEOUT then. */
    rcmsg_status_t (*flush)(rcmsg_btl_t *btl);
    /* The layer above has given up on peer (the launcher, a BREAK or another transport said it
     * is lost): its endpoint fails now, quietly and without fail_cb, what is outstanding to it
     * is dropped, and flush() no longer waits for it. */
    void (*forget)(rcmsg_btl_t *btl, int peer);
    /* Completion events for blocking waits: the fd that turns readable when a completion
     * arrives after arm() (-1: the transport has none), and arm() itself, which consumes
     * old events and asks for the next one. arm() returns RCMSG_INPROGRESS when work is
     * already pending (do not sleep); after RCMSG_OK the caller must poll once more before
     * sleeping, so that a completion that raced with arming is not missed. */
    int (*event_fd)(rcmsg_btl_t *btl);
    rcmsg_status_t (*arm)(rcmsg_btl_t *btl);
    /* Release everything (flush first to let pending sends complete). */
    void (*close)(rcmsg_btl_t *btl);
} rcmsg_btl_ops_t;

/* Wireup's fetch of peer's address for btl on first use (btl_component.h: addr_on_demand):
 * copies the peer's section for btl to buf (*len_p: in its room, out the length). Bounded by
 * RCMSG_LAUNCHER_TIMEOUT and by the launcher's liveness; an error is logged naming the peer
 * (a peer that failed its rcmsg_init, or no address). Called with the transport's own locks
 * held, from any of its threads: it calls nothing of the transport. */
typedef rcmsg_status_t (*rcmsg_btl_addr_fetch_t)(void *arg, rcmsg_btl_t *btl, int peer, void *buf,
                                                 size_t *len_p);

struct rcmsg_btl {
    const char *name; /* "rc", "self", ... */
    const rcmsg_btl_ops_t *ops;
    const struct rcmsg_btl_component *component; /* set by rcmsg_btl_open (btl_component.h) */
    rcmsg_btl_caps_t caps;
    rcmsg_btl_recv_cb_t recv_cb;
    rcmsg_btl_fail_cb_t fail_cb;
    rcmsg_btl_broke_cb_t broke_cb; /* NULL: not told */
    void *cb_arg;
    /* Set by wireup before connect(), when the component fetches addresses on first use: the
     * peers this transport serves whose address it was not given (addr_later of them) are
     * fetched with addr_fetch when needed (NULL: every peer was given to connect()). */
    rcmsg_btl_addr_fetch_t addr_fetch;
    void *addr_fetch_arg;
    int addr_later;
};

/* For transports whose memory needs no registration (the same address space, or CMA). */
rcmsg_status_t rcmsg_btl_mem_reg_none(rcmsg_btl_t *btl, void *addr, size_t len, int remote_read,
                                      rcmsg_btl_mem_t *mem_p);
void rcmsg_btl_mem_dereg_none(rcmsg_btl_t *btl, rcmsg_btl_mem_t *mem);
/* For transports whose send() completes in the peer's memory: nothing to flush. */
rcmsg_status_t rcmsg_btl_flush_none(rcmsg_btl_t *btl);
/* For transports with nothing outstanding to a peer that flush() could wait for. */
void rcmsg_btl_forget_none(rcmsg_btl_t *btl, int peer);
/* For transports whose connect() makes the endpoint ready at once: RCMSG_OK. */
rcmsg_status_t rcmsg_btl_connect_progress_none(rcmsg_btl_t *btl);
/* For transports that notice lost peers by themselves: RCMSG_ERR_UNSUPPORTED. */
rcmsg_status_t rcmsg_btl_ping_none(rcmsg_btl_t *btl, int peer);
/* For transports without a completion channel. */
int rcmsg_btl_event_fd_none(rcmsg_btl_t *btl);

/* Job facts a transport needs when it opens. */
typedef struct {
    int rank;
    int size;
    int local_rank;
    int local_size;
    uint64_t id; /* the job's identity, alike on every rank (a hash of the PMIx namespace) */
} rcmsg_btl_job_t;

#endif /* RCMSG_BTL_H */
