/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engines floor of the MPI face (issue 39 item 5): requests with a per-kind operations
 * table (mpi_req.c) that point-to-point (mpi_p2p_req.c), buffered sends (mpi_bsend.c) and the
 * nonblocking collectives (mpi_coll_req.c) register, Finalize's pending requests
 * (mpi_pending.c), and what the collectives' bindings share over rcmsg's collectives, no
 * algorithm (mpi_coll_eng.c, mpi_inter_coll.c). Engines call the objects floor
 * (mpi_objects.h) and each other downwards, never a binding (an MPI_* call): the bindings
 * (every other file) include this header and declare nothing for another file.
 */
#ifndef RCMSG_MPI_ENGINES_H
#define RCMSG_MPI_ENGINES_H

#include "mpi/mpi_objects.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- requests and point-to-point (mpi_req.c, mpi_p2p.c) ----------------------------------- */
typedef enum {
    MPI_SEND_STANDARD,
    MPI_SEND_SYNC,
    MPI_SEND_READY,
    MPI_SEND_BUFFERED,
} mpi_send_mode_t;

typedef struct mpi_req mpi_req_t;

/* What a kind of request does (as Open MPI's ompi_request_t carries req_free / req_cancel):
 * each kind's file defines one table; mpi_req.c calls through it and never into the kinds.
 * test and wait record the outcome in req->done (its MPI_ERROR the operation's code, not
 * raised) once the operation is complete. */
typedef struct mpi_req_ops {
    const char *name; /* "point-to-point operation", "nonblocking collective", ... */
    bool collective;  /* cannot be freed (Request_free) nor cancelled: MPI calls it erroneous */
    bool (*test)(mpi_req_t *req);                    /* never blocks; true: complete */
    void (*wait)(mpi_req_t *req);                    /* blocks until complete */
    int (*cancel)(mpi_req_t *req, const char *call); /* MPI_Cancel: raised naming call (NULL:
                                                      * the code only) */
    void (*free)(mpi_req_t *req); /* releases what the kind holds (NULL: nothing) */
    void (*progress)(void);       /* the kind's background work, run by mpi_progress (NULL:
                                   * none) */
    void (*fini)(void); /* Finalize (mpi_req_drain): completes the kind's own background work
                         * (NULL: none) */
    int (*start)(mpi_req_t *req, const char *call); /* MPI_Start of a persistent request of a
                                                     * kind that starts itself (NULL: point-to-
                                                     * point, mpi_req_start); errors raised */
} mpi_req_ops_t;

struct mpi_req {
    const mpi_req_ops_t *ops;
    bool persistent;
    bool active;   /* persistent: started and not yet completed */
    bool freed;    /* Request_free of an active request: completes in the background */
    bool complete; /* the kind saw the operation end: done holds its status */
    bool is_recv;  /* the operation is a receive (also when complete at start) */
    rcmsg_request_t rc;
    mpi_comm_t *comm;
    MPI_Request handle;
    /* the operation (kept for persistent requests and for unpacking) */
    void *buf;
    MPI_Count count; /* (a large-count _c call's: mpi_check_buf bounds its bytes) */
    MPI_Datatype dt;
    mpi_type_t *type; /* dt's type, held (mpi_type_retain) until the request is deleted */
    int peer, tag;
    mpi_send_mode_t mode;
    void *tmp; /* packed data: noncontiguous send or receive, Mprobe'd message */
    size_t tmp_len;
    MPI_Status done;         /* the outcome, once complete */
    struct mpi_req *next_bg; /* on the background list (freed while active) */
    void *priv;              /* the kind's own state (a schedule, a collective's) */
    const char *what;        /* a persistent collective: its init call (errors name it) */
};

/* Kinds with background work are advanced by mpi_progress once registered (mpi_req_new
 * registers the kind it is given; idempotent). */
void mpi_req_register(const mpi_req_ops_t *ops);
/* The kind of a request complete when started (PROC_NULL, a one-sided call done at once): *st
 * its outcome. */
extern const mpi_req_ops_t mpi_req_done_ops;
void mpi_req_set_done(mpi_req_t *req, const MPI_Status *st);
/* The point-to-point kind (mpi_p2p_req.c). */
extern const mpi_req_ops_t mpi_p2p_ops;

