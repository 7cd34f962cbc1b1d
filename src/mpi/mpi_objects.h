/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The objects floor of the MPI face (issue 39 item 5): handles, errors and error handlers,
 * datatypes and packing, communicators, groups, attributes, operations, and every argument
 * check (mpi_check.c). The files of this floor call nothing of the engines (mpi_engines.h)
 * or the bindings (the MPI_* calls); test/unit/layering.sh checks the order. Built over the
 * public <rcmsg.h> and <mpi.h> only: nothing here reaches into rcmsg's internals.
 */
#ifndef RCMSG_MPI_OBJECTS_H
#define RCMSG_MPI_OBJECTS_H

#include <mpi.h>
#include <rcmsg.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- datatypes (mpi_type.c, mpi_pack.c) ---------------------------------------- */
typedef struct mpi_type mpi_type_t;           /* opaque */
mpi_type_t *mpi_type_get(MPI_Datatype dt);    /* NULL: invalid or freed */
bool mpi_type_is_contig(const mpi_type_t *t); /* true: count elements are one block */
size_t mpi_type_size(const mpi_type_t *t);    /* bytes of data in one element */
MPI_Aint mpi_type_extent(const mpi_type_t *t);
MPI_Aint mpi_type_true_lb(const mpi_type_t *t);     /* where the data of a contig type starts */
MPI_Aint mpi_type_true_extent(const mpi_type_t *t); /* true_ub - true_lb */
/* pack count elements at buf into out (size * count bytes), unpack the reverse */
void mpi_type_pack(const mpi_type_t *t, const void *buf, size_t count, void *out);
void mpi_type_unpack(const mpi_type_t *t, const void *in, size_t count, void *buf);
/* external32 (mpi_pack_ext.c): the bytes of one element of t in it, and count elements of t
 * at buf packed into out (count * mpi_type_ext_size bytes) or the reverse; MPI_SUCCESS,
 * MPI_ERR_CONVERSION (a value the other side cannot hold) or MPI_ERR_NO_MEM. */
size_t mpi_type_ext_size(const mpi_type_t *t);
int mpi_type_ext_pack(const mpi_type_t *t, const void *buf, size_t count, void *out);
int mpi_type_ext_unpack(const mpi_type_t *t, const void *in, size_t count, void *buf);
/* The blocks of count elements of t in pack order, adjacent ones merged: fn(arg, off, len,
 * poff) for each, off from the buffer's start, poff its offset in the packed data; stops at
 * fn's first nonzero return and returns it (0 when all were walked). */
typedef int mpi_type_block_fn(void *arg, MPI_Aint off, size_t len, size_t poff);
int mpi_type_blocks(const mpi_type_t *t, size_t count, mpi_type_block_fn *fn, void *arg);
/* The bytes count elements of t touch: [*lo_p, *hi_p) from the buffer's start; false when
 * they are past MPI_Aint's range. */
bool mpi_type_span(const mpi_type_t *t, size_t count, MPI_Aint *lo_p, MPI_Aint *hi_p);
/* The predefined type every basic element of t is (a pair type counts as one: MPI_2INT, ...),
 * MPI_DATATYPE_NULL when they differ or there is none. */
MPI_Datatype mpi_type_basic_of(const mpi_type_t *t);
/* na elements of a and nb of b have the same type signature (the same predefined types in the
 * same order, a pair type as its value type and MPI_INT; beyond 2^20 runs of them only the
 * sizes are compared). */
bool mpi_type_sig_equal(const mpi_type_t *a, size_t na, const mpi_type_t *b, size_t nb);
/* how many whole elements (and basic elements for Get_elements) are in nbytes */
int mpi_type_basic_count(const mpi_type_t *t, size_t nbytes, MPI_Count *basic_p);
rcmsg_datatype_t mpi_type_rcmsg(const mpi_type_t *t, bool *ok_p); /* for reductions later */
/* rcmsg's datatype of one element of t, packed (rcmsg_datatype_create of its size, made once
 * and kept with t); RCMSG_DATATYPE_NULL when rcmsg cannot make one. Size 0: not asked. */
rcmsg_datatype_t mpi_type_elem(mpi_type_t *t);
/* the type whose element rcmsg datatype d is (NULL: none) */
mpi_type_t *mpi_type_of_elem(rcmsg_datatype_t d);
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
#define MPI_HANDLE_KINDS 16 /* kinds 1..10 (MPI_KIND_WIN_ 9, MPI_KIND_INFO_ 10) */
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
void mpi_handle_fini(void); /* MPI_Finalize: every table freed but the infos' (MPI-4.0) */

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
/* While a large-count (_c) call runs its int form (call: the _c call's name; NULL: none, on
 * this thread), an error that form raises under its own name (call without "_c") is named by
 * the _c call: set by the _c helpers (mpi_c_rooted, ...), the name before restored by
 * mpi_c_out_free (a _c call inside another's callback leaves the outer one's). */
