/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives: the public entry points (coll.c) check the arguments, resolve RCMSG_IN_PLACE,
 * choose an algorithm and call it. Each algorithm lives in its own file (coll_<name>_<alg>.c,
 * opening with a diagram of its pattern) and sees only rcmsg_coll_args_t and the helpers
 * below, which send and receive in the communicator's collective matching space.
 */
#ifndef RCMSG_COLL_H
#define RCMSG_COLL_H

#include "coll_op.h"
#include "coll_sched.h"

#include <rcmsg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* X(ID, name): the collectives, in the order of their RCMSG_COLL_<ID>_ALGORITHM variables. */
#define RCMSG_COLL_LIST(X)                                                                         \
    X(BARRIER, barrier)                                                                            \
    X(BCAST, bcast)                                                                                \
    X(REDUCE, reduce)                                                                              \
    X(ALLREDUCE, allreduce)                                                                        \
    X(ALLGATHER, allgather)                                                                        \
    X(ALLTOALL, alltoall)                                                                          \
    X(GATHER, gather)                                                                              \
    X(SCATTER, scatter)                                                                            \
    X(REDUCE_SCATTER, reduce_scatter)

typedef enum {
#define RCMSG_COLL_ENUM(id, name) RCMSG_COLL_##id,
    RCMSG_COLL_LIST(RCMSG_COLL_ENUM)
#undef RCMSG_COLL_ENUM
        RCMSG_COLL_COUNT
} rcmsg_coll_t;

/*
 * One call's arguments, RCMSG_IN_PLACE already resolved (coll.c):
 *   bcast           rbuf: the buffer (count elements)
 *   reduce          sbuf: input (may equal rbuf); rbuf: result, at the root only
 *   allreduce       sbuf: input (may equal rbuf); rbuf: result
 *   allgather       sbuf: own block (may lie inside rbuf); rbuf: size blocks
 *   alltoall        sbuf: size blocks; rbuf: size blocks (never overlapping)
 *   gather          sbuf: own block (may lie inside the root's rbuf); rbuf: size blocks (root)
 *   scatter         sbuf: size blocks (root); rbuf: own block (may lie inside the root's sbuf)
 *   reduce_scatter  sbuf: size blocks (may equal rbuf); rbuf: own block of the result
 * count is in elements: per block where the buffers hold size blocks. The v-variants,
 * reduce_scatter (v), scan and exscan: see coll_v.c.
 *
 * An algorithm is a builder (coll_sched.h): it records its steps into sched with the helpers
 * below and returns, stopping at the first error a helper returns. With a schedule the helpers
 * only record (an error: it could not be built, out of memory); for a blocking call (sched
 * NULL) they run each step at once and return its failure. Either way a builder touches no
 * data buffer itself, only its own bookkeeping in scratch.
 */
typedef struct rcmsg_coll_args rcmsg_coll_args_t;
typedef rcmsg_status_t (*rcmsg_coll_fn_t)(const rcmsg_coll_args_t *a);

struct rcmsg_coll_args { /* (coll.c: coll_prep sets every field one by one, coll_run tag, alg) */
    rcmsg_comm_t comm;
    int rank;
    int size;
    int root;
    const void *sbuf;
    void *rbuf;
    size_t count;
    size_t esize; /* bytes per element */
    rcmsg_datatype_t dtype;
    rcmsg_op_t op;
    int tag; /* the collective's tag in the collective space */
    rcmsg_coll_t coll;
    rcmsg_coll_sched_t *sched; /* what the algorithm builds */
    /* v-variants: counts and displacements in elements (NULL where the call takes none) */
    const size_t *scounts, *sdispls, *rcounts, *rdispls;
    rcmsg_coll_fn_t alg; /* the algorithm chosen (coll.c) */
    /* Added to every peer the algorithm names: 0, or where rank 0 of the group it runs over
     * (rank, size) lies in comm (an intercommunicator's group within the union: coll_inter.c) */
    int peer_off;
    /* neighbor_alltoallv only (coll_neighbor.c sets it; coll_prep leaves it unset) */
    const struct rcmsg_coll_nbr *nbr;
    /* a blocking call's first message of the wrong size (coll.c's coll_run_blocking points it
     * at its own): the call runs on to its end and returns it, as a schedule does (its
     * `mismatch`); NULL: the phase returns it at once */
    rcmsg_status_t *mismatch;
};

