/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collectives of intercommunicators (rcmsg.h; src/core/core_inter.c makes them), each a
 * schedule builder on the engine of every collective (coll_sched.h).
 *
 * An intercommunicator is a communicator of the union of its two groups (the group of the
 * leader with the lower world rank first) whose inter part (pml.h) says where each group
 * lies. Its collectives run over the union's collective space with the arguments of the
 * local group (rank, size) and peer_off set to the remote group: a builder names the remote
 * group's ranks as they are; the intracommunicator algorithms run over the local group with
 * peer_off set to it (local()). With L ranks here and R there:
 *
 *   bcast:      root --> remote rank 0 --(binomial bcast in its group)--> every remote rank
 *   reduce:     the other group reduces at its rank 0 (rank order kept for a
 *               non-commutative op), which sends to the root
 *   allreduce:  each group reduces at its rank 0; the rank 0s swap; each bcasts in its group
 *   reduce_scatter(_block): as allreduce, then each rank 0 scatters the other's result over
 *               its group by its counts
 *   allgather:  each group gathers at its rank 0; the rank 0s swap; each bcasts in its group
 *   barrier:    barrier in each group; the rank 0s swap an empty message; barrier again
 *   gather(v), scatter(v), allgatherv, alltoall(v): one message per pair of ranks with data
 *               to move, all in one phase
 */
#include "config.h"

#include "coll.h"

#include "base/log.h"
#include "pml/pml.h"

#include <string.h>

static char inter_empty[16]; /* a NULL buffer of no data */

/* ---- the builders -------------------------------------------------------------------------- */

/* a's arguments over the local group (a itself names the remote group) */
static rcmsg_coll_args_t local(const rcmsg_coll_args_t *a)
{
    rcmsg_coll_args_t b = *a;

    b.peer_off = a->comm->inter->local_off;
    return b;
}

static int remote_size(const rcmsg_coll_args_t *a)
{
    return a->comm->inter->remote_size;
}

/* the local group's reduction of a's sbuf (count elements) into res at its rank 0 */
static rcmsg_status_t group_reduce(const rcmsg_coll_args_t *a, void *res)
{
    rcmsg_coll_args_t b = local(a);

    b.root = 0;
    b.rbuf = res;
    return rcmsg_coll_op_commutes(a->op) ? rcmsg_coll_reduce_binomial(&b)
                                         : rcmsg_coll_reduce_ordered(&b);
}

/* bytes of buf from the local group's rank 0 to the others */
static rcmsg_status_t group_bcast(const rcmsg_coll_args_t *a, void *buf, size_t bytes)
{
    rcmsg_coll_args_t b = local(a);

    b.root = 0;
    b.rbuf = buf;
    b.count = bytes;
    b.esize = 1;
    return rcmsg_coll_bcast_binomial(&b);
}

static rcmsg_status_t inter_barrier(const rcmsg_coll_args_t *a)
{
    rcmsg_coll_args_t b = local(a);
    rcmsg_status_t s = rcmsg_coll_barrier_dissemination(&b);

    if (s == RCMSG_OK && a->rank == 0) {
        s = rcmsg_coll_sendrecv(a, inter_empty, 0, 0, inter_empty, 0, 0);
    }
    return s == RCMSG_OK ? rcmsg_coll_barrier_dissemination(&b) : s;
}

static rcmsg_status_t inter_bcast(const rcmsg_coll_args_t *a)
{
    size_t bytes = a->count * a->esize;
    rcmsg_status_t s = RCMSG_OK;

    if (a->root == RCMSG_PROC_NULL || bytes == 0) {
        return RCMSG_OK;
    }
    if (a->root == RCMSG_ROOT) {
        return rcmsg_coll_send(a, a->rbuf, bytes, 0);
    }
    if (a->rank == 0) {
        s = rcmsg_coll_recv(a, a->rbuf, bytes, a->root);
    }
    return s == RCMSG_OK ? group_bcast(a, a->rbuf, bytes) : s;
}

