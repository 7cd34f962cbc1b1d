/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kind of request of a persistent collective (MPI-4.0 6.13: MPI_Bcast_init, ...): the
 * arguments of the call, kept, and the start function its binding handed over, which runs the
 * matching nonblocking collective (the binding's own MPI_Ibcast, ...) at each MPI_Start. The
 * nonblocking collective's request is the inner one: this kind takes it over (its handle
 * released: the program sees only the persistent request), waits and tests through it, copies
 * its outcome when it completes and deletes it; the persistent request is then inactive and
 * can be started again. Buffers and arrays are read at each start (the program keeps them
 * until it frees the request, as MPI says); a large-count (_c) init's counts and displacements
 * are converted once, at the init, and kept with the request (mpi_pcoll_c_new). The send and
 * receive datatypes (derived ones) are held under handles of the request's own until it is
 * freed: an MPI_Type_free of the program's handle after the init leaves the starts working, as
 * MPI says; so is a user operation (MPI_Op_free after the init). The w forms' arrays of types
 * are copied at the init (one entry per peer, or per neighbor), each derived type in them held
 * the same way.
 *
 * Matching: MPI-4.0 matches a persistent collective at its init (in the order of the
 * communicator's collectives); its starts may then come in any order on different ranks.
 * So each request runs on a communicator of its own, a duplicate agreed on from the init as
 * MPI_Comm_idup's (mpi_dupset_t, of an intra- or intercommunicator: the init stays local and
 * returns at once): only its own starts, one at a time, use it. A start before the agreement
 * completed is pending: it runs once it has, in a test or wait of the request or in the kind's
 * progress (any call that tests or waits).
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>
#include <string.h>

typedef struct pcoll_req {
    mpi_pcoll_args_t a; /* a.comm: the request's own communicator once made */
    mpi_pcoll_start_fn *start;
    mpi_req_t *inner; /* the running nonblocking collective; NULL: none */
    /* the own communicator: its agreement (dup.n 0: made, or failed); own: its MPI handle */
    mpi_dupset_t dup;
    MPI_Comm own;
    int dup_err;            /* the agreement failed: its noted code, the outcome of every start */
    bool pending;           /* started before the own communicator was made: runs once it is */
    int run_err;            /* a pending start that failed when it ran: its outcome */
    struct pcoll_req *next; /* on live_list */
    mpi_req_t *req;         /* the persistent request; NULL: freed (orphan_settle) */
    mpi_comm_t *parent;     /* freed: its communicator, held until the agreement completed */
    MPI_Datatype held[2];   /* a.sdt's and a.rdt's own handles (MPI_DATATYPE_NULL: none) */
    /* the w forms: a.sdts and a.rdts point into wdts (nw entries: the copies given to each
     * start, then the own handles of the derived ones among them, MPI_DATATYPE_NULL: none) */
    MPI_Datatype *wdts;
    int nw;
    MPI_Op held_op;    /* a.op's own handle (a user operation), else MPI_OP_NULL */
    struct mpi_op *op; /* what held_op names, held (mpi_op_hold) */
} pcoll_req_t;

static pcoll_req_t *live_list; /* every request of this kind (the kind's progress and fini) */

MPI_Request mpi_nbc_check_only_; /* MPI_NBC_CHECK_ONLY points here (never written) */

/* The own communicator made from the agreement: an MPI communicator (the parent's name, error
 * handler and topology) without its attributes. */
static void pcoll_own_make(mpi_req_t *req, pcoll_req_t *p)
{
    mpi_comm_t *c = req->comm, *n;

    p->dup_err = mpi_dupset_make(c, req->what, &p->dup, &p->own);
    if (p->dup_err != MPI_SUCCESS) {
        return;
    }
    n = mpi_comm_get(p->own);
    if (n == NULL) { /* (made just now) */
        return;
    }
    memcpy(n->name, c->name, sizeof(n->name));
    n->topo = mpi_topo_copy(c->topo);
    if (c->topo != NULL && n->topo == NULL) {
        p->dup_err = mpi_err_note(MPI_ERR_NO_MEM, "%s: no memory for the topology", req->what);
        return;
    }
    p->a.comm = p->own;
}

/* true once the own communicator is made (or failed, or none is needed); block: waits */
static bool pcoll_own_ready(mpi_req_t *req, pcoll_req_t *p, bool block)
{
    if (p->dup.n == 0) {
        return true;
    }
    if (!mpi_dupset_test(&p->dup, block)) {
        return false;
    }
    pcoll_own_make(req, p);
    return true;
}

/* Runs the nonblocking collective through the binding's start function and takes its
 * request over. Its errors are raised by that binding (naming it). */