const char *mpi_err_as(const char *call); /* returns the name it replaces */
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
/* For the calls of mpi_err_api.c: a code MPI_Error_class/_string accept; its class; its text
 * (MPI_MAX_ERROR_STRING at most: returns its length). */
bool mpi_err_code_valid(int code);
int mpi_err_class(int code);
int mpi_err_string(int code, char *string);
/* The program's error classes and codes (MPI_Add_error_*): a new class / code of class cls
 * (MPI_SUCCESS, or MPI_ERR_OTHER when none is left, MPI_ERR_NO_MEM); code is one the program
 * added (a class or a code); cls is a class a code may be added to (predefined but
 * MPI_SUCCESS, or the program's); its string set (copied); the value of MPI_LASTUSEDCODE;
 * everything forgotten (Finalize). */
int mpi_err_add_class(int *cls_p);
int mpi_err_add_code(int cls, int *code_p);
bool mpi_err_user(int code);
bool mpi_err_is_class(int cls);
int mpi_err_add_string(int code, const char *text);
int *mpi_err_lastused(void);
void mpi_err_fini(void);
/* Error handlers: a new user handler (MPI_SUCCESS or the code); a live one; comm's handler
 * set (the new one retained) or got (retained for the caller); one released (*eh becomes
 * MPI_ERRHANDLER_NULL); comm's handler called with code. */
int mpi_errh_create(MPI_Comm_errhandler_function *function, MPI_Errhandler *eh_p);
bool mpi_errh_valid(MPI_Errhandler eh);
void mpi_errh_set(mpi_comm_t *c, MPI_Errhandler eh);
MPI_Errhandler mpi_errh_get(mpi_comm_t *c);
void mpi_errh_free(MPI_Errhandler *eh);
void mpi_errh_call(mpi_comm_t *c, int code);

/* ---- MPI active (mpi_check.c; set by mpi_env.c)
 * ---------------------------------------------------------- */
enum { MPI_STATE_NONE, MPI_STATE_ACTIVE, MPI_STATE_FINALIZED };
extern int mpi_state;
/* the error of a call made while MPI is not active (mpi_state), naming call */
int mpi_check_active(const char *call);
/* Threads (docs/threads.md): under MPI_THREAD_MULTIPLE (mpi_mt, set by Init_thread) every
 * MPI_* call holds rcmsg's lock (rcmsg_thread_enter: recursive per thread) from its first
 * line to its return, MPI_MT_GUARD at its top. It protects the face's shared state (handle
 * tables, attributes and keyvals, error handlers, requests and their background work, the
 * attached buffer of Bsend, the schedules) as it protects rcmsg's: rcmsg's waits let it go in
 * their idle rounds, and the face's own polling loops let it go through rcmsg_thread_pause.
 * Lock order: this lock is rcmsg's core lock; nothing of the face has a lock of its own. Below
 * MULTIPLE the guard is one branch on mpi_mt. */
extern bool mpi_mt;
static inline __attribute__((always_inline)) int mpi_mt_enter(void)
{
    if (__builtin_expect(!mpi_mt, 1)) {
        return 0;
    }
    rcmsg_thread_enter();
    return 1;
}
static inline __attribute__((always_inline)) void mpi_mt_leave(const int *taken)
{
    if (__builtin_expect(*taken != 0, 0)) {
        rcmsg_thread_leave();
    }
}
#define MPI_MT_GUARD()                                                                             \
    const int mpi_mt_taken_ __attribute__((cleanup(mpi_mt_leave), unused)) = mpi_mt_enter()
/* The body of a hot binding that is one call (Send, Recv): below MULTIPLE one branch and the
 * call, no guard to clean up after it (MPI_Send: 12 instructions less per call, callgrind). */
#define MPI_MT_TAIL(expr)                                                                          \
    do {                                                                                           \
        if (__builtin_expect(mpi_mt, 0)) {                                                         \
            int mpi_mt_r_;                                                                         \
            rcmsg_thread_enter();                                                                  \
            mpi_mt_r_ = (expr);                                                                    \
            rcmsg_thread_leave();                                                                  \
            return mpi_mt_r_;                                                                      \
        }                                                                                          \
        return (expr);                                                                             \
    } while (0)