/* A neighborhood exchange's lists (coll_neighbor.c): receives from srcs[j], sends to dsts[i];
 * a->rcounts, rdispls (nsrc entries) and scounts, sdispls (ndst entries) go with them. */
typedef struct rcmsg_coll_nbr {
    int nsrc, ndst;
    const int *srcs, *dsts;
} rcmsg_coll_nbr_t;

/* ---- building a schedule (coll_sched.c) ---- */

/* Records a copy step (rcmsg_coll_copy while a schedule is built). */
rcmsg_status_t rcmsg_coll_copy_add(const rcmsg_coll_args_t *a, void *dst, const void *src,
                                   size_t len);
/* A copy (memmove) of len bytes, made in order with the other steps; none when dst is src.
 * Inline: a blocking call (a->sched NULL) makes it at once. */
static inline rcmsg_status_t rcmsg_coll_copy(const rcmsg_coll_args_t *a, void *dst, const void *src,
                                             size_t len)
{
    if (len == 0 || dst == src) {
        return RCMSG_OK;
    }
    if (a->sched == NULL) {
        memmove(dst, src, len);
        return RCMSG_OK;
    }
    return rcmsg_coll_copy_add(a, dst, src, len);
}
/* The end of a phase: what follows starts once its messages have completed. */
rcmsg_status_t rcmsg_coll_fence(const rcmsg_coll_args_t *a);
/* Appends a step (out of memory: the schedule's error, sticky). Inline: every message takes one. */
rcmsg_status_t rcmsg_coll_sched_grow(const rcmsg_coll_args_t *a, const rcmsg_coll_step_t *step);
static inline rcmsg_status_t rcmsg_coll_sched_add(const rcmsg_coll_args_t *a,
                                                  const rcmsg_coll_step_t *step)
{
    rcmsg_coll_sched_t *s = a->sched;

    if (__builtin_expect(s->nsteps == s->cap, 0)) {
        return rcmsg_coll_sched_grow(a, step);
    }
    s->steps[s->nsteps++] = *step;
    return RCMSG_OK;
}

/* A schedule for a's call built in arena ar (a->sched becomes s). */
void rcmsg_coll_sched_init(rcmsg_coll_sched_t *s, rcmsg_coll_args_t *a, rcmsg_coll_arena_t *ar);
/* A nonblocking schedule in memory of its own (a->sched becomes it); NULL without memory. */
rcmsg_coll_sched_t *rcmsg_coll_sched_new(rcmsg_coll_args_t *a);
/* Starts a built one as the request *req_p (it drops s on failure). */
rcmsg_status_t rcmsg_coll_sched_start(rcmsg_coll_sched_t *s, rcmsg_request_t *req_p);
/* Frees one that is not started. */
void rcmsg_coll_sched_drop(rcmsg_coll_sched_t *s);
/* Advances the active nonblocking schedules (the progress hook); what it advanced. */
int rcmsg_coll_sched_progress(void);

/* Runs a's call with build (its tag taken here): blocking when req_p is NULL (each step as
 * build records it), else started as the request *req_p (coll.c). */
rcmsg_status_t rcmsg_coll_run_with(rcmsg_coll_args_t *a, rcmsg_coll_fn_t build,
                                   rcmsg_request_t *req_p);

/* ---- intercommunicators (coll_inter.c) ---- */

/* A collective's arguments as the public call got them (coll: an rcmsg_coll_t or a v-variant's
 * id), its communicator an intercommunicator (coll.c checked the communicator, datatype,
 * count and req_p). */
typedef struct {
    int coll;
    rcmsg_comm_t comm;
    const void *sbuf;
    void *rbuf;
    size_t count;
    rcmsg_datatype_t dtype;
    rcmsg_op_t op;
    int root;
    const size_t *scounts, *sdispls, *rcounts, *rdispls;
} rcmsg_coll_inter_call_t;
/* The call over the intercommunicator: blocking (req_p NULL) or started as *req_p. */
rcmsg_status_t rcmsg_coll_inter(const rcmsg_coll_inter_call_t *c, rcmsg_request_t *req_p);

/* ---- user datatypes and operations (coll_user.c) ---- */