static int pcoll_run(mpi_req_t *req, pcoll_req_t *p)
{
    MPI_Request h = MPI_REQUEST_NULL;
    int err = p->dup_err != MPI_SUCCESS ? p->dup_err : p->start(&p->a, &h);

    if (err != MPI_SUCCESS) {
        return err;
    }
    p->inner = h != MPI_REQUEST_NULL ? mpi_handle_get(MPI_KIND_REQUEST_, h) : NULL;
    if (p->inner == NULL) { /* nothing to wait for */
        mpi_status_empty(&req->done);
        return MPI_SUCCESS;
    }
    mpi_handle_release(MPI_KIND_REQUEST_, h);
    p->inner->handle = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* a pending start runs once the own communicator is made; block: waits for it */
static void pcoll_kick(mpi_req_t *req, pcoll_req_t *p, bool block)
{
    if (p->pending && pcoll_own_ready(req, p, block)) {
        p->pending = false;
        p->run_err = pcoll_run(req, p);
    }
}

/* *dt, a derived type, under a handle of the request's own (its type retained) in *held and
 * *dt; others (predefined, not a type) stay as they are (a start's checks see them). */
static int pcoll_type_hold(MPI_Datatype *dt, MPI_Datatype *held)
{
    mpi_type_t *t = (unsigned)*dt >> MPI_HANDLE_KIND_SHIFT == MPI_KIND_DATATYPE_ &&
                            (*dt & MPI_HANDLE_INDEX_MASK) >= MPI_DT_PREDEFINED_COUNT_
                        ? mpi_type_get(*dt)
                        : NULL;
    int h;

    *held = MPI_DATATYPE_NULL;
    if (t == NULL) {
        return MPI_SUCCESS;
    }
    if (mpi_handle_alloc(MPI_KIND_DATATYPE_, t, &h) != MPI_SUCCESS) {
        return MPI_ERR_NO_MEM;
    }
    mpi_type_retain(t);
    *held = *dt = h;
    return MPI_SUCCESS;
}

/* n types of *dts copied into p->wdts from at, each derived one held (pcoll_type_hold); *dts
 * then points to the copy. NULL arrays stay (the start refuses them). */
static int pcoll_types_hold(pcoll_req_t *p, const MPI_Datatype **dts, int n, int at)
{
    for (int i = 0; *dts != NULL && i < n; i++) {
        p->wdts[at + i] = (*dts)[i];
        if (pcoll_type_hold(&p->wdts[at + i], &p->wdts[p->nw + at + i]) != MPI_SUCCESS) {
            return MPI_ERR_NO_MEM;
        }
    }
    if (*dts != NULL) {
        *dts = p->wdts + at;
    }
    return MPI_SUCCESS;
}

/* The w forms' arrays of types (c: the init's communicator): copied, their derived types held. */
static int pcoll_w_hold(pcoll_req_t *p, mpi_comm_t *c)
{
    int ns = mpi_comm_peers(c), nr = ns;

    if (p->a.sdts == NULL && p->a.rdts == NULL) {
        return MPI_SUCCESS;
    }
    if (p->a.nbr) {
        ns = nr = 0; /* (no topology: the start refuses it) */
        if (c->topo != NULL) {
            mpi_topo_neighbors(c->topo, c->rank, &nr, NULL, &ns, NULL);
        }
    }
    if (p->a.sbuf == MPI_IN_PLACE) {
        ns = 0; /* the send side is not read */
    }
    p->nw = ns + nr;
    p->wdts = malloc(2 * (size_t)(p->nw + 1) * sizeof(*p->wdts));
    if (p->wdts == NULL) {
        p->nw = 0;
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < 2 * p->nw; i++) {
        p->wdts[i] = MPI_DATATYPE_NULL;
    }
    if (ns > 0 && pcoll_types_hold(p, &p->a.sdts, ns, 0) != MPI_SUCCESS) {
        return MPI_ERR_NO_MEM;
    }
    return pcoll_types_hold(p, &p->a.rdts, nr, ns);
}

/* a.op, a user operation, under a handle of the request's own (held) */
static int pcoll_op_hold(pcoll_req_t *p)
{
    int h;

    p->held_op = MPI_OP_NULL;
    if (!mpi_op_valid(p->a.op) || mpi_op_predefined(p->a.op)) {
        return MPI_SUCCESS;
    }
    p->op = mpi_op_hold(p->a.op);
    if (mpi_handle_alloc(MPI_KIND_OP_, p->op, &h) != MPI_SUCCESS) {
        return MPI_ERR_NO_MEM;
    }
    p->held_op = p->a.op = h;
    return MPI_SUCCESS;
}

/* a held type's own handle let go of, and the type (MPI_DATATYPE_NULL: none) */
static void pcoll_type_drop(MPI_Datatype *held)
{
    mpi_type_t *t = *held != MPI_DATATYPE_NULL ? mpi_type_get(*held) : NULL;

    if (t != NULL) {
        mpi_handle_release(MPI_KIND_DATATYPE_, *held);
        mpi_type_release(t);
    }
    *held = MPI_DATATYPE_NULL;
}

static void pcoll_held_drop(pcoll_req_t *p)
{
    if (p->held_op != MPI_OP_NULL) {
        mpi_handle_release(MPI_KIND_OP_, p->held_op);
        p->held_op = MPI_OP_NULL;
    }
    mpi_op_drop(p->op);
    p->op = NULL;
    for (int i = 0; i < 2; i++) {
        pcoll_type_drop(&p->held[i]);
    }
    for (int i = 0; p->wdts != NULL && i < p->nw; i++) {
        pcoll_type_drop(&p->wdts[p->nw + i]);
    }
    free(p->wdts);
    p->wdts = NULL;
    p->nw = 0;
}

static void live_unlink(pcoll_req_t *p)
{
    for (pcoll_req_t **pp = &live_list; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            return;
        }
    }
}