/* An idle round of the face's own waits: lets rcmsg's lock go a moment, yields the CPU. */
static inline void mpi_mt_pause(void)
{
    rcmsg_thread_pause();
}
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
    int errh_handle; /* the handle a user handler gets when not this one's (a window's) */
    int refs;        /* objects (requests) that still use it, plus one for the handle */
    int *members;    /* members[i]: the world rank of rank i (the local group) */
    char name[MPI_MAX_OBJECT_NAME];
    struct mpi_attr *attrs; /* cached attributes (mpi_attr.c), newest first */
    /* An intercommunicator: rc spans both groups, the lower one first (ranks 0..), so that a
     * peer rank r of the remote group is r + peer_off in rc, and this rank is rank +
     * local_off; only remote ranks send on rc's user space. local_rc: the local group;
     * coll_rc: an rcmsg intercommunicator of the two groups for the collectives
     * (mpi_inter_coll.c). */
    bool inter;
    int remote_size, peer_off, local_off;
    int *remote_members; /* world ranks of the remote group */
    rcmsg_comm_t local_rc, coll_rc;
    struct mpi_topo *topo; /* its process topology (mpi_topo.c), NULL: none */
    /* the hardware resource type Comm_split_type made it for (a static string, the value of
     * its info key "mpi_hw_resource_type"; kept by a dup), NULL: none */
    const char *hw_type;
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
static inline mpi_comm_t *mpi_comm_get(MPI_Comm comm)
{
    return mpi_handle_get(MPI_KIND_COMM_, comm);
}
/* Wraps rc, a new communicator made from c, under a new handle (c's error handler);
 * members: the world ranks of its ranks, or NULL to learn them (collective over rc). Errors are
 * raised on c; rc is freed on failure. */
int mpi_comm_wrap(mpi_comm_t *c, const char *call, rcmsg_comm_t rc, const int *members,
                  MPI_Comm *newcomm);
int mpi_comm_init(void);            /* COMM_WORLD and COMM_SELF */
void mpi_comm_unref(mpi_comm_t *c); /* the last reference frees it */
void mpi_comm_fini(void);           /* frees what is left */

/* a key for rcmsg_comm_create_ranks that this rank never gave before */
uint32_t mpi_comm_next_key(void);
/* Intercommunicators (mpi_comm.c; the calls in mpi_inter.c): the new intercommunicator object
 * around the union rc, local_rc and coll_rc (RCMSG_COMM_NULL: made here with
 * rcmsg_intercomm_create; all taken, freed on failure), remote_members taken;
 * Comm_dup of one (no attributes: the caller copies them): rcmsg's dups of its rc, local_rc and
 * coll_rc (MPI_INTER_RCS, in that order); mpi_inter_make: the duplicate of c from them (d, or
 * s: the first failure, those of d not RCMSG_COMM_NULL freed); what one has beyond an
 * intracommunicator, freed. Errors are raised on local / c. */
#define MPI_INTER_RCS 3
/* what an MPI communicator is made of, in that order (an intracommunicator: its rc only) */
static inline int mpi_comm_rcs(const mpi_comm_t *c, rcmsg_comm_t rcs[MPI_INTER_RCS])
{
    rcs[0] = c->rc;
    rcs[1] = c->local_rc;
    rcs[2] = c->coll_rc;
    return c->inter ? MPI_INTER_RCS : 1;
}
/* Collective over local group c, whose leader (a rank of c) meets the remote group's leader over
 * peer (its rank remote there) with tag: the intercommunicator of the two groups, as
 * MPI_Intercomm_create's, this group first in the union if low (the remote leader passes the
 * opposite). The MPI face's ports use it over rcmsg_comm_world_private. leader_err: the
 * leader's own failure before the meeting, which then fails the whole group. */
int mpi_inter_connect(mpi_comm_t *c, const char *call, int leader, int leader_err,
                      rcmsg_comm_t peer, int remote, int tag, bool low, MPI_Comm *newintercomm);
int mpi_inter_wrap(mpi_comm_t *local, const char *call, rcmsg_comm_t rc, rcmsg_comm_t local_rc,
                   rcmsg_comm_t coll_rc, int remote_size, int *remote_members, bool low,
                   MPI_Comm *newcomm);
int mpi_inter_dup(mpi_comm_t *c, const char *call, MPI_Comm *newcomm);
int mpi_inter_make(mpi_comm_t *c, const char *call, rcmsg_status_t s, rcmsg_comm_t *d,
                   MPI_Comm *newcomm);
void mpi_inter_release(mpi_comm_t *c);
/* MPI_Comm_split (and Comm_create, Comm_split_type) of an intercommunicator, collective over
 * both groups: color (RCMSG_UNDEFINED: none) and key of every member allgathered over the
 * union; the members of each group with this rank's color, ordered by (key, rank), form the
 * two groups of a new intercommunicator (the low group stays low). MPI_COMM_NULL for
 * RCMSG_UNDEFINED, or when the other group has no member of that color. Errors raised on c. */