/* Bytes of an element of a basic or live created datatype; 0 for any other value. */
size_t rcmsg_coll_type_size(rcmsg_datatype_t dtype);
bool rcmsg_coll_op_user(rcmsg_op_t op);     /* a live user operation */
bool rcmsg_coll_op_commutes(rcmsg_op_t op); /* the predefined ones all do */
/* Whether op applies to dtype; logs why not, naming rcmsg_<the collective coll>. */
rcmsg_status_t rcmsg_coll_op_check(int coll, rcmsg_op_t op, rcmsg_datatype_t dtype);
/* out = x op y, count elements (out may be x or y; a non-commutative user op: not x alone). */
rcmsg_status_t rcmsg_coll_apply(int coll, rcmsg_op_t op, rcmsg_datatype_t dtype, const void *x,
                                const void *y, void *out, size_t count);
/* A nonblocking collective's hold on its op and datatype (none for predefined ones). */
void rcmsg_coll_user_ref(rcmsg_op_t op, rcmsg_datatype_t dtype);
void rcmsg_coll_user_unref(rcmsg_op_t op, rcmsg_datatype_t dtype);

/* ---- helpers (coll_util.c) ---- */

/* One message of several posted together: buf (read for a send), len bytes, to or from peer. */
typedef struct {
    void *buf;
    size_t len;
    int peer;
    bool recv;
} rcmsg_coll_msg_t;

/* One phase of n messages (these helpers record steps into a->sched; the engine posts them at
 * once, the receives first, and waits for all before the next phase): a rank's children in a
 * tree then move their data at the same time, not one after another. A message received of
 * another length is an error naming the sender (RCMSG_ERR_INVALID_PARAM), returned when the
 * whole call has run (a->mismatch, a schedule's `mismatch`): the call runs on. */
rcmsg_status_t rcmsg_coll_post_all(const rcmsg_coll_args_t *a, int n, const rcmsg_coll_msg_t *m);

/* A copy of the caller's own data (a scatter root's block into its output): len bytes from src
 * to dst, made while the messages posted with it are under way (their readers work on other
 * CPUs meanwhile); before the posting when src lies in a receive's buffer, after the wait
 * when dst lies in a message's buffer. None when dst is src. */
typedef struct {
    void *dst;
    const void *src;
    size_t len;
} rcmsg_coll_copy_t;

/* rcmsg_coll_post_all, and copy (NULL: none) made between the posting and the wait. */
rcmsg_status_t rcmsg_coll_post_all_copy(const rcmsg_coll_args_t *a, int n,
                                        const rcmsg_coll_msg_t *m, const rcmsg_coll_copy_t *copy);
/* (coll_sched.c) A blocking call's phase, run at once (a->sched NULL): the n messages of m
 * posted, the receives first, during (NULL: none) copied, every message waited for, then after
 * (NULL: none) copied; the first failure (logged, naming the peer), what was posted completed
 * or taken back. */
rcmsg_status_t rcmsg_coll_phase_now(const rcmsg_coll_args_t *a, int n, const rcmsg_coll_msg_t *m,
                                    const rcmsg_coll_copy_t *during,
                                    const rcmsg_coll_copy_t *after);

/* The root's part of a linear gather (recv: len bytes from each other rank into buf + rank x
 * stride), scatter (!recv: to each other rank from buf + rank x stride) or bcast (!recv, stride
 * 0): every message posted at once, then copy made (NULL: none), then the messages waited
 * for. A message of another length is an error naming the peer (the call runs on: a->mismatch). */
rcmsg_status_t rcmsg_coll_linear_root(const rcmsg_coll_args_t *a, bool recv, char *buf, size_t len,
                                      size_t stride, const rcmsg_coll_copy_t *copy);

/* Sends slen bytes to dst and receives exactly rlen bytes from src, at once; a rank of -1
 * skips that half. A message of another length is an error naming the peer (the call runs on:
 * a->mismatch). */
rcmsg_status_t rcmsg_coll_sendrecv(const rcmsg_coll_args_t *a, const void *sbuf, size_t slen,
                                   int dst, void *rbuf, size_t rlen, int src);
rcmsg_status_t rcmsg_coll_send(const rcmsg_coll_args_t *a, const void *buf, size_t len, int dst);
rcmsg_status_t rcmsg_coll_recv(const rcmsg_coll_args_t *a, void *buf, size_t len, int src);

/*
 * Scratch memory of the call (coll_scratch.c; the only allocation in the collectives): at
 * least bytes (0 included), 16-byte aligned, contents undefined, living until the call ends
 * (a blocking one: rcmsg_coll_scratch_end; a nonblocking one: the schedule);
 * NULL, logged, only when out of memory.
 */
void *rcmsg_coll_scratch_get(const rcmsg_coll_args_t *a, size_t bytes);