/* A freed request whose agreement was still under way (req NULL): once it completes, its
 * rcmsg communicator is freed, the parent let go of (it cannot go before), p freed. */
static void orphan_settle(pcoll_req_t *p, bool block)
{
    if (!mpi_dupset_test(&p->dup, block)) {
        return;
    }
    mpi_dupset_drop(&p->dup);
    mpi_comm_unref(p->parent);
    live_unlink(p);
    free(p);
}

/* The kind's background work (block: Finalize's, where every member is there): the
 * agreements advanced, pending starts run once theirs completed, freed requests' settled. */
static void pcoll_advance(bool block)
{
    pcoll_req_t *p, *next;

    for (p = live_list; p != NULL; p = next) {
        next = p->next;
        if (p->req == NULL) {
            orphan_settle(p, block);
        } else if (p->pending && !block) {
            pcoll_kick(p->req, p, false);
        } else {
            (void)pcoll_own_ready(p->req, p, block);
        }
    }
}

static void pcoll_progress(void)
{
    pcoll_advance(false);
}

/* no rcmsg request is left (the own communicators go with the others left) */
static void pcoll_fini(void)
{
    pcoll_advance(true);
}

/* the inner request is over: its outcome becomes the persistent request's */
static void pcoll_end(mpi_req_t *req, pcoll_req_t *p)
{
    req->done = p->inner->done;
    mpi_req_delete(p->inner);
    p->inner = NULL;
}

/* a start that failed when it ran: complete with its code */
static bool pcoll_failed(mpi_req_t *req, pcoll_req_t *p)
{
    if (p->run_err == MPI_SUCCESS) {
        return false;
    }
    mpi_status_set(&req->done, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, p->run_err, false);
    p->run_err = MPI_SUCCESS;
    return true;
}

static bool pcoll_test(mpi_req_t *req)
{
    pcoll_req_t *p = req->priv;

    pcoll_kick(req, p, false);
    if (p->pending) {
        return false;
    }
    if (pcoll_failed(req, p) || p->inner == NULL) {
        return true;
    }
    if (!mpi_req_test(p->inner)) {
        return false;
    }
    pcoll_end(req, p);
    return true;
}

static void pcoll_wait(mpi_req_t *req)
{
    pcoll_req_t *p = req->priv;

    pcoll_kick(req, p, true);
    if (!pcoll_failed(req, p) && p->inner != NULL) {
        mpi_req_wait(p->inner);
        pcoll_end(req, p);
    }
}

static int pcoll_cancel(mpi_req_t *req, const char *call)
{
    return call == NULL ? MPI_ERR_REQUEST
                        : mpi_err(req->comm, call, MPI_ERR_REQUEST,
                                  "a persistent collective (%s) cannot be cancelled (MPI: "
                                  "erroneous)",
                                  req->what);
}

/* MPI_Start: runs now when the own communicator is made, else once it is (pending) */
static int pcoll_start(mpi_req_t *req, const char *call)
{
    pcoll_req_t *p = req->priv;

    req->complete = false;
    if (!pcoll_own_ready(req, p, false)) {
        p->pending = true;
        return MPI_SUCCESS;
    }
    if (p->dup_err != MPI_SUCCESS) {
        return mpi_err_again(req->comm, call, p->dup_err);
    }
    return pcoll_run(req, p);
}

/* a _c form's converted arrays (mpi_pcoll_args_t's keep) */
static void pcoll_keep_free(const mpi_pcoll_args_t *a)
{
    free(a->keep[0]);
    free(a->keep[1]);
}

/* The own communicator goes; one still being agreed on is settled in the background
 * (orphan_settle: MPI_Request_free stays local). */