int mpi_inter_split(mpi_comm_t *c, const char *call, int color, int key, MPI_Comm *newcomm);

/* ---- info objects (mpi_info.c) -------------------------------------------------------------
 * An ordered list of (key, value) strings (the order of first setting). rcmsg reads no hint
 * of a communicator: MPI_Comm_get_info returns the hints "actually used", only a split's
 * mpi_hw_resource_type. Infos live from before MPI_Init to after MPI_Finalize (MPI-4.0). */
typedef struct mpi_info {
    int n, cap;
    char **keys, **values;
} mpi_info_t;
/* the info of a live handle (MPI_INFO_ENV filled at its first use), NULL otherwise */
mpi_info_t *mpi_info_get(MPI_Info info);
bool mpi_info_is_env(const mpi_info_t *i);
/* i given MPI_INFO_ENV's keys (MPI-4.0 11.2: maxprocs, the launcher's count, known before
 * MPI_Init too; host, arch, wdir; no thread_level), and command and argv from
 * argv[0 .. argc - 1] unless argc <= 0 or argv is NULL; MPI_SUCCESS or MPI_ERR_NO_MEM (not
 * raised) */
int mpi_info_env_fill(mpi_info_t *i, int argc, char *argv[]);
/* a new empty info and its handle; MPI_SUCCESS or MPI_ERR_NO_MEM (not raised) */
int mpi_info_new(MPI_Info *info_p, mpi_info_t **i_p);
/* the index of key in i, -1 when absent; key set to value (copies); entry n removed */
int mpi_info_find(const mpi_info_t *i, const char *key);
int mpi_info_put(mpi_info_t *i, const char *key, const char *value);
void mpi_info_remove(mpi_info_t *i, int n);
/* a new info with from's entries (from NULL: empty); MPI_SUCCESS or MPI_ERR_NO_MEM */
int mpi_info_copy(const mpi_info_t *from, MPI_Info *info_p);
/* frees a created info (MPI_INFO_ENV stays); *info_p becomes MPI_INFO_NULL */
void mpi_info_release(MPI_Info *info_p);

/* ---- attributes of datatypes (mpi_type_attr.c) ---------------------------------------------
 * A type's attributes are a list (list: where the type keeps it); h the type's handle for the
 * callbacks. Callbacks' errors are returned (not raised). */
struct mpi_tattr;
int mpi_tkeyval_new(MPI_Type_copy_attr_function *copy_fn, MPI_Type_delete_attr_function *delete_fn,
                    void *extra, int *keyval);
bool mpi_tkeyval_live(int k);
void mpi_tkeyval_release(int k);
/* the same store for windows' keyvals (kind: MPI_KIND_WIN_; MPI_Win is an int as
 * MPI_Datatype is, so the callbacks' types are the same) */
int mpi_tkeyval_new_of(int kind, MPI_Type_copy_attr_function *copy_fn,
                       MPI_Type_delete_attr_function *delete_fn, void *extra, int *keyval);
bool mpi_tkeyval_live_of(int kind, int k);
/* set (a value there deleted first), get (false: not set), delete (*found_p: it was set) */
int mpi_tattr_set(struct mpi_tattr **list, MPI_Datatype h, int k, void *val);
bool mpi_tattr_get(struct mpi_tattr *const *list, int k, void **val_p);
int mpi_tattr_delete(struct mpi_tattr **list, MPI_Datatype h, int k, bool *found_p);
/* Type_dup: the copy callbacks into *to; Type_free: the delete callbacks; a type destroyed:
 * the list let go of without callbacks */
int mpi_tattr_copy_all(struct mpi_tattr *from, MPI_Datatype fromh, struct mpi_tattr **to);
int mpi_tattr_delete_all(struct mpi_tattr **list, MPI_Datatype h);
void mpi_tattr_release_all(struct mpi_tattr **list);

/* ---- process topologies (mpi_topo.c) -----------------------------------------------------
 * What a communicator's topology holds, owned by the communicator (freed with it, copied by
 * Comm_dup). Cart: dims and periods; graph: the whole graph (MPI_Graph_create's index and
 * edges); dist graph: this rank's own neighbors and their weights (1s when unweighted). */