/* Records a reduction step (rcmsg_coll_reduce_local3 while a schedule is built). */
rcmsg_status_t rcmsg_coll_reduce_add(const rcmsg_coll_args_t *a, const void *x, const void *y,
                                     void *out, size_t count);

/* out[i] = x[i] op y[i] (out may be x or y), recorded as a step (its errors when it runs);
 * a blocking call (a->sched NULL) makes it at once: its error, logged. */
static inline rcmsg_status_t rcmsg_coll_reduce_local3(const rcmsg_coll_args_t *a, const void *x,
                                                      const void *y, void *out, size_t count)
{
    if (count == 0) {
        return RCMSG_OK;
    }
    if (a->sched == NULL) {
        return rcmsg_coll_apply(a->coll, a->op, a->dtype, x, y, out, count);
    }
    return rcmsg_coll_reduce_add(a, x, y, out, count);
}

/* inout[i] = in[i] op inout[i] for i < count, as rcmsg_coll_reduce_local3. */
static inline rcmsg_status_t rcmsg_coll_reduce_local(const rcmsg_coll_args_t *a, const void *in,
                                                     void *inout, size_t count)
{
    return rcmsg_coll_reduce_local3(a, in, inout, inout, count);
}

/* The largest power of two <= n (n >= 1). */
int rcmsg_coll_pof2_floor(int n);

/* Element offset of block i when count elements are split into n near-equal blocks (the
 * first count % n blocks one larger); i == n gives count. */
size_t rcmsg_coll_block_off(size_t count, int n, int i);

/*
 * Folding a non-power-of-two group onto pof2 = rcmsg_coll_pof2_floor(size) "new" ranks:
 * with rem = size - pof2, ranks 2i and 2i+1 (i < rem) pair up as new rank i (the odd one
 * takes part, the even one waits), and rank r >= 2 rem becomes new rank r - rem. New rank i
 * thus stands for the real ranks [fold_first(i), fold_first(i + 1)), contiguous.
 */
int rcmsg_coll_fold_newrank(int rank, int rem);     /* -1 for a waiting (even) rank */
int rcmsg_coll_fold_realrank(int newrank, int rem); /* the rank that takes part */
int rcmsg_coll_fold_first(int newrank, int rem);

/* The fold's first step: each waiting rank sends its count elements of buf to its partner,
 * which reduces them into its own buf (tmp: count elements of scratch). */
rcmsg_status_t rcmsg_coll_fold_in(const rcmsg_coll_args_t *a, int rem, void *buf, void *tmp,
                                  size_t count);
/* The fold's last step: each partner sends bytes of sbuf to its waiting rank's rbuf. */
rcmsg_status_t rcmsg_coll_fold_out(const rcmsg_coll_args_t *a, int rem, const void *sbuf,
                                   void *rbuf, size_t bytes);

/*
 * Where a reduction over the new ranks of a fold reads this rank's input from: sbuf itself
 * when the rank takes part from the first step (its first exchange then sends straight from
 * sbuf and its first reduction writes buf: no copy, and buf is not written while a partner
 * may still be reading it from the previous call); otherwise (a folded rank, whose partner
 * reduces into buf, or a single rank) buf, after copying bytes of sbuf into it.
 */
const void *rcmsg_coll_local_input(const rcmsg_coll_args_t *a, int pof2, int rem, void *buf,
                                   size_t bytes);

/*
 * Reduce-scatter by recursive halving among the pof2 new ranks of a fold (the waiting ranks
 * must already have handed their input to their partners). src holds the local contribution
 * (the whole vector; from rcmsg_coll_local_input, so buf itself when pof2 is 1); buf gets
 * the results; off[0..pof2] are the element offsets of the new ranks' blocks. On return, new
 * rank i's block of buf holds the reduction over all ranks; the rest of buf is scratch. tmp
 * holds at least half of the largest range exchanged (count elements is always enough).
 */
rcmsg_status_t rcmsg_coll_rs_halving(const rcmsg_coll_args_t *a, int newrank, int pof2, int rem,
                                     const void *src, void *buf, void *tmp, const size_t *off);

/* The inverse: allgather by recursive doubling of the new ranks' blocks of buf. first, when
 * not NULL, holds this rank's block (sbuf): the first step sends it from there and then
 * copies it into its place in buf. */