/* A new request of kind ops on comm (a handle, a reference on comm); NULL with *err_p. */
mpi_req_t *mpi_req_new(mpi_comm_t *comm, const mpi_req_ops_t *ops, int *err_p);
/* not NULL, and not an inactive persistent request */
bool mpi_req_live(const mpi_req_t *r);
/* through the kind: complete yet? (never blocks) / blocks until complete */
bool mpi_req_test(mpi_req_t *req);
void mpi_req_wait(mpi_req_t *req);
/* Completes a complete request: its status to status (may be MPI_STATUS_IGNORE), released
 * (*h cleared, h may be NULL) or, persistent, inactive. Returns the operation's code. */
int mpi_req_complete(MPI_Request *h, mpi_req_t *r, MPI_Status *status);
/* 1 and completed (*err_p its code) when complete, else 0 */
int mpi_req_test_one(MPI_Request *h, mpi_req_t *r, MPI_Status *status, int *err_p);
int mpi_req_wait_one(MPI_Request *h, mpi_req_t *r, MPI_Status *status);
/* MPI_Wait's work on a handle (MPI_REQUEST_NULL or live): waits, completes, runs
 * mpi_progress, raises the operation's error on its communicator naming call. */
int mpi_req_wait_call(MPI_Request *h, MPI_Status *status, const char *call);
/* MPI_Cancel of a live request (complete already: nothing, MPI allows it) */
int mpi_req_cancel(mpi_req_t *r, const char *call);
/* Request_free: released now when complete or inactive, else completes in the background */
void mpi_req_free(mpi_req_t *r);
/* A new point-to-point request of call as *request (mpi_p2p_req.c), its arguments checked
 * (raised through comm's handler): started, or persistent and inactive (the *_init calls);
 * MPI_SUCCESS or the error raised. */
int mpi_req_p2p(const char *call, void *buf, MPI_Count count, MPI_Datatype dt, int peer, int tag,
                MPI_Comm comm, bool recv, mpi_send_mode_t mode, bool persistent,
                MPI_Request *request);
void mpi_req_delete(mpi_req_t *req);
/* MPI_Isendrecv's request on c (mpi_p2p_req.c): takes over the started point-to-point requests
 * recv and send (their handles released) and keep (malloc'd, freed with it, or NULL); complete
 * when both are, with the receive's status. MPI_SUCCESS (*request set), or MPI_ERR_NO_MEM
 * raised naming call once both completed (the receive cancelled) and keep freed. */
int mpi_req_pair(mpi_comm_t *c, const char *call, MPI_Request recv, MPI_Request send, void *keep,
                 MPI_Request *request);
/* starts req (its operation fields set; mpi_p2p_req.c); MPI_SUCCESS or the error raised */
int mpi_req_start(mpi_req_t *req, const char *call);
/* Completes background work: every registered kind's (buffered sends, schedules), requests
 * freed while active. Called from every MPI call that tests or waits. */
void mpi_progress(void);
/* Completes every background request and buffered send (Finalize): the sends get a bounded
 * time (mpi_fini_settle; one to this rank at once: nothing can receive it any more), then
 * are cancelled; the freed receives that nothing matched are cancelled; one warning for
 * each kind names what was cancelled; then every registered kind's fini. MPI_SUCCESS, or
 * MPI_ERR_PENDING (raised) naming sends that could be neither completed nor cancelled. */
typedef int mpi_req_settle_fn_t(bool cancel, char *list, size_t cap, int *n_p);
int mpi_req_drain(mpi_req_settle_fn_t *more); /* more: the buffered sends' (mpi_bsend_settle) */
/* Adds "a <what> to rank R, tag T on C" to list (the first few, then "; ..."), n counted. */
void mpi_req_name_send(char *list, size_t cap, int n, const char *what, int peer, int tag,
                       MPI_Comm comm);
/* MPI_Finalize's first step (mpi_pending.c): the requests the program did not complete are
 * refused (ERRORS_RETURN on COMM_WORLD: MPI_ERR_PENDING raised, nothing released) or, under
 * ERRORS_ARE_FATAL, named once, receives cancelled, sends given a bounded time. MPI_SUCCESS
 * when none is left. */
int mpi_pending_fini(void);

/* How long MPI_Finalize waits for sends (and collectives) still in flight, then again for the
 * receivers' answers to their cancels. */