typedef struct mpi_topo {
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    int ndims;
    int *dims, *periods;
    int nnodes, nedges;
    int *index, *edges;
    int indegree, outdegree;
    int *sources, *sourceweights, *destinations, *destweights;
    bool weighted;
} mpi_topo_t;
/* New topologies (the arrays copied); NULL without memory. */
mpi_topo_t *mpi_topo_cart(int ndims, const int *dims, const int *periods);
mpi_topo_t *mpi_topo_graph(int nnodes, const int *index, const int *edges);
mpi_topo_t *mpi_topo_dist(int indegree, const int *sources, const int *sourceweights, int outdegree,
                          const int *destinations, const int *destweights, bool weighted);
mpi_topo_t *mpi_topo_copy(const mpi_topo_t *t); /* NULL for NULL (and without memory) */
void mpi_topo_free(mpi_topo_t *t);              /* NULL: nothing */
/* Cart: the product of n dims (0 when it overflows an int); the rank of coords (each within
 * its dimension); the coords of rank. */
int mpi_cart_size(int n, const int *dims);
int mpi_cart_rank_of(const mpi_topo_t *t, const int *coords);
void mpi_cart_coords_of(const mpi_topo_t *t, int rank, int *coords);
/* Cart_shift's answer for rank: the source and destination at disp along dim (MPI_PROC_NULL
 * past a non-periodic edge). */
void mpi_cart_shift_of(const mpi_topo_t *t, int rank, int dim, int disp, int *src, int *dst);
/* The neighbors of rank in the order of the neighborhood collectives' blocks: nsrc sources
 * (receive blocks) and ndst destinations (send blocks); srcs and dsts NULL: counts only. */
void mpi_topo_neighbors(const mpi_topo_t *t, int rank, int *nsrc, int *srcs, int *ndst, int *dsts);
/* MPI_Dims_create's work: dims filled; NULL, or why it cannot be done (not raised). */
const char *mpi_dims_fill(int nnodes, int ndims, int *dims);

/* ---- groups, attributes (mpi_group.c, mpi_attr.c) -------
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
/* MPI_Group_free's work on the group g of handle h (MPI_GROUP_EMPTY: nothing) */
void mpi_group_free(MPI_Group h, mpi_group_t *g);

/* Attributes: copied by dup (the keyval's copy callback), deleted by free (its delete
 * callback). Callbacks' errors are returned (not raised). */
int mpi_attr_get(mpi_comm_t *c, int keyval, void *attribute_val, int *flag);
int mpi_attr_copy_all(mpi_comm_t *from, mpi_comm_t *to);
int mpi_attr_delete_all(mpi_comm_t *c);
void mpi_attr_release_all(mpi_comm_t *c);
void mpi_attr_fini(void);
/* For the calls (mpi_attr_api.c): a live user keyval; a new one (MPI_SUCCESS or
 * MPI_ERR_NO_MEM); one released; an attribute set (a value there deleted first: its delete
 * callback's error returned, *callback_p true) or removed (*set_p: it was set; the delete
 * callback's error returned). */
bool mpi_keyval_live(int k);
int mpi_keyval_new(MPI_Comm_copy_attr_function *copy_fn, MPI_Comm_delete_attr_function *delete_fn,
                   void *extra_state, int *keyval);
void mpi_keyval_release(int k);
int mpi_attr_set(mpi_comm_t *c, int k, void *val, bool *callback_p);
int mpi_attr_remove(mpi_comm_t *c, int k, bool *set_p);

/* ---- operations (mpi_op.c) -----------------------------------------------------------------
 * Buffers of mpi_op_apply are in dt's layout (count elements, element i at i * extent), as
 * an MPI_User_function sees them; a predefined op on a derived type packs and unpacks. */
/* inout[i] = in[i] op inout[i] for count elements of dt (MPI_User_function order). MPI_SUCCESS
 * or an error code (not raised): call mpi_op_check first. */
int mpi_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype dt);
bool mpi_op_commutative(MPI_Op op);
/* op and dt map to an rcmsg reduction (then rcmsg's algorithms do it): *dt_p is the type of
 * the basic elements (count elements of dt are mpi_type_size * count / rcmsg_datatype_size
 * of them, packed). Depends on the type signature only, so every rank decides alike. */
bool mpi_op_rcmsg(MPI_Op op, MPI_Datatype dt, rcmsg_op_t *op_p, rcmsg_datatype_t *dt_p);
/* The rcmsg operation and datatype that reduce count elements of dt, packed: rcmsg's own
 * (mpi_op_rcmsg) when they map, else a user operation of rcmsg calling back into this file
 * (the program's function, or the MPI face's kernels for MINLOC/MAXLOC, long double, complex,
 * ...) on dt's element datatype (mpi_type_elem). *n_p: how many rcmsg elements the packed
 * data is. MPI_SUCCESS, or an error code (not raised). op and dt checked (mpi_op_check). */