rcmsg_status_t rcmsg_coll_ag_doubling(const rcmsg_coll_args_t *a, int newrank, int pof2, int rem,
                                      const void *first, void *buf, const size_t *off);

/*
 * Binomial gather of contiguous byte ranges to a root, in relative-rank order: relative rank
 * v = (rank - root) mod n owns bytes [off[v], off[v+1]) of the whole (relative) layout, and
 * its buf holds the bytes [off[v], off[v + subtree]) of it (the root's: all). On return the
 * root's buf holds every range. ranks[v] maps a relative rank to a rank of a->comm.
 */
rcmsg_status_t rcmsg_coll_gather_rel(const rcmsg_coll_args_t *a, int v, int n, const int *ranks,
                                     void *buf, const size_t *off);
/* Relative ranks in v's subtree, v included: v's buf spans [off[v], off[v + subtree]). */
int rcmsg_coll_subtree(int v, int n);
/* The layout of a gather or scatter of one block per rank, relative to a->root: off[j] =
 * j * block, ranks[j] = (j + root) mod size; then scratch bytes (16-byte aligned), all in
 * one buffer of scratch, *off_p, living until the call ends. */
rcmsg_status_t rcmsg_coll_rel_layout(const rcmsg_coll_args_t *a, size_t scratch, size_t **off_p,
                                     int **ranks_p, char **scratch_p);
/* Binomial scatter, the reverse: the root's buf holds every range on entry. copy (NULL: none)
 * is made once the sends to the children are posted. */
rcmsg_status_t rcmsg_coll_scatter_rel(const rcmsg_coll_args_t *a, int v, int n, const int *ranks,
                                      void *buf, const size_t *off, const rcmsg_coll_copy_t *copy);