#define MPI_PENDING_WAIT_S 10.0
/* Finalize's bounded wait for operations in flight (mpi_pending.c): pass(arg, cancel) settles
 * what completed, asking rcmsg_cancel for the others first when cancel is true, and returns
 * how many are left. Passes run until none is left or MPI_PENDING_WAIT_S passed, then
 * cancelling passes until none is left or MPI_PENDING_WAIT_S more passed. Returns how many
 * are left (neither completed nor cancelled). */
int mpi_fini_settle(int (*pass)(void *arg, bool cancel), void *arg);

/* Buffered sends (mpi_bsend.c): copies the packed message into the attached buffer and sends
 * it from there. MPI_SUCCESS, or MPI_ERR_BUFFER (not raised) when it does not fit. */
int mpi_bsend_start(mpi_req_t *req, const char *call);
void mpi_bsend_progress(void);
void mpi_bsend_drain(void); /* waits for every buffered send (Buffer_detach) */
/* One pass of Finalize's settle (mpi_fini_settle) over the buffered sends in flight: the
 * complete ones are released; cancel (or one to this rank): the others are asked to cancel
 * first, and those cancelled are named in list (mpi_req_name_send; *n_p counts them).
 * Returns how many are left. */
int mpi_bsend_settle(bool cancel, char *list, size_t cap, int *n_p);
void mpi_bsend_fini(void); /* forgets the buffer (Finalize, after mpi_req_drain) */
/* MPI_Buffer_attach / _detach's work (checked by the calls) */
bool mpi_bsend_attached(void);
size_t mpi_bsend_attached_size(void); /* 0 when none is attached */
void mpi_bsend_attach(void *buffer, size_t size);
void mpi_bsend_detach(void **buffer_p, size_t *size_p); /* waits for the sends in flight */

/* Status helpers */
void mpi_status_set(MPI_Status *st, int source, int tag, MPI_Count bytes, int err, bool cancelled);
MPI_Count mpi_status_bytes(const MPI_Status *st);
void mpi_status_empty(MPI_Status *st); /* source ANY, tag ANY, count 0, error SUCCESS */
/* st to the program's status out (may be MPI_STATUS_IGNORE) but its error field: calls that
 * give one status leave it as it was (MPI-3.1 3.2.5); the multiple-completion calls set it. */
void mpi_status_out(MPI_Status *out, const MPI_Status *st);
bool mpi_status_cancelled(const MPI_Status *st);
void mpi_status_proc_null(MPI_Status *st);

/* ---- the collectives' engine (mpi_coll_eng.c) ----------------------------------------------- */
/* A contiguous view of count elements of a type: the user's buffer itself for a contiguous
 * type (zero copy), else a packed copy (tmp). */
typedef struct {
    char *p;
    char *tmp;
    size_t bytes;
} coll_buf_t;

/* The start of every blocking collective on an intracommunicator: MPI active, comm live and an
 * intracommunicator; then, a not NULL, coll_check. NULL: the error (raised naming call) is in
 * *err_p. */
mpi_comm_t *coll_enter(MPI_Comm comm, const char *call, coll_args_t *a, int *err_p);
/* An allgather's or alltoall's send view v, n blocks of v->bytes / n bytes, when shorter than
 * the receive blocks (recv_block; the program's error: the send and receive type signatures
 * must match, MPI-3.1 5.5): made n blocks of recv_block, each copied into a zero-padded scratch,
 * so that rcmsg, called with the receive block on every rank (every rank then runs the same
 * algorithm: its choice follows the count), reads no byte past the program's buffer. The
 * mismatch is this rank's to report (coll_all_mismatch); the others cannot see it. */
int coll_all_pad(mpi_comm_t *c, const char *call, coll_buf_t *v, size_t n, size_t recv_block);
/* After a blocking allgather or alltoall that moved: a send block of another size than the
 * receive block is the program's error, which this rank alone sees (a longer one cut to the
 * receive block, a shorter one padded: coll_all_pad): MPI_ERR_TRUNCATE raised naming both
 * sizes; MPI_SUCCESS when they match (MPICH's errors/coll/alltoalllength expects the rank with
 * the longer send to fail). */
int coll_all_mismatch(mpi_comm_t *c, const char *call, size_t recv_block, size_t send_block);
/* the same for a nonblocking one's completion: a code naming it (not raised), or MPI_SUCCESS */
int coll_all_mismatch_note(size_t recv_block, size_t send_block);
/* in: the data of buf, packed when needed. out: where to receive; coll_view_done unpacks. */
int coll_view_in(mpi_comm_t *c, const char *call, coll_buf_t *v, const void *buf, size_t count,
                 mpi_type_t *t);