int mpi_op_rcmsg_any(MPI_Op op, MPI_Datatype dt, size_t count, rcmsg_op_t *op_p,
                     rcmsg_datatype_t *dt_p, size_t *n_p);
/* op is a live operation handle; a predefined one */
bool mpi_op_valid(MPI_Op op);
bool mpi_op_predefined(MPI_Op op);
/* MPI_Op_create's and MPI_Op_free's work (a live user operation), checked by the calls;
 * mpi_op_new: MPI_SUCCESS or MPI_ERR_NO_MEM */
int mpi_op_new(MPI_User_function *user_fn, MPI_User_function_c *user_fn_c, bool commute,
               MPI_Op *op);
void mpi_op_delete(MPI_Op *op);
/* An operation held by a collective that uses it (MPI_Op_free of a user one then leaves it
 * working until mpi_op_drop); NULL for no live operation. mpi_op_drop(NULL): nothing.
 * mpi_op_apply_held: mpi_op_apply on a held operation and type (t held too; dt its handle). */
struct mpi_op *mpi_op_hold(MPI_Op op);
void mpi_op_drop(struct mpi_op *o);
int mpi_op_apply_held(struct mpi_op *o, mpi_type_t *t, MPI_Datatype dt, const void *in, void *inout,
                      MPI_Count count);
/* op (live) is defined on dt (a live type): MPI_SUCCESS, or MPI_ERR_OP with why it is not
 * ("MPI_SUM is not defined on MPI_CHAR") in why */
int mpi_op_defined(MPI_Op op, MPI_Datatype dt, char *why, size_t len);

/* ---- argument checks (mpi_check.c: every one of them) -------------------------------------
 * Each names the call and the problem, raises it through the communicator's handler (c NULL:
 * MPI_COMM_WORLD's) and returns its code; MPI_SUCCESS when the argument is fine. */
/* As mpi_comm_get, raising MPI_ERR_COMM through mpi_err (on COMM_WORLD) when invalid. */
mpi_comm_t *mpi_comm_check(MPI_Comm comm, const char *call, int *err_p);
/* The start of a call on a communicator: MPI active (mpi_check_active) and comm live
 * (mpi_comm_check). NULL: the error raised, its code in *err_p (MPI_SUCCESS otherwise). */
mpi_comm_t *mpi_comm_enter(MPI_Comm comm, const char *call, int *err_p);
/* count elements of dt at buf: count >= 0 (an int form's or a large-count _c form's), dt live
 * and committed, and their bytes a size_t (else MPI_ERR_COUNT naming the limit). */
int mpi_check_buf(mpi_comm_t *c, const char *call, const void *buf, MPI_Count count,
                  MPI_Datatype dt, mpi_type_t **t_p);
/* mpi_check_buf of a point-to-point call: count 0 of MPI_DATATYPE_NULL is valid too (as MPICH
 * accepts it), an empty message; *t_p is then MPI_BYTE's type. */
int mpi_check_p2p_buf(mpi_comm_t *c, const char *call, const void *buf, MPI_Count count,
                      MPI_Datatype dt, mpi_type_t **t_p);
int mpi_check_peer(mpi_comm_t *c, const char *call, int peer, bool any_ok);
int mpi_check_tag(mpi_comm_t *c, const char *call, int tag, bool any_ok);
/* op is live and defined on dt (committed): MPI_SUCCESS, or MPI_ERR_OP / MPI_ERR_TYPE raised
 * on c naming call ("MPI_Reduce: MPI_SUM is not defined on MPI_CHAR"). */
int mpi_op_check(mpi_comm_t *c, const char *call, MPI_Op op, MPI_Datatype dt);
/* A request handle: the object (NULL for MPI_REQUEST_NULL, or invalid: raised in *err_p) */
void *mpi_check_request(MPI_Request h, const char *call, int *err_p);
/* a live user keyval of a call (predefined ones named as such) */
int mpi_check_keyval(mpi_comm_t *c, const char *call, int k);
/* count request handles: every one MPI_REQUEST_NULL or live (the first invalid one raised) */
int mpi_check_requests(int count, const MPI_Request reqs[], const char *call);

/* The arguments every blocking collective checks alike (coll_check). The shape says where each
 * buffer is used: */
typedef enum {
    COLL_ALL,       /* no root: every rank sends and receives; sendbuf may be MPI_IN_PLACE */
    COLL_TO_ROOT,   /* gather, reduce: every rank sends, the root receives (and its sendbuf may
                     * be MPI_IN_PLACE) */
    COLL_FROM_ROOT, /* scatter: the root sends, every rank receives (the root's recvbuf may be
                     * MPI_IN_PLACE) */
    COLL_BCAST,     /* one buffer (recv), never MPI_IN_PLACE */
} coll_shape_t;