/* ---- the algorithms, one file each ---- */
rcmsg_status_t rcmsg_coll_barrier_dissemination(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_barrier_linear(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_bcast_binomial(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_bcast_linear(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_bcast_scatter_allgather(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_reduce_binomial(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_reduce_rsg(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_reduce_linear(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_allreduce_recursive_doubling(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_allreduce_rabenseifner(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_allreduce_ring(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_allgather_recursive_doubling(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_allgather_bruck(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_allgather_ring(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_alltoall_bruck(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_alltoall_pairwise(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_gather_binomial(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_gather_linear(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_scatter_binomial(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_scatter_linear(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_reduce_scatter_recursive_halving(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_reduce_scatter_ring(const rcmsg_coll_args_t *a);
/* rank-ordered, for any operation (the non-commutative ones): coll_reduce_ordered.c */
rcmsg_status_t rcmsg_coll_reduce_ordered(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_allreduce_reduce_bcast(const rcmsg_coll_args_t *a); /* and by name */
rcmsg_status_t rcmsg_coll_reduce_scatter_block_ordered(const rcmsg_coll_args_t *a);
/* the v-variants and scans (coll_v.c) */
rcmsg_status_t rcmsg_coll_gatherv_linear(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_scatterv_linear(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_allgatherv_ring(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_alltoallv_pairwise(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_reduce_scatter_v(const rcmsg_coll_args_t *a);
rcmsg_status_t rcmsg_coll_scan_recursive_doubling(const rcmsg_coll_args_t *a);
/* the neighborhood exchange (coll_neighbor.c) */
rcmsg_status_t rcmsg_coll_neighbor_alltoallv(const rcmsg_coll_args_t *a);

/* ---- argument agreement across ranks (coll_check.c), RCMSG_COLL_CHECK ---- */

/* The calls the check tells apart: the collectives (rcmsg_coll_t), then these. */
enum { RCMSG_COLL_CALL_DUP = RCMSG_COLL_COUNT, RCMSG_COLL_CALL_SPLIT, RCMSG_COLL_CALL_COUNT };
/* The collectives with one algorithm (no RCMSG_COLL_<ID>_ALGORITHM), after those. */
enum {
    RCMSG_COLL_GATHERV = RCMSG_COLL_CALL_COUNT,
    RCMSG_COLL_SCATTERV,
    RCMSG_COLL_ALLGATHERV,
    RCMSG_COLL_ALLTOALLV,
    RCMSG_COLL_REDUCE_SCATTER_V,
    RCMSG_COLL_SCAN,
    RCMSG_COLL_EXSCAN,
    RCMSG_COLL_NEIGHBOR_ALLTOALLV,
    RCMSG_COLL_ALL_COUNT
};

/* A call's tag in the collective space: (the communicator's collective sequence number mod
 * 2^24) << 4 | the collective (mod 15), or RCMSG_COLL_TAG_CHECK for the check's own exchange. A
 * message left over from a failed call can therefore never match a later one; the tags stay below
 * the pml's internal ones. */
#define RCMSG_COLL_TAG(seq, id)                                                                    \
    ((int)(((seq)&0xffffffu) << 4) |                                                               \
     ((int)(id) < RCMSG_COLL_TAG_CHECK ? (int)(id) : (int)(id)-RCMSG_COLL_TAG_CHECK))
#define RCMSG_COLL_TAG_CHECK 15

/*
 * What one rank passes, as the ranks exchange it (fixed size, so that a count that differs
 * cannot make the exchange itself wait): the fields a call does not take are ignored.
 */
typedef struct {
    int32_t call;  /* a collective, RCMSG_COLL_CALL_DUP or RCMSG_COLL_CALL_SPLIT */
    int32_t root;  /* bcast, reduce, gather, scatter */
    int32_t dtype; /* every collective but barrier, with count */
    int32_t op;    /* reduce, allreduce, reduce_scatter_block */
    int32_t color; /* split */
    int32_t bad;   /* nonzero: this rank's own argument checks failed (it logged why) */
    uint64_t count;
} rcmsg_coll_check_t;

/*
 * The ranks of comm exchange what each passes (one Bruck allgather of a 32-byte record in the
 * collective space, which takes one collective sequence number whatever the call) and return
 * RCMSG_OK when every rank calls the same with the same arguments and none refused its own.
 * Otherwise every rank logs one line naming the ranks and their values and gets
 * RCMSG_ERR_INVALID_PARAM; nothing else has moved, so comm stays usable. The caller skips it
 * unless rcmsg_coll_check_enabled().
 */
rcmsg_status_t rcmsg_coll_check(rcmsg_comm_t comm, rcmsg_coll_check_t *mine);
/* RCMSG_COLL_CHECK, as read by rcmsg_coll_init (for comm_dup and comm_split). */
bool rcmsg_coll_check_enabled(void);

/* ---- scratch (coll_scratch.c); for rcmsg_coll_init and tests ---- */

/* Sets the pml's hook that frees a communicator's scratch with it. */
void rcmsg_coll_scratch_init(void);
/* The malloc calls made so far for comm's scratch (0 before its first): constant over a
 * steady loop of the same calls. */
unsigned long rcmsg_coll_scratch_allocs(rcmsg_comm_t comm);
/* The bytes of scratch comm holds (its arena): a test's measure. */
size_t rcmsg_coll_scratch_bytes(rcmsg_comm_t comm);
/* A blocking call on comm (comm->coll not NULL: some call took scratch) ends: the scratch it
 * took is given back, kept for the next. */
void rcmsg_coll_scratch_end(rcmsg_comm_t comm);
/* Grows a table (*tab, elements of elem bytes, *cap of them) to hold need; false, logged,
 * without memory (the table is as it was). */
bool rcmsg_coll_table_grow(void **tab, size_t elem, size_t *cap, size_t need);

/* ---- selection (coll.c); for tests and tools ---- */

const char *rcmsg_coll_name(rcmsg_coll_t coll);
/* Reads the RCMSG_COLL_* variables, once, at rcmsg_init (after the configuration is loaded). */
void rcmsg_coll_init(void);

/*
 * An algorithm of coll is a value of its variable's C enum, rcmsg_coll_<id>_alg_t
 * (config_vars.h): RCMSG_COLL_<ID>_ALG_AUTO (0 for every collective), then the algorithms
 * 1..count in the order of the variable's choices, whose names they have.
 */
#define RCMSG_COLL_ALG_AUTO 0
int rcmsg_coll_algorithm_count(rcmsg_coll_t coll);                 /* not counting auto */
const char *rcmsg_coll_algorithm_name(rcmsg_coll_t coll, int alg); /* NULL if none */
/* Overrides RCMSG_COLL_<ID>_ALGORITHM in this process (RCMSG_COLL_ALG_AUTO: back to the
 * variable). The same on every rank, like the variable. */
rcmsg_status_t rcmsg_coll_algorithm_force(rcmsg_coll_t coll, int alg);
/* The algorithm the last call of coll ran (RCMSG_COLL_ALG_AUTO before any). */
int rcmsg_coll_algorithm_last(rcmsg_coll_t coll);

#endif /* RCMSG_COLL_H */