static void pcoll_free(mpi_req_t *req)
{
    pcoll_req_t *p = req->priv;
    mpi_comm_t *own = p != NULL && p->own != MPI_COMM_NULL ? mpi_comm_get(p->own) : NULL;

    if (p == NULL) {
        return;
    }
    req->priv = NULL;
    if (p->inner != NULL) { /* Finalize only: its collective could not complete */
        mpi_req_delete(p->inner);
    }
    pcoll_held_drop(p);
    pcoll_keep_free(&p->a);
    if (own != NULL) {
        mpi_handle_release(MPI_KIND_COMM_, p->own);
        mpi_comm_unref(own);
    }
    if (p->dup.n != 0) {
        p->req = NULL;
        p->parent = req->comm;
        p->parent->refs++;
        return;
    }
    live_unlink(p);
    free(p);
}

static const mpi_req_ops_t pcoll_req_ops = {
    .name = "persistent collective",
    .collective = true,
    .test = pcoll_test,
    .wait = pcoll_wait,
    .cancel = pcoll_cancel,
    .free = pcoll_free,
    .progress = pcoll_progress,
    .fini = pcoll_fini,
    .start = pcoll_start,
};

int mpi_pcoll_new(const char *call, MPI_Info info, const mpi_pcoll_args_t *a,
                  mpi_pcoll_start_fn *start, mpi_pcoll_check_fn *check, MPI_Request *request)
{
    int err, bad = MPI_SUCCESS;
    mpi_comm_t *c;
    pcoll_req_t *p;
    mpi_req_t *r;
    rcmsg_status_t s;

    MPI_CHECK_ACTIVE(call); /* (a _c form's conversion then failed: nothing kept) */
    c = mpi_nbc_args(call, a->comm, request, &err);
    if (c == NULL) {
        pcoll_keep_free(a);
        return err;
    }
    if (info != MPI_INFO_NULL && mpi_info_get(info) == NULL) {
        pcoll_keep_free(a);
        return mpi_err(c, call, MPI_ERR_INFO, "invalid info %#x", (unsigned)info);
    }
    if (a->bad != MPI_SUCCESS) {
        bad = a->bad; /* raised by the _c form's conversion; the duplicate as below */
    } else if (check != NULL) {
        bad = check(c, call, a); /* raised; the duplicate is still agreed on (below) */
    }
    p = calloc(1, sizeof(*p));
    err = MPI_ERR_NO_MEM;
    r = p != NULL ? mpi_req_new(c, &pcoll_req_ops, &err) : NULL;
    if (r == NULL) {
        free(p);
        pcoll_keep_free(a);
        return mpi_err(c, call, err, "out of requests");
    }
    p->a = *a;
    p->start = start;
    p->own = MPI_COMM_NULL;
    p->req = r;
    r->priv = p;
    p->next = live_list;
    live_list = p;
    if (bad == MPI_SUCCESS &&
        (pcoll_type_hold(&p->a.sdt, &p->held[0]) != MPI_SUCCESS ||
         pcoll_type_hold(&p->a.rdt, &p->held[1]) != MPI_SUCCESS ||
         pcoll_w_hold(p, c) != MPI_SUCCESS || pcoll_op_hold(p) != MPI_SUCCESS)) {
        mpi_req_delete(r);
        return mpi_err(c, call, MPI_ERR_NO_MEM, "out of handles for its datatypes or operation");
    }
    if ((s = mpi_dupset_post(c, &p->dup)) != RCMSG_OK) { /* nothing under way */
        mpi_req_delete(r);
        return bad != MPI_SUCCESS ? bad : mpi_err_rcmsg(c, call, s);
    }
    if (bad != MPI_SUCCESS) {
        /* an argument refused here may be accepted by the other members (a root's buffers,
         * its own count): they posted the duplicate's agreement, so it runs to its end in the
         * background, as a freed request's does, and the next one on c stays in step */
        mpi_req_delete(r);
        return bad;
    }
    r->persistent = true;
    r->what = call;
    *request = r->handle;
    return MPI_SUCCESS;
}

int mpi_pcoll_c_new(const char *call, MPI_Info info, mpi_pcoll_args_t *a, const mpi_c_out_t *o,
                    int err, mpi_pcoll_start_fn *start, mpi_pcoll_check_fn *check,
                    MPI_Request *request)
{
    mpi_err_as(o->prev_as); /* (the init names its _c call itself) */
    a->scounts = o->s.counts;
    a->sdispls = o->s.displs;
    a->rcounts = o->r.counts;
    a->rdispls = o->r.displs;
    a->keep[0] = o->s.keep;
    a->keep[1] = o->r.keep;
    a->bad = err;
    if (err != MPI_SUCCESS && (mpi_comm_get(a->comm) == NULL || request == NULL ||
                               (info != MPI_INFO_NULL && mpi_info_get(info) == NULL))) {
        pcoll_keep_free(a); /* raised by the conversion: one error per call (the init's checks */
        return err;         /* would raise the communicator's, request's or info's besides) */
    }
    return mpi_pcoll_new(call, info, a, start, check, request);
}