/* One buffer: count elements of dt, or (v) counts[i] elements at displs[i] for rank i. */
typedef struct {
    const void *buf;
    int count;
    MPI_Datatype dt;
    bool v;
    const int *counts, *displs;
} coll_side_t;

typedef struct {
    coll_shape_t shape;
    int root;    /* every shape but COLL_ALL */
    bool reduce; /* op is checked (on recv.dt) */
    MPI_Op op;
    coll_side_t send, recv;
    bool blocks;         /* the n-block buffer (recv; send for COLL_FROM_ROOT) holds one block per
                          * rank: this rank's own (the root's at the root) is where the other buffer
                          * must not be (gather, scatter, allgather); else its start (reductions,
                          * alltoall) */
    mpi_type_t *st, *rt; /* out: the buffers' types (NULL: not used here, or MPI_IN_PLACE) */
} coll_args_t;

/* Checks a in this order: the root, the operation, the send buffer and the receive buffer
 * where this rank uses them (a v buffer's counts and displacements before its type), then
 * that they are not aliased (mpi_check_alias: the send data where this rank's own received
 * data goes, a->blocks); sets a->st and a->rt. MPI_SUCCESS or the error raised on c naming
 * call. */
int coll_check(mpi_comm_t *c, const char *call, coll_args_t *a);
/* Without MPI_IN_PLACE a collective's (or Reduce_local's) input and output must not overlap
 * (MPI names MPI_IN_PLACE the way to reuse one buffer): sendbuf at recvbuf is MPI_ERR_BUFFER,
 * as in MPICH (MPI_BOTTOM excepted: absolute addresses in the types). A pointer compare; the
 * caller leaves out buffers that move no data. */
int mpi_check_alias(mpi_comm_t *c, const char *call, const void *sendbuf, const void *recvbuf);
/* Alltoallv and Alltoallw (w; blocking and not): the counts and displacements of each side (the
 * send side's unless MPI_IN_PLACE), the type arrays not NULL, and this rank's own send and
 * receive blocks not the same memory (same buffer, count, displacement and type: sends to the
 * other ranks may share a base buffer with receives, their displacements apart) */
int coll_check_vw(mpi_comm_t *c, const char *call, const void *sendbuf, const int *sc,
                  const int *sd, const void *st, const void *recvbuf, const int *rc, const int *rd,
                  const void *rt, bool w);
/* non-negative counts[i] for each peer of c (mpi_comm_peers: the remote group's ranks of an
 * intercommunicator; what: "send" or "receive" in the error); NULL arrays refused */
int coll_check_counts(mpi_comm_t *c, const char *call, const int *counts, const int *displs,
                      const char *what);
/* Intercommunicators: NULL: not a live intercommunicator (nothing raised); a root argument
 * (MPI_ROOT, MPI_PROC_NULL or a remote rank); a buffer argument (MPI_IN_PLACE refused), its
 * count and type */
mpi_comm_t *mpi_inter_of(MPI_Comm comm);
int mpi_inter_check_root(mpi_comm_t *c, const char *call, int root);
int mpi_inter_check_buf(mpi_comm_t *c, const char *call, const void *buf, int count,
                        MPI_Datatype dt, mpi_type_t **t_p);
/* The nonblocking collectives: comm live and request not NULL; a root of an
 * intracommunicator; a buffer that must not be MPI_IN_PLACE (what: its name in the error),
 * count and type */
mpi_comm_t *mpi_nbc_args(const char *call, MPI_Comm comm, MPI_Request *request, int *err_p);
int mpi_nbc_check_root(mpi_comm_t *c, const char *call, int root);
int mpi_nbc_check_buf(mpi_comm_t *c, const char *call, const void *buf, int count, MPI_Datatype dt,
                      mpi_type_t **t_p, const char *what);

/* The large-count (_c) collectives run as their int calls (the collectives' engine counts in
 * int): a count as the int one, or MPI_ERR_COUNT raised (negative, or past INT_MAX: naming
 * the limit), never cut; MPI not active: mpi_check_active. A count the call does not read
 * here (!used: a non-root's receive count, MPI_IN_PLACE's send count) is 0. */
int mpi_count_int(MPI_Comm comm, const char *call, MPI_Count n, bool used, int *out);
/* Which sides' counts of a rooted collective (root: a gather's receive, a scatter's send; leaf:
 * the others, and a bcast's or reduce's count) this rank uses, the one rule of the int forms
 * and the _c ones: on an intracommunicator the root uses both, the others the leaf side; on
 * an intercommunicator MPI_ROOT the root side only, MPI_PROC_NULL none, a leaf (root >= 0) the
 * leaf side only. A count of a side not used is neither checked nor converted (0). */