int coll_view_out(mpi_comm_t *c, const char *call, coll_buf_t *v, void *buf, size_t count,
                  mpi_type_t *t);
void coll_view_done(coll_buf_t *v, void *buf, size_t count, mpi_type_t *t);
void coll_view_free(coll_buf_t *v);

/* A v-variant's blocks (count elements of t at buf, one per rank) as one rcmsg buffer of
 * bytes: base, with counts[i] bytes at displs[i] for rank i; the user's buffer itself when
 * every type is contiguous (zero copy), else a packed copy (tmp). in: the blocks' data packed;
 * out: room for them (own >= 0: that block's data packed already, for MPI_IN_PLACE),
 * unpacked by coll_vbuf_done. */
typedef struct {
    const void *buf;
    size_t count;
    mpi_type_t *t; /* NULL: an empty block */
} coll_blk_t;
#define COLL_VBUF_SMALL 16 /* blocks whose counts and displacements the view holds itself */
typedef struct {
    char *base, *tmp;
    size_t *counts, *displs; /* small, or allocated for more blocks */
    size_t small[2 * COLL_VBUF_SMALL];
} coll_vbuf_t;
size_t coll_blk_bytes(const coll_blk_t *b);
/* buf + elements x t's extent; n zeroed blocks (NULL: MPI_ERR_NO_MEM raised into *err_p); one
 * block per rank of c: counts[i] elements of t at displs[i] elements from buf (freed by the
 * caller, or by the request it is handed to) */
const void *coll_blk_at(const void *buf, MPI_Aint elements, mpi_type_t *t);
coll_blk_t *coll_blks_new(mpi_comm_t *c, const char *call, int n, int *err_p);
coll_blk_t *coll_blks_of(mpi_comm_t *c, const char *call, const void *buf, const int counts[],
                         const int displs[], mpi_type_t *t, int *err_p);
int coll_vbuf_in(mpi_comm_t *c, const char *call, coll_vbuf_t *v, const coll_blk_t *b, int n);
int coll_vbuf_out(mpi_comm_t *c, const char *call, coll_vbuf_t *v, const coll_blk_t *b, int n,
                  int own);
void coll_vbuf_done(coll_vbuf_t *v, const coll_blk_t *b, int n);
void coll_vbuf_free(coll_vbuf_t *v);
/* MPI_SUCCESS, or the failed rcmsg status s raised on c naming call */
int coll_status(mpi_comm_t *c, const char *call, rcmsg_status_t s);

/* Reductions of count elements of dt in the user's layout: rcmsg_reduce (root >= 0) or
 * rcmsg_allreduce (root -1) with the operation and datatype of mpi_op_rcmsg_any. in is the
 * input (MPI_IN_PLACE: it is in out; NULL is MPI_BOTTOM), out the result (root's, or
 * everyone's). */
int coll_reduce(mpi_comm_t *c, const char *call, const void *in, void *out, int count,
                MPI_Datatype dt, MPI_Op op, int root);

/* ---- nonblocking collectives run by rcmsg (mpi_coll_req.c) ------------------------------------
 * A request of that kind on c: *in_p and *out_p are the views (coll_view_*) the rcmsg_i* call
 * reads and writes, kept until it completes; mpi_coll_req_unpack names where a packed result
 * goes then (t held meanwhile). mpi_coll_req_start: after the rcmsg_i* call on &r->rc (err: an
 * error of the preparation, s: the call's status): *request, or r deleted and the error
 * raised naming call. */
mpi_req_t *mpi_coll_req_new(mpi_comm_t *c, const char *call, coll_buf_t **in_p, coll_buf_t **out_p,
                            int *err_p);
void mpi_coll_req_unpack(mpi_req_t *r, void *buf, size_t count, mpi_type_t *t);
/* A v-collective's byte views (coll_vbuf_*), kept with r until it completes; blk (n blocks,
 * taken: freed with r, their types held) is where vout is unpacked when it completes;
 * mpi_coll_req_keep: p (malloc'd: counts rcmsg reads while it runs) freed with r. */
