/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal declarations shared by the files of librcmsg_mpi. The layer is built over the
 * public <rcmsg.h> and <mpi.h> only (test/unit/layering.sh checks it): nothing here reaches
 * into rcmsg's internals.
 */
#ifndef RCMSG_MPI_IMPL_H
#define RCMSG_MPI_IMPL_H

#include <mpi.h>
#include <rcmsg.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- datatypes (mpi_type.c, mpi_pack.c: helper B) ---------------------------------------- */
typedef struct mpi_type mpi_type_t;           /* opaque */
mpi_type_t *mpi_type_get(MPI_Datatype dt);    /* NULL: invalid or freed */
bool mpi_type_is_contig(const mpi_type_t *t); /* true: count elements are one block */
size_t mpi_type_size(const mpi_type_t *t);    /* bytes of data in one element */
MPI_Aint mpi_type_extent(const mpi_type_t *t);
MPI_Aint mpi_type_true_lb(const mpi_type_t *t); /* where the data of a contig type starts */
bool mpi_type_committed(const mpi_type_t *t);   /* predefined ones are */
/* pack count elements at buf into out (size * count bytes), unpack the reverse */
void mpi_type_pack(const mpi_type_t *t, const void *buf, size_t count, void *out);
void mpi_type_unpack(const mpi_type_t *t, const void *in, size_t count, void *buf);
/* how many whole elements (and basic elements for Get_elements) are in nbytes */
int mpi_type_basic_count(const mpi_type_t *t, size_t nbytes, MPI_Count *basic_p);
rcmsg_datatype_t mpi_type_rcmsg(const mpi_type_t *t, bool *ok_p); /* for reductions later */
/* An operation pending on a type holds a reference from its start to its completion:
 * MPI_Type_free only releases the handle's reference (the type then lives on unnamed). */
void mpi_type_retain(mpi_type_t *t);
void mpi_type_release(mpi_type_t *t);
/* MPI_Finalize, before mpi_handle_fini: frees the derived types the program did not free. */
void mpi_type_fini(void);

/* ---- handle tables (mpi_handle.c) --------------------------------------------------------
 * One table per kind (MPI_KIND_*_ of mpi.h): a handle is (kind << 24) | index, the index of a
 * slot holding the object's pointer. Freed slots are reused (lowest first is not promised). */
#define MPI_HANDLE_INDEX_MASK 0xffffff
int mpi_handle_alloc(int kind, void *obj, int *handle_p); /* MPI_SUCCESS or MPI_ERR_NO_MEM */
/* a slot at a fixed index (predefined objects); MPI_SUCCESS or MPI_ERR_NO_MEM */
int mpi_handle_set(int kind, int index, void *obj);
#define MPI_HANDLE_KINDS 8
typedef struct {
    void **slot;
    int *free_next; /* the free list: next free index, -1 ends it */
    int free_head;
    int cap;
} mpi_handle_table_t;
extern mpi_handle_table_t mpi_handle_tables[MPI_HANDLE_KINDS];

/* The object of a live handle of that kind, NULL otherwise. Inline: every call looks its
 * communicator and datatype up (the 8 B ping-pong's cost, docs/performance.md). */
static inline void *mpi_handle_get(int kind, int handle)
{
    const mpi_handle_table_t *t = &mpi_handle_tables[kind];
    int i = handle & MPI_HANDLE_INDEX_MASK;

    if ((handle >> MPI_HANDLE_KIND_SHIFT) != kind || i >= t->cap) {
        return NULL;
    }
    return t->slot[i];
}
void mpi_handle_release(int kind, int handle);
/* Calls fn for every live handle of kind (fn may release that handle). */
void mpi_handle_each(int kind, void (*fn)(int handle, void *obj));
void mpi_handle_fini(void);

/* ---- errors (mpi_err.c) ------------------------------------------------------------------ */
typedef struct mpi_comm mpi_comm_t;
/* The code for an error of class cls caused by rcmsg status s (RCMSG_OK: none). */
int mpi_err_code(int cls, rcmsg_status_t s);
/* The MPI class for a failed rcmsg status. */
int mpi_err_class_of(rcmsg_status_t s);
/* The one place a call's error goes: formats "CALL: why", then calls comm's error handler
 * (NULL: MPI_COMM_WORLD's; ERRORS_ARE_FATAL prints and exits). Returns code. */