enum { COLL_SIDE_ROOT = 1, COLL_SIDE_LEAF = 2 };
unsigned mpi_coll_sides_of(const mpi_comm_t *c, int root);
/* the same for comm, root checked first (MPI_ERR_ROOT naming call); an invalid communicator:
 * the leaf side (the call names it); MPI not active: mpi_check_active */
int mpi_coll_sides(MPI_Comm comm, const char *call, int root, unsigned *sides);
/* this rank uses the count of side (of mpi_coll_sides) with buffer buf: it is on that side, and
 * buf is not the intracommunicator root's MPI_IN_PLACE (NULL: a side that cannot be in place) */
static inline bool mpi_coll_side_used(unsigned sides, unsigned side, const void *buf)
{
    return (sides & side) &&
           !(sides == (COLL_SIDE_ROOT | COLL_SIDE_LEAF) && buf != NULL && buf == MPI_IN_PLACE);
}
/* An array of counts and one of displacements (either NULL: NULL out) of comm's peers
 * (mpi_comm_peers; local: its own group's ranks) as int ones in out (free out->keep after
 * the call, NULL on error): MPI_ERR_COUNT or (a displacement) MPI_ERR_ARG raised naming the
 * limit. An invalid comm: nothing converted (the int call raises it). */
typedef struct {
    const int *counts, *displs;
    void *keep;
} mpi_counts_int_t;
int mpi_counts_int(MPI_Comm comm, const char *call, bool local, const MPI_Count *counts,
                   const MPI_Aint *displs, mpi_counts_int_t *out);
/* the same for n entries (n 0: nothing converted) on c (MPI active) */
int mpi_counts_int_n(mpi_comm_t *c, const char *call, int n, const MPI_Count *counts,
                     const MPI_Aint *displs, mpi_counts_int_t *out);

/* ---- a _c collective's arguments, one helper per shape (mpi_coll_c.c) -------------------------
 * A large-count collective (blocking, nonblocking or persistent) gives its counts (MPI_Count)
 * and displacements (MPI_Aint) as in; the helper of its shape converts those this rank uses to
 * the int call's (out: a count not used 0, arrays not used NULL), each refused past INT_MAX
 * naming call (mpi_count_int, mpi_counts_int). out is set even on an error: free it with
 * mpi_c_out_free after the int call (a persistent form keeps its arrays: mpi_pcoll_args_t). */
typedef struct {
    const void *sbuf, *rbuf; /* (MPI_IN_PLACE: a send side not used) */
    MPI_Count scount, rcount;
    const MPI_Count *scounts, *rcounts;
    const MPI_Aint *sdispls, *rdispls; /* NULL: none (converted), or the w forms' own */
    bool local;                        /* rcounts one per rank of the own group (reduce_scatter) */
} mpi_c_in_t;
typedef struct {
    int scount, rcount;
    mpi_counts_int_t s, r;
    const char *prev_as; /* mpi_err_as's name before this call's (restored by mpi_c_out_free) */
} mpi_c_out_t;
/* rooted (mpi_coll_sides' rule): ONE a bcast's or reduce's count (scount), GATHER a gather's
 * (the root side receives: rcount or rcounts, rdispls), SCATTER a scatter's (the root side
 * sends: scount or scounts, sdispls); UNROOTED: not a rooted one (a caller's choice between
 * mpi_c_rooted and mpi_c_all: no root value means "none", as every int may be a root given) */
typedef enum { MPI_C_ONE, MPI_C_GATHER, MPI_C_SCATTER, MPI_C_UNROOTED } mpi_c_rooted_t;
int mpi_c_rooted(MPI_Comm comm, const char *call, int root, mpi_c_rooted_t kind,
                 const mpi_c_in_t *in, mpi_c_out_t *out);
/* the unrooted ones (allgather(v), alltoall(v, w), the reductions: their count as rcount):
 * the send side not used with MPI_IN_PLACE; arrays one per peer (mpi_comm_peers), or local */
int mpi_c_all(MPI_Comm comm, const char *call, const mpi_c_in_t *in, mpi_c_out_t *out);
/* the neighborhood ones: arrays one per destination (send) and per source (receive) of
 * comm's topology; comm without one: arrays not converted (the int call says so) */
int mpi_c_nbr(MPI_Comm comm, const char *call, const mpi_c_in_t *in, mpi_c_out_t *out);
void mpi_c_out_free(mpi_c_out_t *out);

#endif /* RCMSG_MPI_OBJECTS_H */