void mpi_coll_req_vbufs(mpi_req_t *r, coll_vbuf_t **in_p, coll_vbuf_t **out_p);
void mpi_coll_req_vunpack(mpi_req_t *r, coll_blk_t *blk, int n);
void mpi_coll_req_keep(mpi_req_t *r, void *p);
/* A reduction's operation and type, held until the request is deleted: MPI_Op_free and
 * MPI_Type_free while it runs leave its reductions (rcmsg calls back into them) working. */
void mpi_coll_req_hold(mpi_req_t *r, MPI_Op op, mpi_type_t *t);
/* An allgather's or alltoall's send block (bytes) of another size than its receive block: the
 * request, if it completes otherwise well, completes with coll_all_mismatch's error (a longer
 * send, cut: no other rank sees it) */
void mpi_coll_req_blocks(mpi_req_t *r, size_t recv_block, size_t send_block);
int mpi_coll_req_start(mpi_req_t *r, const char *call, int err, rcmsg_status_t s,
                       MPI_Request *request);
/* MPI_Comm_idup of c (mpi_idup_req.c): the attributes, topology and hints (not with_info:
 * Comm_idup_with_info's are the info's) copied now, the context
 * agreed by rcmsg_comm_idup while the request runs (an intercommunicator's three rcmsg
 * communicators, mpi_inter_dup's); *newcomm is written when it completes. MPI_SUCCESS
 * (*request set) or the error raised. */
int mpi_idup_req_start(mpi_comm_t *c, const char *call, bool with_info, MPI_Comm *newcomm,
                       MPI_Request *request);
/* A duplicate of an MPI communicator agreed on without blocking (mpi_idup_req.c; MPI_Comm_idup's
 * and a persistent collective's own): rcmsg_comm_idup of each rcmsg communicator c is made of
 * (mpi_comm_rcs), posted in that order on every member (the order of its collectives).
 * mpi_dupset_post: RCMSG_OK, or the first one's failure (nothing posted, n 0); a later one's is
 * noted in s (the rest still posted: the other members' agreements on them are answered; those
 * posted complete as theirs do). mpi_dupset_test (block:
 * waits): true once every posted one completed. mpi_dupset_make (once tested true): the new MPI
 * communicator (no attributes, topology or name), or the error noted (those made freed; errors
 * of the wrap raised on c); n is 0 after it. mpi_dupset_drop (once tested true): those made
 * freed (the duplicate not wanted any more). */
typedef struct {
    int n;                              /* posted and not made or dropped: 1 or MPI_INTER_RCS */
    rcmsg_comm_t rc[MPI_INTER_RCS];     /* written by rcmsg as each completes */
    rcmsg_request_t req[MPI_INTER_RCS]; /* NULL once complete */
    rcmsg_status_t s;                   /* the first failure */
} mpi_dupset_t;
rcmsg_status_t mpi_dupset_post(mpi_comm_t *c, mpi_dupset_t *d);
bool mpi_dupset_test(mpi_dupset_t *d, bool block);
int mpi_dupset_make(mpi_comm_t *c, const char *call, mpi_dupset_t *d, MPI_Comm *newcomm);
void mpi_dupset_drop(mpi_dupset_t *d);
/* The receive view of a gather or allgather into size blocks of rcount elements of rt; in
 * place, this rank's block is already there (packed into the view when it is a copy). */
int coll_gather_view(mpi_comm_t *c, const char *call, coll_buf_t *v, void *rbuf, int rcount,
                     mpi_type_t *rt, bool in_place);

/* ---- neighborhood collectives (mpi_neighbor_req.c) ------------------------------------------
 * One neighborhood collective over c's topology: a block per neighbor, in the topology's
 * order (mpi_topo_neighbors), sb[i] to dsts[i] and rb[j] from srcs[j]; an MPI_PROC_NULL
 * neighbor's block is empty (count 0, t NULL: left untouched). cart: Cartesian pairs (the
 * engine reorders sb and dsts). Blocking (request NULL) or started as *request; MPI_SUCCESS
 * or the error raised naming call. */
typedef struct {
    coll_blk_t *sb, *rb;
    int *dsts, *srcs;
    int ndst, nsrc;
    bool cart;
} nbr_lists_t;
int mpi_nbr_run(mpi_comm_t *c, const char *call, nbr_lists_t *l, MPI_Request *request);

