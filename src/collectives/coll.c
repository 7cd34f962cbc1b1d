/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collective entry points: argument checks, RCMSG_IN_PLACE, and the choice of algorithm
 * (RCMSG_COLL_<NAME>_ALGORITHM, or by size and rank count from the thresholds in the
 * configuration table). The choice depends only on arguments every rank passes alike and on
 * the configuration, so every rank makes the same one.
 */
#include "config.h"

#include "coll.h"

#include "base/config_table.h"
#include "base/log.h"
#include "pml/pml.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define COLL_MAX_ALGS 3
/* A call's tag in the collective space: (the communicator's collective sequence number mod
 * 2^24) << 4 | the collective. A message left over from a failed call can therefore never
 * match a later one; the tags stay below the pml's internal ones. */
#define COLL_TAG(seq, coll) ((int)(((seq)&0xffffffu) << 4) | (int)(coll))

typedef struct {
    const char *name;
    rcmsg_coll_fn_t fn;
} coll_alg_t;

static const struct {
    const char *name;
    rcmsg_config_id_t var;
    coll_alg_t algs[COLL_MAX_ALGS]; /* algorithm i is algs[i - 1]; 0 is "auto" */
} colls[RCMSG_COLL_COUNT] = {
    [RCMSG_COLL_BARRIER] = {"barrier",
                            RCMSG_CFG_COLL_BARRIER_ALGORITHM,
                            {{"dissemination", rcmsg_coll_barrier_dissemination}}},
    [RCMSG_COLL_BCAST] = {"bcast",
                          RCMSG_CFG_COLL_BCAST_ALGORITHM,
                          {{"binomial", rcmsg_coll_bcast_binomial},
                           {"scatter_allgather", rcmsg_coll_bcast_scatter_allgather}}},
    [RCMSG_COLL_REDUCE] = {"reduce",
                           RCMSG_CFG_COLL_REDUCE_ALGORITHM,
                           {{"binomial", rcmsg_coll_reduce_binomial},
                            {"reduce_scatter_gather", rcmsg_coll_reduce_rsg}}},
    [RCMSG_COLL_ALLREDUCE] = {"allreduce",
                              RCMSG_CFG_COLL_ALLREDUCE_ALGORITHM,
                              {{"recursive_doubling", rcmsg_coll_allreduce_recursive_doubling},
                               {"rabenseifner", rcmsg_coll_allreduce_rabenseifner},
                               {"ring", rcmsg_coll_allreduce_ring}}},
    [RCMSG_COLL_ALLGATHER] = {"allgather",
                              RCMSG_CFG_COLL_ALLGATHER_ALGORITHM,
                              {{"recursive_doubling", rcmsg_coll_allgather_recursive_doubling},
                               {"bruck", rcmsg_coll_allgather_bruck},
                               {"ring", rcmsg_coll_allgather_ring}}},
    [RCMSG_COLL_ALLTOALL] = {"alltoall",
                             RCMSG_CFG_COLL_ALLTOALL_ALGORITHM,
                             {{"bruck", rcmsg_coll_alltoall_bruck},
                              {"pairwise", rcmsg_coll_alltoall_pairwise}}},
    [RCMSG_COLL_GATHER] = {"gather",
                           RCMSG_CFG_COLL_GATHER_ALGORITHM,
                           {{"binomial", rcmsg_coll_gather_binomial}}},
    [RCMSG_COLL_SCATTER] = {"scatter",
                            RCMSG_CFG_COLL_SCATTER_ALGORITHM,
                            {{"binomial", rcmsg_coll_scatter_binomial}}},
    [RCMSG_COLL_REDUCE_SCATTER] = {"reduce_scatter",
                                   RCMSG_CFG_COLL_REDUCE_SCATTER_ALGORITHM,
                                   {{"recursive_halving",
                                     rcmsg_coll_reduce_scatter_recursive_halving},
                                    {"ring", rcmsg_coll_reduce_scatter_ring}}},
};

static int forced[RCMSG_COLL_COUNT];
static int last[RCMSG_COLL_COUNT];

/* A stand-in for NULL buffers of empty collectives: the algorithms may memcpy 0 bytes. */
static char empty_buf[16];

const char *rcmsg_coll_name(rcmsg_coll_t coll)
{
    return (unsigned)coll < RCMSG_COLL_COUNT ? colls[coll].name : "unknown collective";
}

int rcmsg_coll_algorithm_count(rcmsg_coll_t coll)
{
    int n = 0;

    while ((unsigned)coll < RCMSG_COLL_COUNT && n < COLL_MAX_ALGS &&
           colls[coll].algs[n].fn != NULL) {
        n++;
    }
    return n;
}

const char *rcmsg_coll_algorithm_name(rcmsg_coll_t coll, int alg)
{
    if (alg == 0) {
        return "auto";
    }
    return alg > 0 && alg <= rcmsg_coll_algorithm_count(coll) ? colls[coll].algs[alg - 1].name
                                                              : NULL;
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
    return (unsigned)coll < RCMSG_COLL_COUNT ? last[coll] : 0;
}

static bool is_pof2(int n)
{
    return (n & (n - 1)) == 0;
}