static rcmsg_status_t inter_reduce(const rcmsg_coll_args_t *a)
{
    size_t bytes = a->count * a->esize;
    char *res = NULL;
    rcmsg_status_t s;

    if (a->root == RCMSG_PROC_NULL || bytes == 0) {
        return RCMSG_OK;
    }
    if (a->root == RCMSG_ROOT) {
        return rcmsg_coll_recv(a, a->rbuf, bytes, 0);
    }
    if (a->rank == 0 && (res = rcmsg_coll_scratch_get(a, bytes)) == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    s = group_reduce(a, res);
    return s == RCMSG_OK && a->rank == 0 ? rcmsg_coll_send(a, res, bytes, a->root) : s;
}

static rcmsg_status_t inter_allreduce(const rcmsg_coll_args_t *a)
{
    size_t bytes = a->count * a->esize;
    char *res = NULL;
    rcmsg_status_t s;

    if (bytes == 0) {
        return RCMSG_OK;
    }
    if (a->rank == 0 && (res = rcmsg_coll_scratch_get(a, bytes)) == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    s = group_reduce(a, res);
    if (s == RCMSG_OK && a->rank == 0) {
        s = rcmsg_coll_sendrecv(a, res, bytes, 0, a->rbuf, bytes, 0);
    }
    return s == RCMSG_OK ? group_bcast(a, a->rbuf, bytes) : s;
}

/* The local group's counts (L of them, elements) over its rank 0's res, as displacements. */
static size_t *counts_displs(const rcmsg_coll_args_t *a, const size_t *counts)
{
    size_t *d = rcmsg_coll_scratch_get(a, sizeof(*d) * (size_t)a->size), off = 0;

    for (int i = 0; d != NULL && i < a->size; i++) {
        d[i] = off;
        off += counts[i];
    }
    return d;
}

/* reduce_scatter: rcounts (the local group's) sum to count */
static rcmsg_status_t inter_reduce_scatter(const rcmsg_coll_args_t *a)
{
    size_t bytes = a->count * a->esize;
    char *res = NULL, *theirs = NULL;
    rcmsg_coll_args_t b = local(a);
    rcmsg_status_t s;

    if (bytes == 0) {
        return RCMSG_OK;
    }
    if (a->rank == 0 && ((res = rcmsg_coll_scratch_get(a, 2 * bytes)) == NULL)) {
        return RCMSG_ERR_NO_MEMORY;
    }
    theirs = res != NULL ? res + bytes : NULL;
    s = group_reduce(a, res);
    if (s == RCMSG_OK && a->rank == 0) {
        s = rcmsg_coll_sendrecv(a, res, bytes, 0, theirs, bytes, 0);
    }
    if (s != RCMSG_OK) {
        return s;
    }
    b.root = 0;
    b.sbuf = theirs;
    b.scounts = a->rcounts;
    b.sdispls = counts_displs(a, a->rcounts);
    b.count = a->rcounts[a->rank];
    return b.sdispls == NULL ? RCMSG_ERR_NO_MEMORY : rcmsg_coll_scatterv_linear(&b);
}

/* the block variant: every count the same */
static rcmsg_status_t inter_reduce_scatter_block(const rcmsg_coll_args_t *a)
{
    size_t *counts = rcmsg_coll_scratch_get(a, sizeof(*counts) * (size_t)a->size);
    rcmsg_coll_args_t b = *a;

    if (counts == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < a->size; i++) {
        counts[i] = a->count;
    }
    b.rcounts = counts;
    b.count = a->count * (size_t)a->size;
    return inter_reduce_scatter(&b);
}

static rcmsg_status_t inter_allgather(const rcmsg_coll_args_t *a)
{
    size_t block = a->count * a->esize, rbytes = block * (size_t)remote_size(a);
    rcmsg_coll_args_t b = local(a);
    char *mine = NULL;
    rcmsg_status_t s;

    if (block == 0) {
        return RCMSG_OK;
    }
    if (a->rank == 0 && (mine = rcmsg_coll_scratch_get(a, block * (size_t)a->size)) == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    b.root = 0;
    b.rbuf = mine;
    s = rcmsg_coll_gather_linear(&b);
    if (s == RCMSG_OK && a->rank == 0) {
        s = rcmsg_coll_sendrecv(a, mine, block * (size_t)a->size, 0, a->rbuf, rbytes, 0);
    }
    return s == RCMSG_OK ? group_bcast(a, a->rbuf, rbytes) : s;
}

/* One phase of messages with remote ranks: n of them at most (those of no data left out). */
typedef struct {
    rcmsg_coll_msg_t *m;
    int n;
} xfer_t;

static rcmsg_status_t xfer_init(const rcmsg_coll_args_t *a, xfer_t *x, int n)
{
    x->n = 0;
    x->m = rcmsg_coll_scratch_get(a, sizeof(*x->m) * (size_t)(n > 0 ? n : 1));
    return x->m == NULL ? RCMSG_ERR_NO_MEMORY : RCMSG_OK;
}

static void xfer_add(xfer_t *x, const void *buf, size_t len, int peer, bool recv)
{
    if (len > 0) {
        x->m[x->n++] =
            (rcmsg_coll_msg_t){.buf = (void *)buf, .len = len, .peer = peer, .recv = recv};
    }
}

/* gather(v) (recv) and scatter(v): the root's block i (counts[i] elements at displs[i], or
 * count at i * count when counts is NULL) with remote rank i; the others' one block */
static rcmsg_status_t inter_rooted(const rcmsg_coll_args_t *a, bool recv, char *buf,
                                   const size_t *counts, const size_t *displs, const void *own)
{
    int n = remote_size(a);
    xfer_t x;

    if (a->root == RCMSG_PROC_NULL) {
        return RCMSG_OK;
    }
    if (a->root != RCMSG_ROOT) {
        size_t len = a->count * a->esize;

        if (len == 0) {
            return RCMSG_OK;
        }
        return recv ? rcmsg_coll_send(a, own, len, a->root)
                    : rcmsg_coll_recv(a, (void *)own, len, a->root);
    }
    if (xfer_init(a, &x, n) != RCMSG_OK) {
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n; i++) {
        size_t cnt = counts != NULL ? counts[i] : a->count;
        size_t at = counts != NULL ? displs[i] : (size_t)i * a->count;

        xfer_add(&x, buf + at * a->esize, cnt * a->esize, i, recv);
    }
    return rcmsg_coll_post_all(a, x.n, x.m);
}

static rcmsg_status_t inter_gather(const rcmsg_coll_args_t *a)
{
    return inter_rooted(a, true, a->rbuf, a->rcounts, a->rdispls, a->sbuf);
}

static rcmsg_status_t inter_scatter(const rcmsg_coll_args_t *a)
{
    return inter_rooted(a, false, (char *)a->sbuf, a->scounts, a->sdispls, a->rbuf);
}

/* alltoall(v), allgatherv: block j of the send side to remote rank j (scounts NULL: all of
 * sbuf, count elements, to each; sdispls NULL: blocks of count), block j of the receive side
 * (rdispls NULL: blocks of count) from it */
static rcmsg_status_t inter_exchange(const rcmsg_coll_args_t *a)
{
    int n = remote_size(a);
    const char *sb = a->sbuf;
    char *rb = a->rbuf;
    xfer_t x;

    if (xfer_init(a, &x, 2 * n) != RCMSG_OK) {
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int j = 0; j < n; j++) {
        size_t rc = a->rcounts != NULL ? a->rcounts[j] : a->count;
        size_t rd = a->rdispls != NULL ? a->rdispls[j] : (size_t)j * a->count;

        xfer_add(&x, rb + rd * a->esize, rc * a->esize, j, true);
    }
    for (int j = 0; j < n; j++) {
        size_t sc = a->scounts != NULL ? a->scounts[j] : a->count;
        size_t sd = a->sdispls != NULL   ? a->sdispls[j]
                    : a->rcounts == NULL ? (size_t)j * a->count
                                         : 0; /* allgatherv: the same block to each */

        xfer_add(&x, sb + sd * a->esize, sc * a->esize, j, false);
    }
    return rcmsg_coll_post_all(a, x.n, x.m);
}

/* ---- the calls ----------------------------------------------------------------------------- */

/* An array of n entries where one is needed. */
static rcmsg_status_t need_array(const rcmsg_coll_inter_call_t *c, const size_t *v,
                                 const char *what)
{
    if (v == NULL) {
        rcmsg_error("rcmsg_%s: %s is NULL", rcmsg_coll_name(c->coll), what);
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_OK;
}

/* A buffer of bytes bytes: IN_PLACE refused, NULL only when empty (then inter_empty). */
static rcmsg_status_t need_buf(const rcmsg_coll_inter_call_t *c, const void **buf, size_t bytes,
                               const char *what)
{
    if (*buf == RCMSG_IN_PLACE) {
        rcmsg_error("rcmsg_%s: RCMSG_IN_PLACE is not allowed over an intercommunicator",
                    rcmsg_coll_name(c->coll));
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (*buf == NULL && bytes > 0) {
        rcmsg_error("rcmsg_%s: the %s is NULL", rcmsg_coll_name(c->coll), what);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (*buf == NULL) {
        *buf = inter_empty;
    }
    return RCMSG_OK;
}

static size_t sum(const size_t *v, int n)
{
    size_t t = 0;

    for (int i = 0; v != NULL && i < n; i++) {
        t += v[i];
    }
    return t;
}

static bool rooted(int coll)
{
    return coll == RCMSG_COLL_BCAST || coll == RCMSG_COLL_REDUCE || coll == RCMSG_COLL_GATHER ||
           coll == RCMSG_COLL_SCATTER || coll == RCMSG_COLL_GATHERV || coll == RCMSG_COLL_SCATTERV;
}

/* the root argument of a rooted call: RCMSG_ROOT, RCMSG_PROC_NULL or a remote rank */
static rcmsg_status_t check_root(const rcmsg_coll_inter_call_t *c, int nremote)
{
    if (!rooted(c->coll) || c->root == RCMSG_ROOT || c->root == RCMSG_PROC_NULL ||
        (c->root >= 0 && c->root < nremote)) {
        return RCMSG_OK;
    }
    rcmsg_error("rcmsg_%s: root %d over an intercommunicator: RCMSG_ROOT, RCMSG_PROC_NULL or a "
                "rank of the remote group (of %d)",
                rcmsg_coll_name(c->coll), c->root, nremote);
    return RCMSG_ERR_INVALID_PARAM;
}

/* The buffers and arrays of the call, as the rank's role uses them (esize bytes an element). */
static rcmsg_status_t check_bufs(const rcmsg_coll_inter_call_t *c, rcmsg_coll_args_t *a)
{
    int R = remote_size(a), me = a->rank;
    bool root = c->root == RCMSG_ROOT, leaf = !root && c->root != RCMSG_PROC_NULL;
    size_t e = a->esize, n = c->count, sb = 0, rb = 0;
    rcmsg_status_t s = RCMSG_OK;

    switch (c->coll) {
    case RCMSG_COLL_BARRIER:
        break;
    case RCMSG_COLL_BCAST:
        rb = root || leaf ? n * e : 0;
        break;
    case RCMSG_COLL_REDUCE:
        sb = leaf ? n * e : 0;
        rb = root ? n * e : 0;
        break;
    case RCMSG_COLL_ALLREDUCE:
        sb = rb = n * e;
        break;
    case RCMSG_COLL_GATHER:
    case RCMSG_COLL_SCATTER:
        sb = c->coll == RCMSG_COLL_GATHER ? (leaf ? n * e : 0) : (root ? n * e * (size_t)R : 0);
        rb = c->coll == RCMSG_COLL_GATHER ? (root ? n * e * (size_t)R : 0) : (leaf ? n * e : 0);
        break;
    case RCMSG_COLL_ALLGATHER:
    case RCMSG_COLL_ALLTOALL:
        sb = n * e * (c->coll == RCMSG_COLL_ALLTOALL ? (size_t)R : 1);
        rb = n * e * (size_t)R;
        break;
    case RCMSG_COLL_GATHERV:
    case RCMSG_COLL_ALLGATHERV:
        if (root || c->coll == RCMSG_COLL_ALLGATHERV) {
            s = need_array(c, c->rcounts, "recvcounts");
            s = s == RCMSG_OK ? need_array(c, c->rdispls, "displs") : s;
            rb = sum(c->rcounts, R) * e;
        }
        sb = leaf || c->coll == RCMSG_COLL_ALLGATHERV ? n * e : 0;
        break;
    case RCMSG_COLL_SCATTERV:
        if (root) {
            s = need_array(c, c->scounts, "sendcounts");
            s = s == RCMSG_OK ? need_array(c, c->sdispls, "displs") : s;
            sb = sum(c->scounts, R) * e;
        }
        rb = leaf ? n * e : 0;
        break;
    case RCMSG_COLL_ALLTOALLV:
        s = need_array(c, c->scounts, "sendcounts");
        s = s == RCMSG_OK ? need_array(c, c->sdispls, "sdispls") : s;
        s = s == RCMSG_OK ? need_array(c, c->rcounts, "recvcounts") : s;
        s = s == RCMSG_OK ? need_array(c, c->rdispls, "rdispls") : s;
        sb = sum(c->scounts, R) * e;
        rb = sum(c->rcounts, R) * e;
        break;
    case RCMSG_COLL_REDUCE_SCATTER:
        sb = n * e * (size_t)a->size;
        rb = n * e;
        break;
    case RCMSG_COLL_REDUCE_SCATTER_V:
        s = need_array(c, c->rcounts, "recvcounts");
        sb = sum(c->rcounts, a->size) * e;
        rb = s == RCMSG_OK ? c->rcounts[me] * e : 0;
        break;
    default:
        rcmsg_error("rcmsg_%s: not defined over an intercommunicator", rcmsg_coll_name(c->coll));
        return RCMSG_ERR_INVALID_PARAM;
    }
    a->sbuf = c->sbuf;
    a->rbuf = c->rbuf;
    s = s == RCMSG_OK ? need_buf(c, &a->sbuf, sb, "send buffer") : s;
    s = s == RCMSG_OK ? need_buf(c, (const void **)&a->rbuf, rb, "receive buffer") : s;
    return s;
}

/* The call's arguments over the union: the local group's rank and size, peers remote. */
static rcmsg_status_t inter_prep(const rcmsg_coll_inter_call_t *c, rcmsg_coll_args_t *a)
{
    rcmsg_comm_t comm = c->comm;
    bool reduction = c->coll == RCMSG_COLL_REDUCE || c->coll == RCMSG_COLL_ALLREDUCE ||
                     c->coll == RCMSG_COLL_REDUCE_SCATTER || c->coll == RCMSG_COLL_REDUCE_SCATTER_V;
    rcmsg_status_t s;

    /* field by field, as coll_prep (a compound literal clears the whole struct first) */
    a->comm = comm;
    a->rank = comm->rank - comm->inter->local_off;
    a->size = comm->inter->local_size;
    a->root = c->root;
    a->count = c->count;
    a->esize = rcmsg_datatype_size(c->dtype);
    a->dtype = c->dtype;
    a->op = reduction ? c->op : RCMSG_OP_NULL;
    a->coll = (rcmsg_coll_t)c->coll;
    a->sched = NULL;
    a->scounts = c->scounts;
    a->sdispls = c->sdispls;
    a->rcounts = c->rcounts;
    a->rdispls = c->rdispls;
    a->peer_off = comm->inter->remote_off;
    s = check_root(c, comm->inter->remote_size);
    if (s == RCMSG_OK && reduction) {
        s = rcmsg_coll_op_check(c->coll, c->op, c->dtype);
    }
    s = s == RCMSG_OK ? check_bufs(c, a) : s;
    if (s == RCMSG_OK && c->coll == RCMSG_COLL_REDUCE_SCATTER_V) {
        a->count = sum(c->rcounts, a->size);
    }
    return s;
}

static rcmsg_coll_fn_t inter_builder(int coll)
{
    switch (coll) {
    case RCMSG_COLL_BARRIER:
        return inter_barrier;
    case RCMSG_COLL_BCAST:
        return inter_bcast;
    case RCMSG_COLL_REDUCE:
        return inter_reduce;
    case RCMSG_COLL_ALLREDUCE:
        return inter_allreduce;
    case RCMSG_COLL_ALLGATHER:
        return inter_allgather;
    case RCMSG_COLL_GATHER:
    case RCMSG_COLL_GATHERV:
        return inter_gather;
    case RCMSG_COLL_SCATTER:
    case RCMSG_COLL_SCATTERV:
        return inter_scatter;
    case RCMSG_COLL_REDUCE_SCATTER:
        return inter_reduce_scatter_block;
    case RCMSG_COLL_REDUCE_SCATTER_V:
        return inter_reduce_scatter;
    default: /* alltoall(v), allgatherv */
        return inter_exchange;
    }
}

rcmsg_status_t rcmsg_coll_inter(const rcmsg_coll_inter_call_t *c, rcmsg_request_t *req_p)
{
    rcmsg_coll_args_t a;
    rcmsg_status_t s;

    if (c->root == RCMSG_PROC_NULL && req_p == NULL && rooted(c->coll)) {
        c->comm->coll_seq++; /* no part in it (the rest ignored), but its tag taken as by all */
        return RCMSG_OK;
    }
    s = inter_prep(c, &a);
    if (s != RCMSG_OK) {
        return s;
    }
    return rcmsg_coll_run_with(&a, inter_builder(c->coll), req_p);
}
