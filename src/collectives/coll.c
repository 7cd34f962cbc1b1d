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

#include <stdint.h>
#include <string.h>

#define COLL_MAX_CHOICES 4 /* "auto" and up to 3 algorithms */
/* oversubscribed: linear reduce while its root combines at most this many bytes in all */
#define REDUCE_LINEAR_WORK (4u << 20)
RCMSG_STATIC_ASSERT(RCMSG_COLL_COUNT <= RCMSG_COLL_TAG_CHECK, "the check's tag is no collective's");

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
         ALG(ALLREDUCE, RING, rcmsg_coll_allreduce_ring)),
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
#define NO_OP   RCMSG_OP_COUNT

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

const char *rcmsg_coll_name(rcmsg_coll_t coll)
{
    return (unsigned)coll < RCMSG_COLL_COUNT ? colls[coll].name : "unknown collective";
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
    case RCMSG_COLL_ALLREDUCE:
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

static rcmsg_status_t coll_run(rcmsg_coll_args_t *a)
{
    int alg = forced[a->coll];
    const char *why = "forced";

    if (alg == RCMSG_COLL_ALG_AUTO) {
        alg = coll_config.alg[a->coll];
        why = rcmsg_config_desc(colls[a->coll].var)->name;
    }
    if (alg == RCMSG_COLL_ALG_AUTO) {
        alg = coll_choose(a);
        why = "auto";
    }
    last[a->coll] = alg;
    a->tag = RCMSG_COLL_TAG(a->comm->coll_seq, a->coll);
    a->comm->coll_seq++; /* every rank runs the same calls in the same order */
    rcmsg_debug("%s: algorithm %s (%s), %zu x %s (%zu bytes), %d ranks, root %d",
                colls[a->coll].name, rcmsg_coll_algorithm_name(a->coll, alg), why, a->count,
                rcmsg_coll_dtype_name(a->dtype), a->count * a->esize, a->size, a->root);
    return colls[a->coll].fns[alg](a);
}

/*
 * Runs a call whose own argument checks (coll_prep and the rest) gave s; with RCMSG_COLL_CHECK,
 * only once every rank agrees on it, and a refusal on one rank fails the call on all. root
 * and op as passed (ignored where the call takes none). A rank that has no live communicator
 * (a->comm NULL) cannot take part.
 */
static rcmsg_status_t coll_start(rcmsg_coll_args_t *a, rcmsg_status_t s, int root, rcmsg_op_t op)
{
    if (coll_config.check && a->comm != RCMSG_COMM_NULL) {
        rcmsg_coll_check_t mine = {.call = (int32_t)a->coll,
                                   .root = root,
                                   .dtype = (int32_t)a->dtype,
                                   .op = (int32_t)op,
                                   .bad = s != RCMSG_OK,
                                   .count = a->count};
        rcmsg_status_t c = rcmsg_coll_check(a->comm, &mine);

        if (s == RCMSG_OK) {
            s = c;
        }
    }
    return s == RCMSG_OK ? coll_run(a) : s;
}

/*
 * Checks what every collective takes and fills a (a->comm stays NULL when comm is not a live
 * communicator). blocks: whether the largest buffer holds one count-element block per rank
 * (else one block), for the overflow check.
 */
static rcmsg_status_t coll_prep(rcmsg_coll_t coll, rcmsg_comm_t comm, size_t count,
                                rcmsg_datatype_t dtype, bool blocks, rcmsg_coll_args_t *a)
{
    const char *name = colls[coll].name;
    int size = rcmsg_comm_size(comm);

    a->comm = RCMSG_COMM_NULL; /* the rest is filled below once comm is known to be live */
    if (rcmsg_comm_world() == RCMSG_COMM_NULL) {
        rcmsg_error("rcmsg_%s: rcmsg is not initialized", name);
        return RCMSG_ERR_NOT_INITIALIZED;
    }
    if (size < 1) {
        rcmsg_error("rcmsg_%s: %p is not a live communicator", name, (void *)comm);
        return RCMSG_ERR_INVALID_PARAM;
    }
    *a = (rcmsg_coll_args_t){.comm = comm,
                             .rank = rcmsg_comm_rank(comm),
                             .size = size,
                             .count = count,
                             .esize = rcmsg_coll_dtype_size(dtype),
                             .dtype = dtype,
                             .coll = coll};
    if (a->esize == 0) {
        rcmsg_error("rcmsg_%s: unknown datatype %d", name, (int)dtype);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (count > SIZE_MAX / a->esize / (blocks ? (size_t)size : 1) / 4) {
        rcmsg_error("rcmsg_%s: count %zu of %s is too large", name, count,
                    rcmsg_coll_dtype_name(dtype));
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_OK;
}

static rcmsg_status_t check_op(const rcmsg_coll_args_t *a, rcmsg_op_t op)
{
    if ((unsigned)op >= RCMSG_OP_COUNT) {
        rcmsg_error("rcmsg_%s: unknown operation %d", colls[a->coll].name, (int)op);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (!rcmsg_coll_op_valid(op, a->dtype)) {
        rcmsg_error("rcmsg_%s: operation %s is not defined on %s", colls[a->coll].name,
                    rcmsg_coll_op_name(op), rcmsg_coll_dtype_name(a->dtype));
        return RCMSG_ERR_UNSUPPORTED;
    }
    return RCMSG_OK;
}

static rcmsg_status_t check_root(const rcmsg_coll_args_t *a, int root)
{
    if (root < 0 || root >= a->size) {
        rcmsg_error("rcmsg_%s: root %d is not a rank of this %d-rank communicator",
                    colls[a->coll].name, root, a->size);
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_OK;
}

/* NULL is fine for an empty buffer (it becomes empty_buf); RCMSG_IN_PLACE only where allowed. */
static rcmsg_status_t check_buf(const rcmsg_coll_args_t *a, const void **buf, const char *what,
                                bool needed, bool in_place_ok)
{
    if (*buf == RCMSG_IN_PLACE && !in_place_ok) {
        rcmsg_error("rcmsg_%s: RCMSG_IN_PLACE is not allowed as the %s here", colls[a->coll].name,
                    what);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (*buf == NULL && needed && a->count > 0) {
        rcmsg_error("rcmsg_%s: the %s is NULL (count %zu)", colls[a->coll].name, what, a->count);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (*buf == NULL) {
        *buf = empty_buf;
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_barrier(rcmsg_comm_t comm)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s = coll_prep(RCMSG_COLL_BARRIER, comm, 0, RCMSG_UINT8, false, &a);

    return coll_start(&a, s, NO_ROOT, NO_OP);
}

rcmsg_status_t rcmsg_bcast(void *buf, size_t count, rcmsg_datatype_t dtype, int root,
                           rcmsg_comm_t comm)
{
    rcmsg_coll_args_t a;
    const void *b = buf;
    rcmsg_status_t s = coll_prep(RCMSG_COLL_BCAST, comm, count, dtype, false, &a);

    if (s == RCMSG_OK) {
        s = check_root(&a, root);
    }
    if (s == RCMSG_OK) {
        s = check_buf(&a, &b, "buffer", true, false);
    }
    a.root = root;
    a.rbuf = (void *)b;
    return coll_start(&a, s, root, NO_OP);
}

/* The checks of a reduction; recvbuf matters at the root only when root >= 0. */
static rcmsg_status_t prep_reduction(rcmsg_coll_t coll, const void **sendbuf, void *recvbuf,
                                     size_t count, rcmsg_datatype_t dtype, rcmsg_op_t op, int root,
                                     rcmsg_comm_t comm, rcmsg_coll_args_t *a)
{
    const void *rb = recvbuf;
    bool has_result;
    rcmsg_status_t s = coll_prep(coll, comm, count, dtype, coll == RCMSG_COLL_REDUCE_SCATTER, a);

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

rcmsg_status_t rcmsg_reduce(const void *sendbuf, void *recvbuf, size_t count,
                            rcmsg_datatype_t dtype, rcmsg_op_t op, int root, rcmsg_comm_t comm)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s =
        prep_reduction(RCMSG_COLL_REDUCE, &sendbuf, recvbuf, count, dtype, op, root, comm, &a);

    return coll_start(&a, s, root, op);
}

rcmsg_status_t rcmsg_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                               rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s =
        prep_reduction(RCMSG_COLL_ALLREDUCE, &sendbuf, recvbuf, count, dtype, op, -1, comm, &a);

    return coll_start(&a, s, NO_ROOT, op);
}

rcmsg_status_t rcmsg_reduce_scatter_block(const void *sendbuf, void *recvbuf, size_t count,
                                          rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s = prep_reduction(RCMSG_COLL_REDUCE_SCATTER, &sendbuf, recvbuf, count, dtype,
                                      op, -1, comm, &a);

    return coll_start(&a, s, NO_ROOT, op);
}

/*
 * The checks of the block collectives (allgather, alltoall, gather, scatter). root < 0: no
 * root. The many-block buffer matters at the root only for gather (recvbuf) and scatter
 * (sendbuf). In place, the own block lies inside the many-block buffer.
 */
static rcmsg_status_t prep_blocks(rcmsg_coll_t coll, const void *sendbuf, void *recvbuf,
                                  size_t count, rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                                  rcmsg_coll_args_t *a)
{
    const void *rb = recvbuf;
    bool rooted = coll == RCMSG_COLL_GATHER || coll == RCMSG_COLL_SCATTER, at_root;
    rcmsg_status_t s = coll_prep(coll, comm, count, dtype, true, a);

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

rcmsg_status_t rcmsg_allgather(const void *sendbuf, void *recvbuf, size_t count,
                               rcmsg_datatype_t dtype, rcmsg_comm_t comm)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s =
        prep_blocks(RCMSG_COLL_ALLGATHER, sendbuf, recvbuf, count, dtype, -1, comm, &a);

    return coll_start(&a, s, NO_ROOT, NO_OP);
}

rcmsg_status_t rcmsg_alltoall(const void *sendbuf, void *recvbuf, size_t count,
                              rcmsg_datatype_t dtype, rcmsg_comm_t comm)
{
    rcmsg_coll_args_t a;
    void *copy = NULL;
    rcmsg_status_t s =
        prep_blocks(RCMSG_COLL_ALLTOALL, sendbuf, recvbuf, count, dtype, -1, comm, &a);

    /* in place (or the same buffer passed twice, which MPI forbids but costs nothing to
     * allow): the blocks to send would be overwritten as others arrive */
    if (s == RCMSG_OK && (a.sbuf == RCMSG_IN_PLACE || (a.sbuf == a.rbuf && count > 0))) {
        size_t nb = (size_t)a.size * count * a.esize;

        copy = rcmsg_coll_scratch_get(&a, nb);
        if (copy == NULL) {
            s = RCMSG_ERR_NO_MEMORY;
        } else {
            memcpy(copy, a.rbuf, nb);
            a.sbuf = copy;
        }
    }
    s = coll_start(&a, s, NO_ROOT, NO_OP);
    if (copy != NULL) {
        rcmsg_coll_scratch_put(&a, copy);
    }
    return s;
}

rcmsg_status_t rcmsg_gather(const void *sendbuf, void *recvbuf, size_t count,
                            rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s =
        prep_blocks(RCMSG_COLL_GATHER, sendbuf, recvbuf, count, dtype, root, comm, &a);

    return coll_start(&a, s, root, NO_OP);
}

rcmsg_status_t rcmsg_scatter(const void *sendbuf, void *recvbuf, size_t count,
                             rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s =
        prep_blocks(RCMSG_COLL_SCATTER, sendbuf, recvbuf, count, dtype, root, comm, &a);

    return coll_start(&a, s, root, NO_OP);
}

size_t rcmsg_datatype_size(rcmsg_datatype_t dtype)
{
    return rcmsg_coll_dtype_size(dtype);
}