/* The automatic choice (1-based, as in the variable's choices). */
static int coll_choose(const rcmsg_coll_args_t *a)
{
    size_t bytes = a->count * a->esize, all = bytes * (size_t)a->size;

    switch (a->coll) {
    case RCMSG_COLL_BCAST:
        return bytes >= rcmsg_config_size(RCMSG_CFG_COLL_BCAST_LONG) && a->size >= 3 ? 2 : 1;
    case RCMSG_COLL_REDUCE:
        return bytes >= rcmsg_config_size(RCMSG_CFG_COLL_REDUCE_LONG) && a->size >= 3 ? 2 : 1;
    case RCMSG_COLL_ALLREDUCE:
        if (bytes < rcmsg_config_size(RCMSG_CFG_COLL_ALLREDUCE_SHORT) || a->size < 3) {
            return 1;
        }
        return bytes < rcmsg_config_size(RCMSG_CFG_COLL_ALLREDUCE_LONG) ? 2 : 3;
    case RCMSG_COLL_ALLGATHER:
        if (all >= rcmsg_config_size(RCMSG_CFG_COLL_ALLGATHER_LONG)) {
            return 3;
        }
        return is_pof2(a->size) ? 1 : 2;
    case RCMSG_COLL_ALLTOALL:
        return bytes <= rcmsg_config_size(RCMSG_CFG_COLL_ALLTOALL_TINY) && a->size >= 4 ? 1 : 2;
    case RCMSG_COLL_REDUCE_SCATTER:
        return all < rcmsg_config_size(RCMSG_CFG_COLL_REDUCE_SCATTER_LONG) ? 1 : 2;
    default:
        return 1;
    }
}

static rcmsg_status_t coll_run(rcmsg_coll_args_t *a)
{
    int alg = forced[a->coll];
    const char *why = "forced";

    if (alg == 0) {
        alg = rcmsg_config_enum(colls[a->coll].var);
        why = rcmsg_config_desc(colls[a->coll].var)->name;
    }
    if (alg == 0) {
        alg = coll_choose(a);
        why = "auto";
    }
    last[a->coll] = alg;
    a->tag = COLL_TAG(a->comm->coll_seq, a->coll);
    a->comm->coll_seq++; /* every rank runs the same calls in the same order */
    rcmsg_debug("%s: algorithm %s (%s), %zu x %s (%zu bytes), %d ranks, root %d",
                colls[a->coll].name, colls[a->coll].algs[alg - 1].name, why, a->count,
                rcmsg_coll_dtype_name(a->dtype), a->count * a->esize, a->size, a->root);
    return colls[a->coll].algs[alg - 1].fn(a);
}

/*
 * Checks what every collective takes and fills a. blocks: whether the largest buffer holds
 * one count-element block per rank (else one block), for the overflow check.
 */
static rcmsg_status_t coll_prep(rcmsg_coll_t coll, rcmsg_comm_t comm, size_t count,
                                rcmsg_datatype_t dtype, bool blocks, rcmsg_coll_args_t *a)
{
    const char *name = colls[coll].name;
    int size = rcmsg_comm_size(comm);

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

    return s == RCMSG_OK ? coll_run(&a) : s;
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
    if (s != RCMSG_OK) {
        return s;
    }
    a.root = root;
    a.rbuf = (void *)b;
    return coll_run(&a);
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

    return s == RCMSG_OK ? coll_run(&a) : s;
}

rcmsg_status_t rcmsg_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                               rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s =
        prep_reduction(RCMSG_COLL_ALLREDUCE, &sendbuf, recvbuf, count, dtype, op, -1, comm, &a);

    return s == RCMSG_OK ? coll_run(&a) : s;
}

rcmsg_status_t rcmsg_reduce_scatter_block(const void *sendbuf, void *recvbuf, size_t count,
                                          rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s = prep_reduction(RCMSG_COLL_REDUCE_SCATTER, &sendbuf, recvbuf, count, dtype,
                                      op, -1, comm, &a);

    return s == RCMSG_OK ? coll_run(&a) : s;
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

    return s == RCMSG_OK ? coll_run(&a) : s;
}

rcmsg_status_t rcmsg_alltoall(const void *sendbuf, void *recvbuf, size_t count,
                              rcmsg_datatype_t dtype, rcmsg_comm_t comm)
{
    rcmsg_coll_args_t a;
    void *copy = NULL;
    rcmsg_status_t s =
        prep_blocks(RCMSG_COLL_ALLTOALL, sendbuf, recvbuf, count, dtype, -1, comm, &a);

    if (s != RCMSG_OK) {
        return s;
    }
    /* in place (or the same buffer passed twice, which MPI forbids but costs nothing to
     * allow): the blocks to send would be overwritten as others arrive */
    if (a.sbuf == RCMSG_IN_PLACE || (a.sbuf == a.rbuf && count > 0)) {
        size_t nb = (size_t)a.size * count * a.esize;

        copy = rcmsg_coll_alloc(&a, nb);
        if (copy == NULL) {
            return RCMSG_ERR_NO_MEMORY;
        }
        memcpy(copy, a.rbuf, nb);
        a.sbuf = copy;
    }
    s = coll_run(&a);
    free(copy);
    return s;
}

rcmsg_status_t rcmsg_gather(const void *sendbuf, void *recvbuf, size_t count,
                            rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s =
        prep_blocks(RCMSG_COLL_GATHER, sendbuf, recvbuf, count, dtype, root, comm, &a);

    return s == RCMSG_OK ? coll_run(&a) : s;
}

rcmsg_status_t rcmsg_scatter(const void *sendbuf, void *recvbuf, size_t count,
                             rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s =
        prep_blocks(RCMSG_COLL_SCATTER, sendbuf, recvbuf, count, dtype, root, comm, &a);

    return s == RCMSG_OK ? coll_run(&a) : s;
}

size_t rcmsg_datatype_size(rcmsg_datatype_t dtype)
{
    return rcmsg_coll_dtype_size(dtype);
}