/* ---- persistent collectives (mpi_pcoll_req.c) ------------------------------------------------
 * The arguments of a persistent collective's init call (those it has; the others zero),
 * kept with its request; start runs the matching nonblocking collective on them (the
 * binding's own: its checks and errors) and returns its request in *request. a->comm is the
 * program's at the init, the request's own duplicate once agreed on. mpi_pcoll_new: MPI
 * active, comm (a->comm), request and info checked, and the others by check; the inactive
 * persistent request of call as *request, its own communicator's agreement under way; MPI_SUCCESS
 * or the error raised. */
typedef struct {
    MPI_Comm comm;
    const void *sbuf;
    void *rbuf;
    int scount, rcount, root;
    MPI_Datatype sdt, rdt;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    const MPI_Aint *sadispls, *radispls; /* Neighbor_alltoallw's */
    const MPI_Datatype *sdts, *rdts;     /* the w forms': one per peer, or per neighbor (nbr) */
    bool nbr;                            /* Neighbor_alltoallw's: sdts per destination, rdts per
                                          * source of the topology (else per peer of comm) */
    MPI_Op op;
    /* a _c form's: its counts converted (mpi_c_out_t's arrays, which the int ones above point
     * into: mpi_pcoll_new takes them, freed with the request or on an error), and the error its
     * conversion raised (the init then fails as a check's would: the others stay in step) */
    void *keep[2];
    int bad;
} mpi_pcoll_args_t;
typedef int mpi_pcoll_start_fn(const mpi_pcoll_args_t *a, MPI_Request *request);
/* The nonblocking form's argument checks (its own checking functions) run at the init on c
 * (an intra- or intercommunicator), errors raised naming call; NULL: none (Barrier_init). */
typedef int mpi_pcoll_check_fn(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a);
/* A request argument that stops a nonblocking form once its arguments are checked: nothing
 * started, nothing written, MPI_SUCCESS or the error raised (the inits' checks run through the
 * intercommunicator forms and the neighborhood ones this way). */
extern MPI_Request mpi_nbc_check_only_;
#define MPI_NBC_CHECK_ONLY (&mpi_nbc_check_only_)
int mpi_pcoll_new(const char *call, MPI_Info info, const mpi_pcoll_args_t *a,
                  mpi_pcoll_start_fn *start, mpi_pcoll_check_fn *check, MPI_Request *request);
/* A _c form's init: a's counts and displacements the int ones of o (converted by the shape's
 * helper, err its outcome), its arrays then owned by the request; as mpi_pcoll_new. */
int mpi_pcoll_c_new(const char *call, MPI_Info info, mpi_pcoll_args_t *a, const mpi_c_out_t *o,
                    int err, mpi_pcoll_start_fn *start, mpi_pcoll_check_fn *check,
                    MPI_Request *request);
/* A binding's profiling name: PMPI_name, the same function as MPI_name (defined in the same
 * file, params its parameter list as in mpi.h). */
#define MPI_PMPI_ALIAS(name, params) int PMPI_##name params __attribute__((alias("MPI_" #name)))
/* An int call's entry within the library (mpi_local_NAME, a hidden alias of MPI_NAME, after its
 * definition), for its _c form to call: a tool wrapping both MPI_NAME and MPI_NAME_c sees one
 * user call once (a call to MPI_NAME could bind to the tool's) */
#define MPI_LOCAL_ALIAS(name, params)                                                              \
    int mpi_local_##name params __attribute__((alias("MPI_" #name), visibility("hidden")))

/* ---- intercommunicator collectives (mpi_inter_coll.c) ----------------------------------------
 * Blocking collectives over an intercommunicator (c->inter), bindings over rcmsg's on the rcmsg
 * intercommunicator c->coll_rc; the entry points of mpi_coll.c and mpi_coll_v.c dispatch to
 * them. Arguments are checked by the entry point except what only an intercommunicator has
 * (MPI_ROOT, MPI_PROC_NULL as root). Errors are raised (mpi_err) on c. */
int mpi_inter_barrier(mpi_comm_t *c);
int mpi_inter_bcast(mpi_comm_t *c, void *buf, int count, MPI_Datatype dt, int root);
int mpi_inter_gather(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root);
int mpi_inter_scatter(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root);
int mpi_inter_allgather(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype);
int mpi_inter_allreduce(mpi_comm_t *c, const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype dt, MPI_Op op);
int mpi_inter_reduce(mpi_comm_t *c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                     MPI_Op op, int root);
int mpi_inter_alltoall(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype);
int mpi_inter_gatherv(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int *recvcounts, const int *displs,
                      MPI_Datatype recvtype, int root);