int mpi_err(mpi_comm_t *comm, const char *call, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A failed rcmsg status s of call: mpi_err with its class and the status named. */
int mpi_err_rcmsg(mpi_comm_t *comm, const char *call, rcmsg_status_t s);
/* code (class and status kept) naming a specific message (for MPI_Error_string), not raised:
 * the code of an operation that failed where no call raises it (a request's status) */
int mpi_err_note(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the specific message of code, NULL when it has none (or it is no longer kept) */
const char *mpi_err_reason(int code);
/* The noted code of a receive that rcmsg completed with s (trunc: more arrived than fits cap
 * bytes, whatever s says), naming the source and tag (source < 0: unknown); MPI_SUCCESS when
 * it did not fail. */
int mpi_err_recv(rcmsg_status_t s, bool trunc, int source, int tag, size_t cap);
/* Raises code, the outcome of an operation (its specific message, if noted), on comm for call. */
int mpi_err_again(mpi_comm_t *comm, const char *call, int code);
int mpi_err_init(void); /* reserves the predefined handlers' handles */
/* A new communicator takes from's error handler; a freed one lets go of its own. */
void mpi_err_inherit(mpi_comm_t *from, mpi_comm_t *to);
void mpi_err_comm_release(mpi_comm_t *c);

/* ---- environment (mpi_env.c) ------------------------------------------------------------- */
enum { MPI_STATE_NONE, MPI_STATE_ACTIVE, MPI_STATE_FINALIZED };
extern int mpi_state;
/* MPI_SUCCESS when MPI is initialized and not finalized, else an error naming call */
int mpi_check_active(const char *call);
#define MPI_CHECK_ACTIVE(call)                                                                     \
    do {                                                                                           \
        if (__builtin_expect(mpi_state != MPI_STATE_ACTIVE, 0)) {                                  \
            return mpi_check_active(call);                                                         \
        }                                                                                          \
    } while (0)

/* ---- communicators (mpi_comm.c) ---------------------------------------------------------- */
struct mpi_comm {
    rcmsg_comm_t rc;
    MPI_Comm handle;
    int rank, size;
    MPI_Errhandler errhandler;
    int refs;     /* objects (requests) that still use it, plus one for the handle */
    int *members; /* members[i]: the world rank of rank i (the local group) */
    char name[MPI_MAX_OBJECT_NAME];
    struct mpi_attr *attrs; /* cached attributes (mpi_attr.c), newest first */
    /* An intercommunicator: rc spans both groups, the lower one first (ranks 0..), so that a
     * peer rank r of the remote group is r + peer_off in rc, and this rank is rank +
     * local_off; only remote ranks send on rc's user space. local_rc: the local group;
     * coll_rc: a hidden duplicate of rc for the intercommunicator collectives. */
    bool inter;
    int remote_size, peer_off, local_off;
    int *remote_members; /* world ranks of the remote group */
    rcmsg_comm_t local_rc, coll_rc;
    rcmsg_comm_t coll; /* hidden duplicate for collectives (mpi_coll_comm), made with c */
    int coll_seq;      /* the next collective's tag on it (mpi_coll_tag) */
};
/* the rcmsg rank of peer (a rank of c, or ANY_SOURCE/PROC_NULL left as they are) */
static inline int mpi_comm_rc_peer(const mpi_comm_t *c, int peer)
{
    return peer >= 0 ? peer + c->peer_off : peer;
}
/* the MPI source of a message whose rcmsg source is src */
static inline int mpi_comm_src(const mpi_comm_t *c, int src)
{
    return src >= 0 ? src - c->peer_off : src;
}
/* the number of ranks a peer of c may name (the remote group's of an intercommunicator) */
static inline int mpi_comm_peers(const mpi_comm_t *c)
{
    return c->inter ? c->remote_size : c->size;
}
/* NULL: not a live communicator (no error raised) */
mpi_comm_t *mpi_comm_get(MPI_Comm comm);
/* As mpi_comm_get, raising MPI_ERR_COMM through mpi_err (on COMM_WORLD) when invalid. */
mpi_comm_t *mpi_comm_check(MPI_Comm comm, const char *call, int *err_p);
/* The start of a call on a communicator: MPI active (mpi_check_active) and comm live
 * (mpi_comm_check). NULL: the error raised, its code in *err_p (MPI_SUCCESS otherwise). */
mpi_comm_t *mpi_comm_enter(MPI_Comm comm, const char *call, int *err_p);
/* Wraps rc, a new communicator made from c, under a new handle (c's error handler);
 * members: the world ranks of its ranks, or NULL to learn them (collective over rc). Errors are
 * raised on c; rc is freed on failure. */
int mpi_comm_wrap(mpi_comm_t *c, const char *call, rcmsg_comm_t rc, const int *members,
                  MPI_Comm *newcomm);
int mpi_comm_init(void);            /* COMM_WORLD and COMM_SELF */
void mpi_comm_unref(mpi_comm_t *c); /* the last reference frees it */
void mpi_comm_fini(void);           /* frees what is left */

/* ---- groups, attributes, intercommunicators (mpi_group.c, mpi_attr.c, mpi_inter.c) -------
 * A group is a list of world ranks (its rank i is members[i]); MPI_GROUP_EMPTY is predefined. */
typedef struct mpi_group {
    int refs; /* the handle's, plus one per user (none yet) */
    int size;
    int *members;
} mpi_group_t;
int mpi_group_init(void); /* MPI_GROUP_EMPTY */
void mpi_group_fini(void);
/* a new group handle of n world ranks (copied); MPI_SUCCESS or an error code (not raised) */
int mpi_group_make(int n, const int *members, MPI_Group *group_p);
mpi_group_t *mpi_group_get(MPI_Group group);
/* the rank of world rank w in g, or MPI_UNDEFINED */
int mpi_group_rank_of(const mpi_group_t *g, int w);

/* Attributes: copied by dup (the keyval's copy callback), deleted by free (its delete
 * callback). Callbacks' errors are returned (not raised). */
int mpi_attr_get(mpi_comm_t *c, int keyval, void *attribute_val, int *flag);
int mpi_attr_copy_all(mpi_comm_t *from, mpi_comm_t *to);
int mpi_attr_delete_all(mpi_comm_t *c);
void mpi_attr_release_all(mpi_comm_t *c);
void mpi_attr_fini(void);

/* Blocking collectives over an intercommunicator (c->inter), over p2p on c->coll_rc and the
 * local group's rcmsg collectives on c->local_rc; the entry points of mpi_coll.c dispatch to
 * them. Arguments are checked by the entry point except what only an intercommunicator has
 * (MPI_ROOT, MPI_PROC_NULL as root). Errors are raised (mpi_err) on c. */
mpi_comm_t *mpi_inter_of(MPI_Comm comm); /* NULL: not a live intercommunicator */
/* a root argument over an intercommunicator: MPI_ROOT, MPI_PROC_NULL or a remote rank */
int mpi_inter_check_root(mpi_comm_t *c, const char *call, int root);
/* a buffer argument over an intercommunicator (MPI_IN_PLACE refused), count and type */
int mpi_inter_check_buf(mpi_comm_t *c, const char *call, const void *buf, int count,
                        MPI_Datatype dt, mpi_type_t **t_p);
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
/* Comm_dup of an intercommunicator (no attributes: the caller copies them) */
int mpi_inter_dup(mpi_comm_t *c, const char *call, MPI_Comm *newcomm);
/* a key for rcmsg_comm_create_ranks that this rank never gave before */
uint32_t mpi_comm_next_key(void);
/* frees what an intercommunicator has beyond an intracommunicator */
void mpi_inter_release(mpi_comm_t *c);

/* ---- requests and point-to-point (mpi_req.c, mpi_p2p.c) ----------------------------------- */
typedef enum {
    MPI_REQ_SEND,
    MPI_REQ_RECV,
    MPI_REQ_DONE, /* completed when started (PROC_NULL, Ibsend, a cancelled receive) */
    MPI_REQ_COLL, /* a nonblocking collective: req->sched (mpi_sched.c) */
} mpi_req_kind_t;

typedef enum {
    MPI_SEND_STANDARD,
    MPI_SEND_SYNC,
    MPI_SEND_READY,
    MPI_SEND_BUFFERED,
} mpi_send_mode_t;

typedef struct mpi_req {
    mpi_req_kind_t kind;
    bool persistent;
    bool active;    /* persistent: started and not yet completed */
    bool freed;     /* Request_free of an active request: completes in the background */
    bool cancelled; /* a receive taken back by MPI_Cancel */
    bool is_recv;   /* the operation is a receive (also when kind is DONE) */
    rcmsg_request_t rc;
    mpi_comm_t *comm;
    MPI_Request handle;
    /* the operation (kept for persistent requests and for unpacking) */
    void *buf;
    int count;
    MPI_Datatype dt;
    mpi_type_t *type; /* dt's type, held (mpi_type_retain) until the request is deleted */
    int peer, tag;
    mpi_send_mode_t mode;
    void *tmp; /* packed data: noncontiguous send or receive, Mprobe'd message */
    size_t tmp_len;
    MPI_Status done;         /* the status of a request completed when started (kind DONE) */
    struct mpi_req *next_bg; /* on the background list (freed while active) */
    struct mpi_sched *sched; /* kind COLL: the schedule, freed by mpi_req_finish */
} mpi_req_t;

mpi_req_t *mpi_req_new(mpi_comm_t *comm, int *err_p);
/* A point-to-point request of call, its arguments checked (raised through comm's handler)
 * and its operation fields set, not started; NULL with *err_p on a bad argument. */
mpi_req_t *mpi_req_p2p(const char *call, void *buf, int count, MPI_Datatype dt, int peer, int tag,
                       MPI_Comm comm, bool recv, mpi_send_mode_t mode, MPI_Request *request,
                       int *err_p);
void mpi_req_delete(mpi_req_t *req);
/* starts req (its operation fields set); MPI_SUCCESS or an error code (not raised) */
int mpi_req_start(mpi_req_t *req, const char *call);
/* Completes an operation whose rcmsg request finished with s and rst: unpacks, fills status
 * (may be MPI_STATUS_IGNORE). Returns the MPI error code of the operation (not raised). */
int mpi_req_finish(mpi_req_t *req, rcmsg_status_t s, const rcmsg_msg_status_t *rst,
                   MPI_Status *status);
/* Completes background work: requests freed while active, buffered sends. Called from every
 * MPI call that tests or waits. */
void mpi_progress(void);
/* Completes every background request and buffered send (Finalize): the sends get a bounded
 * time (mpi_fini_settle; one to this rank at once: nothing can receive it any more), then
 * are cancelled; the freed receives that nothing matched are cancelled; one warning for
 * each kind names what was cancelled. MPI_SUCCESS, or MPI_ERR_PENDING (raised) naming sends
 * that could be neither completed nor cancelled. */
int mpi_req_drain(void);
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

/* Status helpers */
void mpi_status_set(MPI_Status *st, int source, int tag, MPI_Count bytes, int err, bool cancelled);
MPI_Count mpi_status_bytes(const MPI_Status *st);
void mpi_status_empty(MPI_Status *st); /* source ANY, tag ANY, count 0, error SUCCESS */
void mpi_status_proc_null(MPI_Status *st);

/* Argument checks that name the call (raise through comm's handler, return the code). */
int mpi_check_buf(mpi_comm_t *c, const char *call, const void *buf, int count, MPI_Datatype dt,
                  mpi_type_t **t_p);
/* mpi_check_buf of a point-to-point call: count 0 of MPI_DATATYPE_NULL is valid too (as MPICH
 * accepts it), an empty message; *t_p is then MPI_BYTE's type. */
int mpi_check_p2p_buf(mpi_comm_t *c, const char *call, const void *buf, int count, MPI_Datatype dt,
                      mpi_type_t **t_p);
int mpi_check_peer(mpi_comm_t *c, const char *call, int peer, bool any_ok);
int mpi_check_tag(mpi_comm_t *c, const char *call, int tag, bool any_ok);

/* ---- operations and blocking collectives (mpi_op.c, mpi_coll*.c: helper C) ---------------
 * Buffers of mpi_op_apply are in dt's layout (count elements, element i at i * extent), as
 * an MPI_User_function sees them; a predefined op on a derived type packs and unpacks. */
/* inout[i] = in[i] op inout[i] for count elements of dt (MPI_User_function order). MPI_SUCCESS
 * or an error code (not raised): call mpi_op_check first. */
int mpi_op_apply(MPI_Op op, const void *in, void *inout, int count, MPI_Datatype dt);
bool mpi_op_commutative(MPI_Op op);
/* op and dt map to an rcmsg reduction (then rcmsg's algorithms do it): *dt_p is the type of
 * the basic elements (count elements of dt are mpi_type_size * count / rcmsg_datatype_size
 * of them, packed). Depends on the type signature only, so every rank decides alike. */
bool mpi_op_rcmsg(MPI_Op op, MPI_Datatype dt, rcmsg_op_t *op_p, rcmsg_datatype_t *dt_p);
/* op is live and defined on dt (committed): MPI_SUCCESS, or MPI_ERR_OP / MPI_ERR_TYPE raised
 * on c naming call ("MPI_Reduce: MPI_SUM is not defined on MPI_CHAR"). */
int mpi_op_check(mpi_comm_t *c, const char *call, MPI_Op op, MPI_Datatype dt);
/* The hidden duplicate of c carrying the MPI layer's own collective traffic (p2p: user
 * messages never match it). Made when c is made (mpi_comm_init, mpi_comm_wrap, the
 * intercommunicators), where every rank of c takes part anyway: rcmsg_comm_dup exchanges
 * messages (the members agree on the context), so making it at a nonblocking collective could
 * block.
 * NULL: error raised, its code in *err_p (MPI_SUCCESS otherwise). */
rcmsg_comm_t mpi_coll_comm(mpi_comm_t *c, const char *call, int *err_p);
/* The tag of c's next collective on the hidden communicator. EVERY collective entry point
 * (blocking or not, whatever path it takes) takes exactly one, so the sequence agrees on
 * every rank and concurrent collectives never cross. */
int mpi_coll_tag(mpi_comm_t *c);

/* ---- nonblocking collectives (mpi_sched.c, mpi_nbc.c) -------------------------------------
 * A schedule is a list of steps cut into phases by fences: the steps of a phase start in
 * order (local steps run at once, sends and receives are posted), and the next phase starts
 * once every send and receive of this one has completed. Schedules advance in
 * mpi_sched_progress (called by mpi_progress, hence by every MPI call that tests or waits, and
 * by rcmsg's progress through a hook while any is active, hence inside every blocking rcmsg
 * call),
 * never by a thread. Messages travel on the communicator's hidden duplicate (mpi_coll_comm)
 * with one tag per schedule (mpi_coll_tag), so neither user messages nor other collectives
 * can match them. */
typedef struct mpi_sched mpi_sched_t;
/* A typed buffer: count elements of type (NULL type: count bytes) at buf. */
typedef struct {
    void *buf;
    size_t count;
    mpi_type_t *type;
} mpi_tbuf_t;
/* a new schedule on comm's hidden duplicate, with the next collective tag; NULL: error raised
 * naming call */
mpi_sched_t *mpi_sched_new(mpi_comm_t *comm, const char *call, int *err_p);
void mpi_sched_free(mpi_sched_t *s);
/* MPI_Finalize: the hook is unregistered (schedules left active are abandoned). */
void mpi_sched_fini(void);
/* memory owned by the schedule (freed with it); NULL when out of memory (the schedule then
 * fails at mpi_sched_start) */
void *mpi_sched_alloc(mpi_sched_t *s, size_t bytes);
/* a temporary buffer for count elements of dt, laid out as dt says (for reductions) */
void *mpi_sched_tmp(mpi_sched_t *s, size_t count, MPI_Datatype dt);
/* steps (the schedule keeps a reference on each type until it is freed) */
void mpi_sched_send(mpi_sched_t *s, mpi_tbuf_t b, int peer);
void mpi_sched_recv(mpi_sched_t *s, mpi_tbuf_t b, int peer);
void mpi_sched_copy(mpi_sched_t *s, mpi_tbuf_t from, mpi_tbuf_t to); /* same bytes of data */
/* inout = in op inout (count elements of dt: MPI_User_function order) */
void mpi_sched_reduce(mpi_sched_t *s, MPI_Op op, const void *in, void *inout, size_t count,
                      MPI_Datatype dt);
void mpi_sched_fence(mpi_sched_t *s);
/* Starts s as the operation of a new request of kind COLL on comm: MPI_SUCCESS or an error
 * code (not raised; s is freed). */
int mpi_sched_start(mpi_sched_t *s, mpi_comm_t *comm, MPI_Request *request_p);
/* true once s is complete (advances it first); *err_p its MPI error code */
bool mpi_sched_test(mpi_sched_t *s, int *err_p);
/* advances every active schedule; how many moved (0 when called back from inside one) */
int mpi_sched_progress(void);
/* Shared by the calls (mpi_nbc.c): argument checks that raise through the communicator, the
 * start (raised when it fails) */
mpi_comm_t *mpi_nbc_args(const char *call, MPI_Comm comm, MPI_Request *request, int *err_p);
int mpi_nbc_check_root(mpi_comm_t *c, const char *call, int root);
/* a buffer that must not be MPI_IN_PLACE (what: its name in the error), count and type */
int mpi_nbc_check_buf(mpi_comm_t *c, const char *call, const void *buf, int count, MPI_Datatype dt,
                      mpi_type_t **t_p, const char *what);
int mpi_nbc_start(mpi_sched_t *s, mpi_comm_t *c, const char *call, MPI_Request *request);
mpi_tbuf_t mpi_nbc_block(const void *buf, int i, int count, mpi_type_t *t); /* i-th block */
/* Binomial broadcast of b from root, then a fence. Over c's group: an intercommunicator's
 * local group (its ranks are local_off + r on the hidden communicator). */
void mpi_nbc_bcast_tree(mpi_sched_t *s, mpi_comm_t *c, mpi_tbuf_t b, int root);
/* Binomial reduce over c's group (as mpi_nbc_bcast_tree) of count elements of dt at in,
 * combined in rank order, to its rank 0: the buffer holding the result there (dt's layout,
 * owned by s), NULL at the other ranks (and when out of memory: s then fails to start). */
void *mpi_nbc_reduce_tree(mpi_sched_t *s, mpi_comm_t *c, const void *in, size_t count,
                          MPI_Datatype dt, MPI_Op op);

/* Over an intercommunicator (mpi_nbc_inter.c): the entry points of mpi_nbc.c and
 * mpi_nbc_red.c dispatch to them when c->inter; they check the rest of the arguments (raised
 * on c) and start the schedule. */
int mpi_nbc_inter_barrier(mpi_comm_t *c, MPI_Request *request);
int mpi_nbc_inter_bcast(mpi_comm_t *c, void *buf, int count, MPI_Datatype dt, int root,
                        MPI_Request *request);
/* gather: the root receives (rootbuf: recvbuf), the other group sends (leafbuf: sendbuf);
 * scatter: the reverse */
int mpi_nbc_inter_rooted(mpi_comm_t *c, const char *call, bool gather, const void *sendbuf,
                         int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Request *request);
/* alltoall: block j of sendbuf to remote rank j; allgather: all of sendbuf to each */
int mpi_nbc_inter_all(mpi_comm_t *c, const char *call, bool alltoall, const void *sendbuf,
                      int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Request *request);
int mpi_nbc_inter_reduce(mpi_comm_t *c, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype dt, MPI_Op op, int root, MPI_Request *request);
/* Iallreduce (block 0) and Ireduce_scatter_block (block: recvcount, scattered) */
int mpi_nbc_inter_allreduce(mpi_comm_t *c, const char *call, bool scatter, const void *sendbuf,
                            void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                            MPI_Request *request);

#endif /* RCMSG_MPI_IMPL_H */
