/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collective entry points: argument checks, RCMSG_IN_PLACE, with RCMSG_COLL_CHECK the
 * agreement of the ranks on the arguments (coll_start, coll_check.c), and the choice of
 * algorithm (RCMSG_COLL_<NAME>_ALGORITHM, or by size and rank count from the thresholds in the
 * configuration table). The choice depends only on arguments every rank passes alike and on
 * the configuration, so every rank makes the same one.
 */
#include "config.h"

#include "coll.h"

#include "base/compiler.h"
#include "base/config_table.h"
#include "base/log.h"
#include "pml/pml.h"
#include "progress/progress.h"
#include "base/mt.h"

#include <stdint.h>
#include <string.h>

#define COLL_MAX_CHOICES 5 /* "auto" and up to 4 algorithms */
/* oversubscribed: linear reduce while its root combines at most this many bytes in all */
#define REDUCE_LINEAR_WORK (4u << 20)
RCMSG_STATIC_ASSERT(RCMSG_COLL_COUNT <= RCMSG_COLL_TAG_CHECK, "the check's tag is no collective's");
RCMSG_STATIC_ASSERT(RCMSG_COLL_ALL_COUNT <= 2 * RCMSG_COLL_TAG_CHECK,
                    "RCMSG_COLL_TAG: one subtraction");

/*
 * Each collective: its RCMSG_COLL_<ID>_ALGORITHM variable and the function of each algorithm,
 * indexed by the variable's C enum (rcmsg_coll_<id>_alg_t, config_vars.h), whose names are the
 * algorithms' names; [RCMSG_COLL_<ID>_ALG_AUTO] stays NULL.
 */