int mpi_inter_scatterv(mpi_comm_t *c, const void *sendbuf, const int *sendcounts, const int *displs,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root);
int mpi_inter_allgatherv(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const int *recvcounts, const int *displs,
                         MPI_Datatype recvtype);
int mpi_inter_alltoallv(mpi_comm_t *c, const void *sendbuf, const int *sc, const int *sd,
                        MPI_Datatype st, void *recvbuf, const int *rc, const int *rd,
                        MPI_Datatype rt);
int mpi_inter_alltoallw(mpi_comm_t *c, const void *sendbuf, const int *sc, const int *sd,
                        const MPI_Datatype *st, void *recvbuf, const int *rc, const int *rd,
                        const MPI_Datatype *rt);
/* sendbuf: sum of recvcounts (this group's) elements, the same total in both groups; this
 * group receives the other group's reduction scattered by its recvcounts */
int mpi_inter_reduce_scatter(mpi_comm_t *c, const void *sendbuf, void *recvbuf,
                             const int *recvcounts, MPI_Datatype dt, MPI_Op op);
int mpi_inter_reduce_scatter_block(mpi_comm_t *c, const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype dt, MPI_Op op);

/* Nonblocking ones over an intercommunicator (mpi_inter_coll.c): the entry points of mpi_nbc.c
 * and mpi_nbc_red.c dispatch to them when c->inter; they check the rest of the arguments
 * (raised on c naming call) and start rcmsg's (a request of mpi_coll_req.c's kind), or only
 * check them (request MPI_NBC_CHECK_ONLY: a persistent init's checks). */
int mpi_nbc_inter_barrier(mpi_comm_t *c, MPI_Request *request);
int mpi_nbc_inter_bcast(mpi_comm_t *c, const char *call, void *buf, int count, MPI_Datatype dt,
                        int root, MPI_Request *request);
/* gather: the root receives (rootbuf: recvbuf), the other group sends (leafbuf: sendbuf);
 * scatter: the reverse */
int mpi_nbc_inter_rooted(mpi_comm_t *c, const char *call, bool gather, const void *sendbuf,
                         int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Request *request);
/* alltoall: block j of sendbuf to remote rank j; allgather: all of sendbuf to each */
int mpi_nbc_inter_all(mpi_comm_t *c, const char *call, bool alltoall, const void *sendbuf,
                      int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Request *request);
int mpi_nbc_inter_reduce(mpi_comm_t *c, const char *call, const void *sendbuf, void *recvbuf,
                         int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Request *request);
/* Iallreduce (block 0) and Ireduce_scatter_block (block: recvcount, scattered) */
int mpi_nbc_inter_allreduce(mpi_comm_t *c, const char *call, bool scatter, const void *sendbuf,
                            void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                            MPI_Request *request);

/* The nonblocking v and w variants over an intercommunicator (mpi_inter_coll.c): as the
 * blocking ones, on rcmsg's nonblocking forms (a request of mpi_coll_req.c's kind). */
int mpi_nbc_inter_gatherv(mpi_comm_t *c, const char *call, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                          const int *displs, MPI_Datatype recvtype, int root, MPI_Request *request);
int mpi_nbc_inter_scatterv(mpi_comm_t *c, const char *call, const void *sendbuf,
                           const int *sendcounts, const int *displs, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Request *request);
int mpi_nbc_inter_allgatherv(mpi_comm_t *c, const char *call, const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                             const int *displs, MPI_Datatype recvtype, MPI_Request *request);
int mpi_nbc_inter_reduce_scatter(mpi_comm_t *c, const char *call, const void *sendbuf,
                                 void *recvbuf, const int *recvcounts, MPI_Datatype dt, MPI_Op op,
                                 MPI_Request *request);
/* Ialltoallv (w false: one type each side) and Ialltoallw */
int mpi_nbc_inter_alltoallvw(mpi_comm_t *c, const char *call, const void *sendbuf, const int *sc,
                             const int *sd, const MPI_Datatype *st, void *recvbuf, const int *rc,
                             const int *rd, const MPI_Datatype *rt, bool w, MPI_Request *request);

#endif /* RCMSG_MPI_ENGINES_H */