#define COLL(id, text, ...)                                                                        \
    [RCMSG_COLL_##                                                                                 \
        id] = {text, RCMSG_CFG_COLL_##id##_ALGORITHM, RCMSG_COLL_##id##_ALG_COUNT, {__VA_ARGS__}}
#define ALG(id, alg, fn) [RCMSG_COLL_##id##_ALG_##alg] = fn

static const struct {
    const char *name;
    rcmsg_config_id_t var;
    int nchoices; /* "auto" included */
    rcmsg_coll_fn_t fns[COLL_MAX_CHOICES];
} colls[] = {
    COLL(BARRIER, "barrier", ALG(BARRIER, DISSEMINATION, rcmsg_coll_barrier_dissemination),
         ALG(BARRIER, LINEAR, rcmsg_coll_barrier_linear)),
    COLL(BCAST, "bcast", ALG(BCAST, BINOMIAL, rcmsg_coll_bcast_binomial),
         ALG(BCAST, SCATTER_ALLGATHER, rcmsg_coll_bcast_scatter_allgather),
         ALG(BCAST, LINEAR, rcmsg_coll_bcast_linear)),
    COLL(REDUCE, "reduce", ALG(REDUCE, BINOMIAL, rcmsg_coll_reduce_binomial),
         ALG(REDUCE, REDUCE_SCATTER_GATHER, rcmsg_coll_reduce_rsg),
         ALG(REDUCE, LINEAR, rcmsg_coll_reduce_linear)),
    COLL(ALLREDUCE, "allreduce",
         ALG(ALLREDUCE, RECURSIVE_DOUBLING, rcmsg_coll_allreduce_recursive_doubling),
         ALG(ALLREDUCE, RABENSEIFNER, rcmsg_coll_allreduce_rabenseifner),
         ALG(ALLREDUCE, RING, rcmsg_coll_allreduce_ring),
         ALG(ALLREDUCE, REDUCE_BCAST, rcmsg_coll_allreduce_reduce_bcast)),
    COLL(ALLGATHER, "allgather",
         ALG(ALLGATHER, RECURSIVE_DOUBLING, rcmsg_coll_allgather_recursive_doubling),
         ALG(ALLGATHER, BRUCK, rcmsg_coll_allgather_bruck),
         ALG(ALLGATHER, RING, rcmsg_coll_allgather_ring)),
    COLL(ALLTOALL, "alltoall", ALG(ALLTOALL, BRUCK, rcmsg_coll_alltoall_bruck),
         ALG(ALLTOALL, PAIRWISE, rcmsg_coll_alltoall_pairwise)),
    COLL(GATHER, "gather", ALG(GATHER, BINOMIAL, rcmsg_coll_gather_binomial),
         ALG(GATHER, LINEAR, rcmsg_coll_gather_linear)),
    COLL(SCATTER, "scatter", ALG(SCATTER, BINOMIAL, rcmsg_coll_scatter_binomial),
         ALG(SCATTER, LINEAR, rcmsg_coll_scatter_linear)),
    COLL(REDUCE_SCATTER, "reduce_scatter",
         ALG(REDUCE_SCATTER, RECURSIVE_HALVING, rcmsg_coll_reduce_scatter_recursive_halving),
         ALG(REDUCE_SCATTER, RING, rcmsg_coll_reduce_scatter_ring)),
};
RCMSG_ASSERT_COVERS(colls, RCMSG_COLL_COUNT);
#define COLL_FITS(id, text)                                                                        \
    RCMSG_STATIC_ASSERT(RCMSG_COLL_##id##_ALG_COUNT <= COLL_MAX_CHOICES,                           \
                        "colls[].fns must cover every algorithm of " #text);                       \
    RCMSG_STATIC_ASSERT(RCMSG_COLL_##id##_ALG_AUTO == RCMSG_COLL_ALG_AUTO, #text ": auto is 0");
RCMSG_COLL_LIST(COLL_FITS)
#undef COLL_FITS

/* The configuration, read once by rcmsg_coll_init(): the thresholds of the automatic choices,
 * and RCMSG_COLL_CHECK. */
static struct {
    int alg[RCMSG_COLL_COUNT]; /* RCMSG_COLL_<ID>_ALGORITHM */
    size_t bcast_long, reduce_long, allreduce_short, allreduce_long, allgather_long, alltoall_tiny,
        reduce_scatter_long;
    bool check;
} coll_config;

/* What coll_start passes for the root or op of a call that takes none. */
#define NO_ROOT (-1)
#define NO_OP   RCMSG_OP_NULL

static int forced[RCMSG_COLL_COUNT];
static int last[RCMSG_COLL_COUNT];

/* A stand-in for NULL buffers of empty collectives: the algorithms may memcpy 0 bytes. */
static char empty_buf[16];

/* RCMSG_COLL_CHECK's part in comm_dup and comm_split (the pml's hook). */
static rcmsg_status_t coll_comm_check(rcmsg_comm_t comm, bool split, int color, rcmsg_status_t own)
{
    rcmsg_coll_check_t mine = {.call = split ? RCMSG_COLL_CALL_SPLIT : RCMSG_COLL_CALL_DUP,
                               .color = color,
                               .bad = own != RCMSG_OK};
    rcmsg_status_t s = rcmsg_coll_check(comm, &mine);

    return own != RCMSG_OK ? own : s;
}

void rcmsg_coll_init(void)
{
    for (int c = 0; c < RCMSG_COLL_COUNT; c++) {
        coll_config.alg[c] = rcmsg_config_enum(colls[c].var);
    }
    coll_config.bcast_long = rcmsg_config_size(RCMSG_CFG_COLL_BCAST_LONG);
    coll_config.reduce_long = rcmsg_config_size(RCMSG_CFG_COLL_REDUCE_LONG);
    coll_config.allreduce_short = rcmsg_config_size(RCMSG_CFG_COLL_ALLREDUCE_SHORT);
    coll_config.allreduce_long = rcmsg_config_size(RCMSG_CFG_COLL_ALLREDUCE_LONG);
    coll_config.allgather_long = rcmsg_config_size(RCMSG_CFG_COLL_ALLGATHER_LONG);
    coll_config.alltoall_tiny = rcmsg_config_size(RCMSG_CFG_COLL_ALLTOALL_TINY);
    coll_config.reduce_scatter_long = rcmsg_config_size(RCMSG_CFG_COLL_REDUCE_SCATTER_LONG);
    coll_config.check = rcmsg_config_bool(RCMSG_CFG_COLL_CHECK);
    rcmsg_coll_scratch_init();
    rcmsg_pml_set_comm_check(coll_config.check ? coll_comm_check : NULL);
}

bool rcmsg_coll_check_enabled(void)
{
    return coll_config.check;
}

/* The collectives with one algorithm each (coll_v.c), from RCMSG_COLL_GATHERV on. */
static const struct {
    const char *name;
    rcmsg_coll_fn_t fn;
} vcolls[] = {
    {"gatherv", rcmsg_coll_gatherv_linear},
    {"scatterv", rcmsg_coll_scatterv_linear},
    {"allgatherv", rcmsg_coll_allgatherv_ring},
    {"alltoallv", rcmsg_coll_alltoallv_pairwise},
    {"reduce_scatter", rcmsg_coll_reduce_scatter_v},
    {"scan", rcmsg_coll_scan_recursive_doubling},
    {"exscan", rcmsg_coll_scan_recursive_doubling},
    {"neighbor_alltoallv", rcmsg_coll_neighbor_alltoallv},
};
RCMSG_STATIC_ASSERT(RCMSG_ARRAY_SIZE(vcolls) == RCMSG_COLL_ALL_COUNT - RCMSG_COLL_GATHERV,
                    "vcolls covers every collective from RCMSG_COLL_GATHERV");

const char *rcmsg_coll_name(rcmsg_coll_t coll)
{
    if ((unsigned)coll < RCMSG_COLL_COUNT) {
        return colls[coll].name;
    }
    if ((int)coll >= (int)RCMSG_COLL_GATHERV && (int)coll < (int)RCMSG_COLL_ALL_COUNT) {
        return vcolls[(int)coll - (int)RCMSG_COLL_GATHERV].name;
    }
    return "unknown collective";
}

int rcmsg_coll_algorithm_count(rcmsg_coll_t coll)
{
    return (unsigned)coll < RCMSG_COLL_COUNT ? colls[coll].nchoices - 1 : 0;
}

const char *rcmsg_coll_algorithm_name(rcmsg_coll_t coll, int alg)
{
    if ((unsigned)coll >= RCMSG_COLL_COUNT || alg < 0 || alg >= colls[coll].nchoices ||
        (alg != RCMSG_COLL_ALG_AUTO && colls[coll].fns[alg] == NULL)) {
        return NULL;
    }
    return rcmsg_config_enum_name(colls[coll].var, alg);
}

rcmsg_status_t rcmsg_coll_algorithm_force(rcmsg_coll_t coll, int alg)
{
    if ((unsigned)coll >= RCMSG_COLL_COUNT || alg < 0 || alg > rcmsg_coll_algorithm_count(coll)) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    forced[coll] = alg;
    return RCMSG_OK;
}

int rcmsg_coll_algorithm_last(rcmsg_coll_t coll)
{
    return (unsigned)coll < RCMSG_COLL_COUNT ? last[coll] : RCMSG_COLL_ALG_AUTO;
}

static bool is_pof2(int n)
{
    return (n & (n - 1)) == 0;
}

/* The automatic choice: a value of the collective's rcmsg_coll_<id>_alg_t. */
static int coll_choose(const rcmsg_coll_args_t *a)
{
    size_t bytes = a->count * a->esize, all = bytes * (size_t)a->size;

    switch (a->coll) {
    /* scatter+allgather and reduce-scatter+gather move a long vector in more, smaller messages
     * at once: faster on CPUs of their own, slower when ranks share CPUs (4 ranks on 2 cores:
     * 1.2-2.3x binomial's time from 64 KiB to 1 MiB, docs/performance.md) */
    case RCMSG_COLL_BCAST:
        if (rcmsg_progress_oversubscribed()) {
            return a->size <= 8 ? RCMSG_COLL_BCAST_ALG_LINEAR : RCMSG_COLL_BCAST_ALG_BINOMIAL;
        }
        if (bytes >= coll_config.bcast_long && a->size >= 3) {
            return RCMSG_COLL_BCAST_ALG_SCATTER_ALLGATHER;
        }
        return a->size <= 4 ? RCMSG_COLL_BCAST_ALG_LINEAR : RCMSG_COLL_BCAST_ALG_BINOMIAL;
    /* ranks sharing CPUs: linear (one step) took 0.5-0.9x binomial's time at 4 and 8 ranks on
     * 2 cores up to 512 KiB, and 0.76-0.87x at 4 ranks and 1 MiB; the root's ranks - 1
     * reductions cost more from 8 ranks and 1 MiB, and 4 ranks and 4 MiB (level at 2 MiB) */
    case RCMSG_COLL_REDUCE:
        if (rcmsg_progress_oversubscribed()) {
            return a->size <= 8 && bytes * (size_t)(a->size - 1) <= REDUCE_LINEAR_WORK
                       ? RCMSG_COLL_REDUCE_ALG_LINEAR
                       : RCMSG_COLL_REDUCE_ALG_BINOMIAL;
        }
        return bytes >= coll_config.reduce_long && a->size >= 3
                   ? RCMSG_COLL_REDUCE_ALG_REDUCE_SCATTER_GATHER
                   : RCMSG_COLL_REDUCE_ALG_BINOMIAL;
    /* a short one with a user operation, more ranks on the node than CPUs: a reduce and a bcast
     * (2(p-1) messages and p-1 calls of the operation in all) instead of recursive doubling
     * (p log2 p of each), every message a wait for the scheduler there and every call of the
     * operation a callback (docs/performance.md, MPI_Allreduce with a user operation) */
    case RCMSG_COLL_ALLREDUCE:
        if (bytes < coll_config.allreduce_short && a->size > 2 &&
            (unsigned)a->op >= RCMSG_OP_COUNT && rcmsg_progress_oversubscribed()) {
            return RCMSG_COLL_ALLREDUCE_ALG_REDUCE_BCAST;
        }
        if (bytes < coll_config.allreduce_short || a->size < 3) {
            return RCMSG_COLL_ALLREDUCE_ALG_RECURSIVE_DOUBLING;
        }
        return bytes < coll_config.allreduce_long ? RCMSG_COLL_ALLREDUCE_ALG_RABENSEIFNER
                                                  : RCMSG_COLL_ALLREDUCE_ALG_RING;
    case RCMSG_COLL_ALLGATHER:
        if (all >= coll_config.allgather_long) {
            return RCMSG_COLL_ALLGATHER_ALG_RING;
        }
        return is_pof2(a->size) ? RCMSG_COLL_ALLGATHER_ALG_RECURSIVE_DOUBLING
                                : RCMSG_COLL_ALLGATHER_ALG_BRUCK;
    case RCMSG_COLL_ALLTOALL:
        return bytes <= coll_config.alltoall_tiny && a->size >= 4
                   ? RCMSG_COLL_ALLTOALL_ALG_BRUCK
                   : RCMSG_COLL_ALLTOALL_ALG_PAIRWISE;
    case RCMSG_COLL_REDUCE_SCATTER:
        return all < coll_config.reduce_scatter_long
                   ? RCMSG_COLL_REDUCE_SCATTER_ALG_RECURSIVE_HALVING
                   : RCMSG_COLL_REDUCE_SCATTER_ALG_RING;
    /* ranks sharing CPUs: fan-in/fan-out (rank 0 leaves first, every other rank waits for it
     * alone); 4 ranks on 2 cores, a small bcast timed after it 0.2-1.3 us against 8-24 us
     * (docs/performance.md) */
    case RCMSG_COLL_BARRIER:
        return rcmsg_progress_oversubscribed() && a->size <= 8
                   ? RCMSG_COLL_BARRIER_ALG_LINEAR
                   : RCMSG_COLL_BARRIER_ALG_DISSEMINATION;
    /* linear: one step, no copy at any rank; 1.2-2.6x faster than binomial at 4 and 8 ranks on
     * 2 cores at every size (docs/performance.md); a tree's log2(ranks) steps for many ranks */
    case RCMSG_COLL_GATHER:
        return a->size <= 4 || rcmsg_progress_oversubscribed() ? RCMSG_COLL_GATHER_ALG_LINEAR
                                                               : RCMSG_COLL_GATHER_ALG_BINOMIAL;
    case RCMSG_COLL_SCATTER:
        return a->size <= 4 || rcmsg_progress_oversubscribed() ? RCMSG_COLL_SCATTER_ALG_LINEAR
                                                               : RCMSG_COLL_SCATTER_ALG_BINOMIAL;
    case RCMSG_COLL_COUNT:
        break;
    }
    return RCMSG_COLL_ALG_AUTO; /* not reached: coll_prep takes only known collectives */
}

/* The algorithm of a call: forced, the variable's, or chosen; a non-commutative user op takes
 * the rank-ordered one whatever the variable says. Records the choice for the tests. */
static rcmsg_coll_fn_t coll_pick(const rcmsg_coll_args_t *a)
{
    int alg;
    enum { WHY_FORCED, WHY_VAR, WHY_AUTO } why = WHY_FORCED; /* named only when logged */

    if (a->coll >= RCMSG_COLL_COUNT ||
        ((unsigned)a->op >= RCMSG_OP_COUNT && a->op != NO_OP && !rcmsg_coll_op_commutes(a->op))) {
        rcmsg_debug("%s: the rank-ordered algorithm, %zu x %zu bytes, %d ranks, root %d",
                    rcmsg_coll_name(a->coll), a->count, a->esize, a->size, a->root);
        return a->coll == RCMSG_COLL_REDUCE      ? rcmsg_coll_reduce_ordered
               : a->coll == RCMSG_COLL_ALLREDUCE ? rcmsg_coll_allreduce_reduce_bcast
               : a->coll == RCMSG_COLL_REDUCE_SCATTER
                   ? rcmsg_coll_reduce_scatter_block_ordered
                   : vcolls[(int)a->coll - (int)RCMSG_COLL_GATHERV].fn;
    }
    alg = forced[a->coll]; /* (the v-variants, past RCMSG_COLL_COUNT, have none: above) */
    if (alg == RCMSG_COLL_ALG_AUTO) {
        alg = coll_config.alg[a->coll];
        why = WHY_VAR;
    }
    if (alg == RCMSG_COLL_ALG_AUTO) {
        alg = coll_choose(a);
        why = WHY_AUTO;
    }
    last[a->coll] = alg;
    rcmsg_debug("%s: algorithm %s (%s), %zu x %s (%zu bytes), %d ranks, root %d",
                colls[a->coll].name, rcmsg_coll_algorithm_name(a->coll, alg),
                why == WHY_FORCED ? "forced"
                : why == WHY_AUTO ? "auto"
                                  : rcmsg_config_desc(colls[a->coll].var)->name,
                a->count, rcmsg_coll_dtype_name(a->dtype), a->count * a->esize, a->size, a->root);
    return colls[a->coll].fns[alg];
}

/* An in-place alltoall (or the same buffer passed twice, which MPI forbids but costs nothing
 * to allow): the blocks to send would be overwritten as others arrive, so they are copied
 * first into the schedule's memory. */
static rcmsg_status_t alltoall_in_place(const rcmsg_coll_args_t *a)
{
    size_t nb = (size_t)a->size * a->count * a->esize;
    rcmsg_coll_args_t b = *a;
    void *copy = rcmsg_coll_scratch_get(a, nb);

    if (copy == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    b.sbuf = copy;
    return rcmsg_coll_copy(a, copy, a->rbuf, nb) == RCMSG_OK ? b.alg(&b) : RCMSG_ERR_NO_MEMORY;
}

/* Runs a blocking call with build: each step as the builder records it (a->sched NULL), its
 * scratch given back at the end. */
static rcmsg_status_t coll_run_blocking(rcmsg_coll_args_t *a, rcmsg_coll_fn_t build)
{
    rcmsg_status_t mismatch = RCMSG_OK, s;

    a->mismatch = &mismatch;
    s = build(a); /* a->sched NULL (coll_prep): each step runs as recorded */
    a->mismatch = NULL;
    if (a->comm->coll != NULL) { /* scratch taken, by this call or an earlier one */
        rcmsg_coll_scratch_end(a->comm);
    }
    return s != RCMSG_OK ? s : mismatch;
}

/* Builds a nonblocking call's schedule with build and starts it as *req_p (apart from the
 * blocking path, which it would slow). */
static __attribute__((noinline)) rcmsg_status_t
coll_start_nb(rcmsg_coll_args_t *a, rcmsg_coll_fn_t build, rcmsg_request_t *req_p)
{
    rcmsg_coll_sched_t *sched = rcmsg_coll_sched_new(a);
    rcmsg_status_t s;

    if (sched == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    s = build(a);
    if (s == RCMSG_OK && sched->err != RCMSG_OK) {
        s = sched->err;
    }
    if (s != RCMSG_OK) {
        rcmsg_coll_sched_drop(sched);
        return s;
    }
    return rcmsg_coll_sched_start(sched, req_p);
}

rcmsg_status_t rcmsg_coll_run_with(rcmsg_coll_args_t *a, rcmsg_coll_fn_t build,
                                   rcmsg_request_t *req_p)
{
    a->tag = RCMSG_COLL_TAG(a->comm->coll_seq, a->coll);
    a->comm->coll_seq++; /* every rank runs the same calls in the same order */
    return req_p == NULL ? coll_run_blocking(a, build) : coll_start_nb(a, build, req_p);
}

/* Runs the call (req_p NULL: blocking, each step as its builder records it) or starts it as
 * *req_p. */
static rcmsg_status_t coll_run(rcmsg_coll_args_t *a, rcmsg_request_t *req_p)
{
    rcmsg_coll_fn_t build;

    a->alg = coll_pick(a);
    build = a->alg;
    if (a->coll == RCMSG_COLL_ALLTOALL && a->count > 0 &&
        (a->sbuf == RCMSG_IN_PLACE || a->sbuf == a->rbuf)) {
        build = alltoall_in_place;
    }
    return rcmsg_coll_run_with(a, build, req_p);
}

/*
 * Runs a call whose own argument checks (coll_prep and the rest) gave s; with RCMSG_COLL_CHECK,
 * only once every rank agrees on it, and a refusal on one rank fails the call on all (the
 * blocking calls only: a nonblocking one must not wait for the others to start). root and op
 * as passed (ignored where the call takes none). A rank that has no live communicator
 * (a->comm NULL) cannot take part.
 */
static __attribute__((noinline)) rcmsg_status_t
coll_agree(const rcmsg_coll_args_t *a, rcmsg_status_t s, int root, rcmsg_op_t op)
{
    bool v = a->rcounts != NULL || a->scounts != NULL;
    rcmsg_coll_check_t mine = {.call = (int32_t)a->coll,
                               .root = root,
                               .dtype = (int32_t)a->dtype,
                               .op = (int32_t)op,
                               .bad = s != RCMSG_OK,
                               .count = v ? 0 : a->count};
    rcmsg_status_t c = rcmsg_coll_check(a->comm, &mine);

    return s == RCMSG_OK ? c : s;
}

static rcmsg_status_t coll_start(rcmsg_coll_args_t *a, rcmsg_status_t s, int root, rcmsg_op_t op,
                                 rcmsg_request_t *req_p)
{
    if (coll_config.check && a->comm != RCMSG_COMM_NULL && req_p == NULL) {
        s = coll_agree(a, s, root, op);
    }
    return s == RCMSG_OK ? coll_run(a, req_p) : s;
}

/*
 * Checks what every collective takes and fills a (a->comm stays NULL when comm is not a live
 * communicator). blocks: whether the largest buffer holds one count-element block per rank
 * (else one block), for the overflow check. req: the request pointer of a nonblocking call
 * (checked), or &no_req for a blocking one.
 */
static rcmsg_request_t *const no_req = NULL;

/* Whether count elements of esize bytes, times blocks, times 4 (room for the algorithms'
 * offsets), overflow a size_t: without the three divisions of SIZE_MAX / ... (each call). */
static bool coll_too_large(size_t count, size_t esize, size_t blocks)
{
    size_t unit, total;

    return __builtin_mul_overflow(esize, blocks * 4, &unit) ||
           __builtin_mul_overflow(count, unit, &total);
}

static rcmsg_status_t coll_len_check(const rcmsg_coll_args_t *a, size_t len, const char *what);

/* What coll_prep returns for an intercommunicator (its checks passed): the caller hands the
 * call to coll_inter.c. Not an rcmsg_status_t any call returns. */
#define COLL_INTER ((rcmsg_status_t)2)

static rcmsg_status_t coll_prep(int coll, rcmsg_comm_t comm, size_t count, rcmsg_datatype_t dtype,
                                bool blocks, rcmsg_request_t *const *req, rcmsg_coll_args_t *a)
{
    int size = rcmsg_comm_size(comm);
    rcmsg_status_t s;

    a->comm = RCMSG_COMM_NULL; /* the rest is filled below once comm is known to be live */
    if (size < 1 && rcmsg_comm_world() == RCMSG_COMM_NULL) { /* no communicator is live */
        rcmsg_error("rcmsg_%s%s: rcmsg is not initialized", req != &no_req ? "i" : "",
                    rcmsg_coll_name(coll));
        return RCMSG_ERR_NOT_INITIALIZED;
    }
    if (req != &no_req) {
        if (*req == NULL) {
            rcmsg_error("rcmsg_i%s: req_p is NULL", rcmsg_coll_name(coll));
            return RCMSG_ERR_INVALID_PARAM;
        }
        **req = RCMSG_REQUEST_NULL; /* until the call makes one */
    }
    if (size < 1) {
        rcmsg_error("rcmsg_%s: %p is not a live communicator", rcmsg_coll_name(coll), (void *)comm);
        return RCMSG_ERR_INVALID_PARAM;
    }
    /* field by field (a compound literal clears the whole struct first, rep stos); tag and alg
     * are coll_run's */
    a->comm = comm;
    a->rank = comm->rank; /* live: rcmsg_comm_size checked it */
    a->size = size;
    a->root = 0;
    a->sbuf = NULL;
    a->rbuf = NULL;
    a->count = count;
    a->esize = (unsigned)dtype < RCMSG_DATATYPE_COUNT ? rcmsg_coll_dtype_size(dtype)
                                                      : rcmsg_coll_type_size(dtype);
    a->dtype = dtype;
    a->op = NO_OP;
    a->coll = (rcmsg_coll_t)coll;
    a->sched = NULL;
    a->scounts = a->sdispls = a->rcounts = a->rdispls = NULL;
    a->peer_off = 0;
    if (a->esize == 0) {
        rcmsg_error("rcmsg_%s: unknown datatype %d", rcmsg_coll_name(coll), (int)dtype);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (coll_too_large(count, a->esize, blocks ? (size_t)size : 1)) {
        rcmsg_error("rcmsg_%s: count %zu of %s is too large", rcmsg_coll_name(coll), count,
                    rcmsg_coll_dtype_name(dtype));
        return RCMSG_ERR_INVALID_PARAM;
    }
    s = coll_len_check(a, count * a->esize * (blocks ? (size_t)size : 1), "the count");
    return s == RCMSG_OK && __builtin_expect(comm->inter != NULL, 0) ? COLL_INTER : s;
}

/* The algorithms post through the pml's unchecked entries: a buffer of len bytes that no
 * node has is refused here, once per call (what: the argument it comes from). */
static rcmsg_status_t coll_len_check(const rcmsg_coll_args_t *a, size_t len, const char *what)
{
    if (len > rcmsg_pml_max_len()) {
        rcmsg_error("rcmsg_%s: %s gives a buffer of %zu bytes, which no process here can have "
                    "(this node has %zu bytes of memory)",
                    rcmsg_coll_name(a->coll), what, len, rcmsg_pml_max_len());
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_OK;
}

static rcmsg_status_t check_op(const rcmsg_coll_args_t *a, rcmsg_op_t op)
{
    if ((unsigned)op < RCMSG_OP_COUNT && rcmsg_coll_op_valid(op, a->dtype)) {
        return RCMSG_OK; /* the usual case, without a call */
    }
    return rcmsg_coll_op_check(a->coll, op, a->dtype);
}

static rcmsg_status_t check_root(const rcmsg_coll_args_t *a, int root)
{
    if (root < 0 || root >= a->size) {
        rcmsg_error("rcmsg_%s: root %d is not a rank of this %d-rank communicator",
                    rcmsg_coll_name(a->coll), root, a->size);
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_OK;
}

/* NULL is fine for an empty buffer (it becomes empty_buf); RCMSG_IN_PLACE only where allowed. */
static rcmsg_status_t check_buf(const rcmsg_coll_args_t *a, const void **buf, const char *what,
                                bool needed, bool in_place_ok)
{
    if (*buf == RCMSG_IN_PLACE && !in_place_ok) {
        rcmsg_error("rcmsg_%s: RCMSG_IN_PLACE is not allowed as the %s here",
                    rcmsg_coll_name(a->coll), what);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (*buf == NULL && needed && a->count > 0) {
        rcmsg_error("rcmsg_%s: the %s is NULL (count %zu)", rcmsg_coll_name(a->coll), what,
                    a->count);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (*buf == NULL) {
        *buf = empty_buf;
    }
    return RCMSG_OK;
}

static rcmsg_status_t coll_barrier(rcmsg_comm_t comm, rcmsg_request_t *req_p,
                                   rcmsg_request_t *const *req)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s = coll_prep(RCMSG_COLL_BARRIER, comm, 0, RCMSG_UINT8, false, req, &a);

    if (s == COLL_INTER) {
        return rcmsg_coll_inter(
            &(rcmsg_coll_inter_call_t){.coll = RCMSG_COLL_BARRIER, .comm = comm}, req_p);
    }

    return coll_start(&a, s, NO_ROOT, NO_OP, req_p);
}

rcmsg_status_t rcmsg_barrier(rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_barrier(comm, NULL, &no_req);
}

rcmsg_status_t rcmsg_ibarrier(rcmsg_comm_t comm, rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_barrier(comm, req_p, &req_p);
}

static rcmsg_status_t coll_bcast(void *buf, size_t count, rcmsg_datatype_t dtype, int root,
                                 rcmsg_comm_t comm, rcmsg_request_t *req_p,
                                 rcmsg_request_t *const *req)
{
    rcmsg_coll_args_t a;
    const void *b = buf;
    rcmsg_status_t s = coll_prep(RCMSG_COLL_BCAST, comm, count, dtype, false, req, &a);

    if (s == COLL_INTER) {
        return rcmsg_coll_inter(&(rcmsg_coll_inter_call_t){.coll = RCMSG_COLL_BCAST,
                                                           .comm = comm,
                                                           .rbuf = buf,
                                                           .count = count,
                                                           .dtype = dtype,
                                                           .root = root},
                                req_p);
    }
    if (s == RCMSG_OK) {
        s = check_root(&a, root);
    }
    if (s == RCMSG_OK) {
        s = check_buf(&a, &b, "buffer", true, false);
    }
    a.root = root;
    a.rbuf = (void *)b;
    return coll_start(&a, s, root, NO_OP, req_p);
}

rcmsg_status_t rcmsg_bcast(void *buf, size_t count, rcmsg_datatype_t dtype, int root,
                           rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_bcast(buf, count, dtype, root, comm, NULL, &no_req);
}

rcmsg_status_t rcmsg_ibcast(void *buf, size_t count, rcmsg_datatype_t dtype, int root,
                            rcmsg_comm_t comm, rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_bcast(buf, count, dtype, root, comm, req_p, &req_p);
}

/* The checks of a reduction; recvbuf matters at the root only when root >= 0. */
static rcmsg_status_t prep_reduction(int coll, const void **sendbuf, void *recvbuf, size_t count,
                                     rcmsg_datatype_t dtype, rcmsg_op_t op, int root,
                                     rcmsg_comm_t comm, rcmsg_request_t *const *req,
                                     rcmsg_coll_args_t *a)
{
    const void *rb = recvbuf;
    bool has_result;
    rcmsg_status_t s =
        coll_prep(coll, comm, count, dtype, coll == RCMSG_COLL_REDUCE_SCATTER, req, a);

    if (s == RCMSG_OK) {
        s = check_op(a, op);
    }
    if (s == RCMSG_OK && coll == RCMSG_COLL_REDUCE) {
        s = check_root(a, root);
    }
    if (s != RCMSG_OK) {
        return s;
    }
    a->op = op;
    a->root = root < 0 ? 0 : root;
    has_result = coll != RCMSG_COLL_REDUCE || a->rank == root;
    if (!has_result) {
        rb = empty_buf; /* ignored */
    }
    s = check_buf(a, &rb, "receive buffer", has_result, false);
    if (s == RCMSG_OK) {
        s = check_buf(a, sendbuf, "send buffer", true, has_result);
    }
    if (s == RCMSG_OK) {
        a->rbuf = (void *)rb;
        a->sbuf = *sendbuf == RCMSG_IN_PLACE ? rb : *sendbuf;
    }
    return s;
}

static rcmsg_status_t coll_reduction(int coll, const void *sendbuf, void *recvbuf, size_t count,
                                     rcmsg_datatype_t dtype, rcmsg_op_t op, int root,
                                     rcmsg_comm_t comm, rcmsg_request_t *req_p,
                                     rcmsg_request_t *const *req)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s =
        prep_reduction(coll, &sendbuf, recvbuf, count, dtype, op, root, comm, req, &a);

    if (s == COLL_INTER) {
        return rcmsg_coll_inter(&(rcmsg_coll_inter_call_t){.coll = coll,
                                                           .comm = comm,
                                                           .sbuf = sendbuf,
                                                           .rbuf = recvbuf,
                                                           .count = count,
                                                           .dtype = dtype,
                                                           .op = op,
                                                           .root = root},
                                req_p);
    }

    return coll_start(&a, s, root < 0 ? NO_ROOT : root, op, req_p);
}

rcmsg_status_t rcmsg_reduce(const void *sendbuf, void *recvbuf, size_t count,
                            rcmsg_datatype_t dtype, rcmsg_op_t op, int root, rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_reduction(RCMSG_COLL_REDUCE, sendbuf, recvbuf, count, dtype, op, root, comm, NULL,
                          &no_req);
}

rcmsg_status_t rcmsg_ireduce(const void *sendbuf, void *recvbuf, size_t count,
                             rcmsg_datatype_t dtype, rcmsg_op_t op, int root, rcmsg_comm_t comm,
                             rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_reduction(RCMSG_COLL_REDUCE, sendbuf, recvbuf, count, dtype, op, root, comm, req_p,
                          &req_p);
}

rcmsg_status_t rcmsg_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                               rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_reduction(RCMSG_COLL_ALLREDUCE, sendbuf, recvbuf, count, dtype, op, -1, comm, NULL,
                          &no_req);
}

rcmsg_status_t rcmsg_iallreduce(const void *sendbuf, void *recvbuf, size_t count,
                                rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm,
                                rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_reduction(RCMSG_COLL_ALLREDUCE, sendbuf, recvbuf, count, dtype, op, -1, comm, req_p,
                          &req_p);
}

rcmsg_status_t rcmsg_reduce_scatter_block(const void *sendbuf, void *recvbuf, size_t count,
                                          rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_reduction(RCMSG_COLL_REDUCE_SCATTER, sendbuf, recvbuf, count, dtype, op, -1, comm,
                          NULL, &no_req);
}

rcmsg_status_t rcmsg_ireduce_scatter_block(const void *sendbuf, void *recvbuf, size_t count,
                                           rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm,
                                           rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_reduction(RCMSG_COLL_REDUCE_SCATTER, sendbuf, recvbuf, count, dtype, op, -1, comm,
                          req_p, &req_p);
}

rcmsg_status_t rcmsg_scan(const void *sendbuf, void *recvbuf, size_t count, rcmsg_datatype_t dtype,
                          rcmsg_op_t op, rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_reduction(RCMSG_COLL_SCAN, sendbuf, recvbuf, count, dtype, op, -1, comm, NULL,
                          &no_req);
}

rcmsg_status_t rcmsg_iscan(const void *sendbuf, void *recvbuf, size_t count, rcmsg_datatype_t dtype,
                           rcmsg_op_t op, rcmsg_comm_t comm, rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_reduction(RCMSG_COLL_SCAN, sendbuf, recvbuf, count, dtype, op, -1, comm, req_p,
                          &req_p);
}

rcmsg_status_t rcmsg_exscan(const void *sendbuf, void *recvbuf, size_t count,
                            rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_reduction(RCMSG_COLL_EXSCAN, sendbuf, recvbuf, count, dtype, op, -1, comm, NULL,
                          &no_req);
}

rcmsg_status_t rcmsg_iexscan(const void *sendbuf, void *recvbuf, size_t count,
                             rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm,
                             rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_reduction(RCMSG_COLL_EXSCAN, sendbuf, recvbuf, count, dtype, op, -1, comm, req_p,
                          &req_p);
}

/*
 * The checks of the block collectives (allgather, alltoall, gather, scatter). root < 0: no
 * root. The many-block buffer matters at the root only for gather (recvbuf) and scatter
 * (sendbuf). In place, the own block lies inside the many-block buffer.
 */
static rcmsg_status_t prep_blocks(rcmsg_coll_t coll, const void *sendbuf, void *recvbuf,
                                  size_t count, rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                                  rcmsg_request_t *const *req, rcmsg_coll_args_t *a)
{
    const void *rb = recvbuf;
    bool rooted = coll == RCMSG_COLL_GATHER || coll == RCMSG_COLL_SCATTER, at_root;
    rcmsg_status_t s = coll_prep(coll, comm, count, dtype, true, req, a);

    if (s == RCMSG_OK && rooted) {
        s = check_root(a, root);
    }
    if (s != RCMSG_OK) {
        return s;
    }
    a->root = rooted ? root : 0;
    at_root = !rooted || a->rank == root;
    if (coll == RCMSG_COLL_GATHER && !at_root) {
        rb = empty_buf; /* ignored */
    }
    if (coll == RCMSG_COLL_SCATTER && !at_root) {
        sendbuf = empty_buf; /* ignored */
    }
    s = check_buf(a, &rb, "receive buffer", true, coll == RCMSG_COLL_SCATTER && at_root);
    if (s == RCMSG_OK) {
        s = check_buf(a, &sendbuf, "send buffer", true, coll != RCMSG_COLL_SCATTER && at_root);
    }
    if (s != RCMSG_OK) {
        return s;
    }
    a->sbuf = sendbuf;
    a->rbuf = (void *)rb;
    if (sendbuf == RCMSG_IN_PLACE && coll != RCMSG_COLL_ALLTOALL) {
        a->sbuf = (const char *)rb + (size_t)(rooted ? root : a->rank) * count * a->esize;
    }
    if (rb == RCMSG_IN_PLACE) {
        a->rbuf = (char *)sendbuf + (size_t)root * count * a->esize;
    }
    return RCMSG_OK;
}

static rcmsg_status_t coll_blocks(rcmsg_coll_t coll, const void *sendbuf, void *recvbuf,
                                  size_t count, rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                                  rcmsg_request_t *req_p, rcmsg_request_t *const *req)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s = prep_blocks(coll, sendbuf, recvbuf, count, dtype, root, comm, req, &a);

    if (s == COLL_INTER) {
        return rcmsg_coll_inter(&(rcmsg_coll_inter_call_t){.coll = coll,
                                                           .comm = comm,
                                                           .sbuf = sendbuf,
                                                           .rbuf = recvbuf,
                                                           .count = count,
                                                           .dtype = dtype,
                                                           .root = root},
                                req_p);
    }

    return coll_start(&a, s, root, NO_OP, req_p);
}

rcmsg_status_t rcmsg_allgather(const void *sendbuf, void *recvbuf, size_t count,
                               rcmsg_datatype_t dtype, rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_blocks(RCMSG_COLL_ALLGATHER, sendbuf, recvbuf, count, dtype, NO_ROOT, comm, NULL,
                       &no_req);
}

rcmsg_status_t rcmsg_iallgather(const void *sendbuf, void *recvbuf, size_t count,
                                rcmsg_datatype_t dtype, rcmsg_comm_t comm, rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_blocks(RCMSG_COLL_ALLGATHER, sendbuf, recvbuf, count, dtype, NO_ROOT, comm, req_p,
                       &req_p);
}

rcmsg_status_t rcmsg_alltoall(const void *sendbuf, void *recvbuf, size_t count,
                              rcmsg_datatype_t dtype, rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_blocks(RCMSG_COLL_ALLTOALL, sendbuf, recvbuf, count, dtype, NO_ROOT, comm, NULL,
                       &no_req);
}

rcmsg_status_t rcmsg_ialltoall(const void *sendbuf, void *recvbuf, size_t count,
                               rcmsg_datatype_t dtype, rcmsg_comm_t comm, rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_blocks(RCMSG_COLL_ALLTOALL, sendbuf, recvbuf, count, dtype, NO_ROOT, comm, req_p,
                       &req_p);
}

rcmsg_status_t rcmsg_gather(const void *sendbuf, void *recvbuf, size_t count,
                            rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_blocks(RCMSG_COLL_GATHER, sendbuf, recvbuf, count, dtype, root, comm, NULL,
                       &no_req);
}

rcmsg_status_t rcmsg_igather(const void *sendbuf, void *recvbuf, size_t count,
                             rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                             rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_blocks(RCMSG_COLL_GATHER, sendbuf, recvbuf, count, dtype, root, comm, req_p,
                       &req_p);
}

rcmsg_status_t rcmsg_scatter(const void *sendbuf, void *recvbuf, size_t count,
                             rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_blocks(RCMSG_COLL_SCATTER, sendbuf, recvbuf, count, dtype, root, comm, NULL,
                       &no_req);
}

rcmsg_status_t rcmsg_iscatter(const void *sendbuf, void *recvbuf, size_t count,
                              rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                              rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_blocks(RCMSG_COLL_SCATTER, sendbuf, recvbuf, count, dtype, root, comm, req_p,
                       &req_p);
}

/* An array of counts or displacements (n entries) where one is needed: present, and each
 * entry small enough that count x element size, and displacement + count, cannot overflow. */
static rcmsg_status_t check_array(const rcmsg_coll_args_t *a, const size_t *v, const char *what)
{
    size_t lim = SIZE_MAX / a->esize / 4;

    if (lim > rcmsg_pml_max_len() / a->esize) {
        lim = rcmsg_pml_max_len() / a->esize; /* no node has a longer buffer */
    }

    if (v == NULL) {
        rcmsg_error("rcmsg_%s: %s is NULL", rcmsg_coll_name(a->coll), what);
        return RCMSG_ERR_INVALID_PARAM;
    }
    for (int i = 0; i < a->size; i++) {
        if (v[i] > lim) {
            rcmsg_error("rcmsg_%s: %s[%d] = %zu is too large (more than this node's memory)",
                        rcmsg_coll_name(a->coll), what, i, v[i]);
            return RCMSG_ERR_INVALID_PARAM;
        }
    }
    return RCMSG_OK;
}

/* A buffer of a v-variant: NULL only when nothing is read or written in it. */
static rcmsg_status_t check_vbuf(const rcmsg_coll_args_t *a, const void **buf, const char *what,
                                 size_t count, bool in_place_ok)
{
    if (*buf == RCMSG_IN_PLACE && !in_place_ok) {
        rcmsg_error("rcmsg_%s: RCMSG_IN_PLACE is not allowed as the %s here",
                    rcmsg_coll_name(a->coll), what);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (*buf == NULL && count > 0) {
        rcmsg_error("rcmsg_%s: the %s is NULL", rcmsg_coll_name(a->coll), what);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (*buf == NULL) {
        *buf = empty_buf;
    }
    return RCMSG_OK;
}

/* The own count a rank passes must be the one the arrays give it (root or every rank). */
static rcmsg_status_t check_own(const rcmsg_coll_args_t *a, size_t mine, size_t theirs)
{
    if (mine != theirs) {
        rcmsg_error("rcmsg_%s: this rank passes %zu elements for itself, the array %zu",
                    rcmsg_coll_name(a->coll), mine, theirs);
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_OK;
}

/* gatherv (gather) and allgatherv: sendbuf of scount, rcounts and displs at the root (every
 * rank for allgatherv). */
static rcmsg_status_t coll_gatherv(int coll, const void *sendbuf, size_t scount, void *recvbuf,
                                   const size_t rcounts[], const size_t displs[],
                                   rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                                   rcmsg_request_t *req_p, rcmsg_request_t *const *req)
{
    rcmsg_coll_args_t a;
    const void *rb = recvbuf;
    bool at_root;
    rcmsg_status_t s = coll_prep(coll, comm, scount, dtype, false, req, &a);

    if (s == COLL_INTER) {
        return rcmsg_coll_inter(&(rcmsg_coll_inter_call_t){.coll = coll,
                                                           .comm = comm,
                                                           .sbuf = sendbuf,
                                                           .rbuf = recvbuf,
                                                           .count = scount,
                                                           .dtype = dtype,
                                                           .root = root,
                                                           .rcounts = rcounts,
                                                           .rdispls = displs},
                                req_p);
    }

    if (s == RCMSG_OK && coll == RCMSG_COLL_GATHERV) {
        s = check_root(&a, root);
    }
    a.root = coll == RCMSG_COLL_GATHERV ? root : 0;
    at_root = coll != RCMSG_COLL_GATHERV || a.rank == root;
    if (s == RCMSG_OK && at_root) {
        s = check_array(&a, rcounts, "recvcounts");
        s = s == RCMSG_OK ? check_array(&a, displs, "displs") : s;
        s = s == RCMSG_OK ? check_vbuf(&a, &rb, "receive buffer", 1, false) : s;
    }
    if (s == RCMSG_OK) {
        s = check_vbuf(&a, &sendbuf, "send buffer", scount, at_root);
    }
    if (s == RCMSG_OK && at_root && sendbuf == RCMSG_IN_PLACE) {
        sendbuf = (const char *)rb + displs[a.rank] * a.esize;
        a.count = scount = rcounts[a.rank];
    }
    if (s == RCMSG_OK && at_root) {
        s = check_own(&a, scount, rcounts[a.rank]);
    }
    a.sbuf = sendbuf;
    a.rbuf = (void *)rb;
    a.rcounts = rcounts;
    a.rdispls = displs;
    return coll_start(&a, s, coll == RCMSG_COLL_GATHERV ? root : NO_ROOT, NO_OP, req_p);
}

rcmsg_status_t rcmsg_gatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                             const size_t recvcounts[], const size_t displs[],
                             rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_gatherv(RCMSG_COLL_GATHERV, sendbuf, sendcount, recvbuf, recvcounts, displs, dtype,
                        root, comm, NULL, &no_req);
}

rcmsg_status_t rcmsg_igatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                              const size_t recvcounts[], const size_t displs[],
                              rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                              rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_gatherv(RCMSG_COLL_GATHERV, sendbuf, sendcount, recvbuf, recvcounts, displs, dtype,
                        root, comm, req_p, &req_p);
}

rcmsg_status_t rcmsg_allgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                                const size_t recvcounts[], const size_t displs[],
                                rcmsg_datatype_t dtype, rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_gatherv(RCMSG_COLL_ALLGATHERV, sendbuf, sendcount, recvbuf, recvcounts, displs,
                        dtype, NO_ROOT, comm, NULL, &no_req);
}

rcmsg_status_t rcmsg_iallgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                                 const size_t recvcounts[], const size_t displs[],
                                 rcmsg_datatype_t dtype, rcmsg_comm_t comm, rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_gatherv(RCMSG_COLL_ALLGATHERV, sendbuf, sendcount, recvbuf, recvcounts, displs,
                        dtype, NO_ROOT, comm, req_p, &req_p);
}

static rcmsg_status_t coll_scatterv(const void *sendbuf, const size_t scounts[],
                                    const size_t displs[], void *recvbuf, size_t rcount,
                                    rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                                    rcmsg_request_t *req_p, rcmsg_request_t *const *req)
{
    rcmsg_coll_args_t a;
    const void *rb = recvbuf;
    rcmsg_status_t s = coll_prep(RCMSG_COLL_SCATTERV, comm, rcount, dtype, false, req, &a);
    bool at_root = false;

    if (s == COLL_INTER) {
        return rcmsg_coll_inter(&(rcmsg_coll_inter_call_t){.coll = RCMSG_COLL_SCATTERV,
                                                           .comm = comm,
                                                           .sbuf = sendbuf,
                                                           .rbuf = recvbuf,
                                                           .count = rcount,
                                                           .dtype = dtype,
                                                           .root = root,
                                                           .scounts = scounts,
                                                           .sdispls = displs},
                                req_p);
    }

    if (s == RCMSG_OK) {
        s = check_root(&a, root);
        at_root = a.rank == root;
    }
    a.root = root;
    if (s == RCMSG_OK && at_root) {
        s = check_array(&a, scounts, "sendcounts");
        s = s == RCMSG_OK ? check_array(&a, displs, "displs") : s;
        s = s == RCMSG_OK ? check_vbuf(&a, &sendbuf, "send buffer", 1, false) : s;
    }
    if (s == RCMSG_OK) {
        s = check_vbuf(&a, &rb, "receive buffer", rcount, at_root);
    }
    if (s == RCMSG_OK && at_root && rb == RCMSG_IN_PLACE) {
        rb = (const char *)sendbuf + displs[root] * a.esize;
        a.count = rcount = scounts[root];
    }
    if (s == RCMSG_OK && at_root) {
        s = check_own(&a, rcount, scounts[root]);
    }
    a.sbuf = sendbuf;
    a.rbuf = (void *)rb;
    a.scounts = scounts;
    a.sdispls = displs;
    return coll_start(&a, s, root, NO_OP, req_p);
}

rcmsg_status_t rcmsg_scatterv(const void *sendbuf, const size_t sendcounts[], const size_t displs[],
                              void *recvbuf, size_t recvcount, rcmsg_datatype_t dtype, int root,
                              rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_scatterv(sendbuf, sendcounts, displs, recvbuf, recvcount, dtype, root, comm, NULL,
                         &no_req);
}

rcmsg_status_t rcmsg_iscatterv(const void *sendbuf, const size_t sendcounts[],
                               const size_t displs[], void *recvbuf, size_t recvcount,
                               rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                               rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_scatterv(sendbuf, sendcounts, displs, recvbuf, recvcount, dtype, root, comm, req_p,
                         &req_p);
}

static rcmsg_status_t coll_alltoallv(const void *sendbuf, const size_t scounts[],
                                     const size_t sdispls[], void *recvbuf, const size_t rcounts[],
                                     const size_t rdispls[], rcmsg_datatype_t dtype,
                                     rcmsg_comm_t comm, rcmsg_request_t *req_p,
                                     rcmsg_request_t *const *req)
{
    rcmsg_coll_args_t a;
    const void *rb = recvbuf;
    bool in_place = sendbuf == RCMSG_IN_PLACE;
    rcmsg_status_t s = coll_prep(RCMSG_COLL_ALLTOALLV, comm, 0, dtype, false, req, &a);

    if (s == COLL_INTER) {
        return rcmsg_coll_inter(&(rcmsg_coll_inter_call_t){.coll = RCMSG_COLL_ALLTOALLV,
                                                           .comm = comm,
                                                           .sbuf = sendbuf,
                                                           .rbuf = recvbuf,
                                                           .dtype = dtype,
                                                           .scounts = scounts,
                                                           .sdispls = sdispls,
                                                           .rcounts = rcounts,
                                                           .rdispls = rdispls},
                                req_p);
    }

    if (s == RCMSG_OK) {
        s = check_array(&a, rcounts, "recvcounts");
        s = s == RCMSG_OK ? check_array(&a, rdispls, "rdispls") : s;
    }
    if (s == RCMSG_OK && !in_place) {
        s = check_array(&a, scounts, "sendcounts");
        s = s == RCMSG_OK ? check_array(&a, sdispls, "sdispls") : s;
        s = s == RCMSG_OK ? check_own(&a, scounts[a.rank], rcounts[a.rank]) : s;
        s = s == RCMSG_OK ? check_vbuf(&a, &sendbuf, "send buffer", 1, false) : s;
    }
    if (s == RCMSG_OK) {
        s = check_vbuf(&a, &rb, "receive buffer", 1, false);
    }
    a.sbuf = sendbuf;
    a.rbuf = (void *)rb;
    a.scounts = in_place ? rcounts : scounts;
    a.sdispls = in_place ? rdispls : sdispls;
    a.rcounts = rcounts;
    a.rdispls = rdispls;
    return coll_start(&a, s, NO_ROOT, NO_OP, req_p);
}

rcmsg_status_t rcmsg_alltoallv(const void *sendbuf, const size_t sendcounts[],
                               const size_t sdispls[], void *recvbuf, const size_t recvcounts[],
                               const size_t rdispls[], rcmsg_datatype_t dtype, rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_alltoallv(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, dtype, comm,
                          NULL, &no_req);
}

rcmsg_status_t rcmsg_ialltoallv(const void *sendbuf, const size_t sendcounts[],
                                const size_t sdispls[], void *recvbuf, const size_t recvcounts[],
                                const size_t rdispls[], rcmsg_datatype_t dtype, rcmsg_comm_t comm,
                                rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_alltoallv(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, dtype, comm,
                          req_p, &req_p);
}

static rcmsg_status_t coll_reduce_scatter(const void *sendbuf, void *recvbuf,
                                          const size_t rcounts[], rcmsg_datatype_t dtype,
                                          rcmsg_op_t op, rcmsg_comm_t comm, rcmsg_request_t *req_p,
                                          rcmsg_request_t *const *req)
{
    rcmsg_coll_args_t a;
    const void *rb = recvbuf;
    size_t total = 0;
    rcmsg_status_t s = coll_prep(RCMSG_COLL_REDUCE_SCATTER_V, comm, 0, dtype, false, req, &a);

    if (s == COLL_INTER) {
        return rcmsg_coll_inter(&(rcmsg_coll_inter_call_t){.coll = RCMSG_COLL_REDUCE_SCATTER_V,
                                                           .comm = comm,
                                                           .sbuf = sendbuf,
                                                           .rbuf = recvbuf,
                                                           .dtype = dtype,
                                                           .op = op,
                                                           .rcounts = rcounts},
                                req_p);
    }

    s = s == RCMSG_OK ? check_op(&a, op) : s;
    s = s == RCMSG_OK ? check_array(&a, rcounts, "recvcounts") : s;
    for (int i = 0; s == RCMSG_OK && i < a.size; i++) {
        total += rcounts[i];
        if (total > SIZE_MAX / a.esize / 4 || total > rcmsg_pml_max_len() / a.esize) {
            rcmsg_error("rcmsg_reduce_scatter: the counts add up to too many elements (more than "
                        "this node's memory)");
            s = RCMSG_ERR_INVALID_PARAM;
        }
    }
    s = s == RCMSG_OK ? check_vbuf(&a, &rb, "receive buffer", total, false) : s;
    s = s == RCMSG_OK ? check_vbuf(&a, &sendbuf, "send buffer", total, true) : s;
    a.op = op;
    a.count = total;
    a.rbuf = (void *)rb;
    a.sbuf = sendbuf == RCMSG_IN_PLACE ? rb : sendbuf;
    a.rcounts = rcounts;
    return coll_start(&a, s, NO_ROOT, op, req_p);
}

rcmsg_status_t rcmsg_reduce_scatter(const void *sendbuf, void *recvbuf, const size_t recvcounts[],
                                    rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return coll_reduce_scatter(sendbuf, recvbuf, recvcounts, dtype, op, comm, NULL, &no_req);
}

rcmsg_status_t rcmsg_ireduce_scatter(const void *sendbuf, void *recvbuf, const size_t recvcounts[],
                                     rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm,
                                     rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return coll_reduce_scatter(sendbuf, recvbuf, recvcounts, dtype, op, comm, req_p, &req_p);
}

size_t rcmsg_datatype_size(rcmsg_datatype_t dtype)
{
    return rcmsg_coll_type_size(dtype);
}
