/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicators: creation on a context the members agree on (pml_ctx.c) and adoption of the
 * messages that came first, freeing (late messages refused), and the communicator calls.
 */
#include "config.h"

#include "pml_internal.h"
#include "base/mt.h"
#include "progress/progress.h"

#include <stdlib.h>
#include <string.h>

/* A communicator is freed: its context becomes dead (late messages are refused; pml_ctx.c
 * says when it may be reused) and its unreceived messages are discarded, giving their eager
 * credits back and failing their rendezvous senders, so that nothing of the pair stays held
 * for the rest of the job. */
static void ctx_bury(struct rcmsg_comm *c)
{
    uint32_t ctx = c->ctx;
    long n;

    n = pml_unexp_refuse(ctx, "its communicator was freed before it was received", RCMSG_ERR_STATE);
    n += pml_unexp_refuse(ctx | 1u, "its communicator was freed before it was received",
                          RCMSG_ERR_STATE);
    if (n > 0) {
        rcmsg_warn("rcmsg_comm_free: %ld unreceived message(s) on communicator 0x%x discarded", n,
                   ctx);
    }
    rcmsg_match_ctx_release(&pml_rcv.match, ctx);
    rcmsg_match_ctx_release(&pml_rcv.match, ctx | 1u);
    pml_ctx_bury(c); /* last: it takes c->world */
}

/* An orphan message of communicator *arg: its sender is checked now. */
static void adopt_one(rcmsg_match_msg_t *m, void *arg)
{
    const struct rcmsg_comm *c = arg;
    pml_unexp_t *u = RCMSG_MATCH_ITEM(m, pml_unexp_t, m);

    if (!u->orphan) {
        return;
    }
    pml_unexp_adopt(u);
    if (!pml_src_check(u->peer, c, &u->h.hdr)) {
        rcmsg_match_remove(&pml_rcv.match, m);
        pml_rcv.unexp_bytes -= u->data != NULL ? u->h.hdr.len : 0;
        free(u);
    }
}

/* A new communicator adopts the messages that arrived for its context before it existed:
 * their sender is checked now (dropped, and the peer failed, when it lied). */
static void ctx_adopt(const struct rcmsg_comm *c)
{
    rcmsg_match_msg_each(&pml_rcv.match, c->ctx, adopt_one, (void *)c);
    rcmsg_match_msg_each(&pml_rcv.match, c->ctx | 1u, adopt_one, (void *)c);
}

rcmsg_status_t pml_comm_create(uint32_t ctx, int size, int rank, const int *world,
                               rcmsg_comm_t *comm_p)
{
    int *members = malloc(sizeof(int) * (size_t)size);
    struct rcmsg_comm *c;

    if (members == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    c = pml_comms_take(ctx);
    if (c == NULL) {
        rcmsg_error("communicator context 0x%x is already in use here (the members agreed on "
                    "it: an internal error)",
                    ctx);
        free(members);
        return RCMSG_ERR_STATE;
    }
    pml_ctx_take(ctx);
    memcpy(members, world, sizeof(int) * (size_t)size);
    c->world = members;
    c->size = size;
    c->rank = rank;
    c->inter = NULL;
    c->adopting = true;
    ctx_adopt(c);
    c->adopting = false;
    for (int i = 0; i < size && c->coll_lost == RCMSG_OK; i++) {
        if (pml_peer_gone(world[i]) != RCMSG_OK) {
            pml_comm_break(c, world[i], pml_peer_gone(world[i]), -1);
        }
    }
    *comm_p = c;
    rcmsg_debug("communicator 0x%x: rank %d of %d", ctx, rank, size);
    return RCMSG_OK;
}

static rcmsg_pml_comm_fini_t comm_fini; /* the collectives', for c->coll */

void rcmsg_pml_set_comm_fini(rcmsg_pml_comm_fini_t fini)
{
    comm_fini = fini;
}

void pml_comm_destroy(rcmsg_comm_t c)
{
    if (c->coll != NULL && comm_fini != NULL) {
        comm_fini(c);
    }
    free(c->world);
    c->world = NULL;
    free(c->inter);
    c->inter = NULL;
    pml_comms_put(c);
}

rcmsg_comm_t rcmsg_comm_world(void)
{
    return pml_comms.world;
}

rcmsg_comm_t rcmsg_comm_world_private(void)
{
    return pml_comms.world_private;
}

/* An intercommunicator's: its local group's (the union's are comm->rank and comm->size) */
int rcmsg_comm_rank(rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    if (comm == NULL || !pml_comm_valid(comm)) {
        return -1;
    }
    return comm->inter == NULL ? comm->rank : comm->rank - comm->inter->local_off;
}

int rcmsg_comm_size(rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    if (comm == NULL || !pml_comm_valid(comm)) {
        return -1;
    }
    return comm->inter == NULL ? comm->size : comm->inter->local_size;
}

int rcmsg_comm_remote_size(rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return comm != NULL && pml_comm_valid(comm) && comm->inter != NULL ? comm->inter->remote_size
                                                                       : -1;
}

rcmsg_status_t rcmsg_comm_test_inter(rcmsg_comm_t comm, int *flag_p)
{
    RCMSG_MT_GUARD();
    if (comm == NULL || !pml_comm_valid(comm) || flag_p == NULL) {
        rcmsg_error("rcmsg_comm_test_inter: %s",
                    flag_p == NULL ? "flag_p is NULL" : "invalid communicator");
        return RCMSG_ERR_INVALID_PARAM;
    }
    *flag_p = comm->inter != NULL;
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_comm_log_errors(rcmsg_comm_t comm, int on)
{
    RCMSG_MT_GUARD();
    if (comm == NULL || !pml_comm_valid(comm)) {
        rcmsg_error("rcmsg_comm_log_errors: invalid communicator");
        return RCMSG_ERR_INVALID_PARAM;
    }
    comm->errors_quiet = on == 0;
    return RCMSG_OK;
}

/* split and create_ranks of an intercommunicator: not here (the MPI face splits one over its
 * union and groups) */
static rcmsg_status_t comm_not_inter(const char *what, rcmsg_comm_t comm)
{
    if (comm->inter != NULL) {
        rcmsg_error("%s: not supported on an intercommunicator", what);
        return RCMSG_ERR_UNSUPPORTED;
    }
    return RCMSG_OK;
}

static rcmsg_pml_comm_check_t comm_check; /* RCMSG_COLL_CHECK's, or NULL */

void rcmsg_pml_set_comm_check(rcmsg_pml_comm_check_t check)
{
    comm_check = check;
}

/* With RCMSG_COLL_CHECK, the ranks of comm agree that every one calls this (dup or split, with
 * a valid color), before anything changes; s: this rank's own checks, refused on all ranks
 * when refused on one. */
static rcmsg_status_t comm_agree(rcmsg_comm_t comm, bool split, int color, rcmsg_status_t s)
{
    return comm_check != NULL ? comm_check(comm, split, color, s) : s;
}

/* The duplicate of parent on the agreed ctx: its members in its order and, for an
 * intercommunicator, its two groups (the union's agreement made it: both groups took part). */
static rcmsg_status_t comm_create_dup(uint32_t ctx, rcmsg_comm_t parent, rcmsg_comm_t *newcomm_p)
{
    struct rcmsg_comm_inter *in = NULL;
    rcmsg_status_t s;

    if (parent->inter != NULL && (in = malloc(sizeof(*in))) == NULL) {
        rcmsg_error("duplicate of intercommunicator 0x%x: out of memory", parent->ctx);
        return RCMSG_ERR_NO_MEMORY;
    }
    s = pml_comm_create(ctx, parent->size, parent->rank, parent->world, newcomm_p);
    if (s == RCMSG_OK && in != NULL) {
        *in = *parent->inter;
        (*newcomm_p)->inter = in;
        in = NULL;
    }
    free(in);
    return s;
}

rcmsg_status_t rcmsg_comm_dup(rcmsg_comm_t comm, rcmsg_comm_t *newcomm_p)
{
    RCMSG_MT_GUARD();
    pml_agree_entry_t mine = {0, 0, 0};
    rcmsg_status_t s = pml_check("rcmsg_comm_dup");
    uint32_t ctx;

    if (s != RCMSG_OK) {
        return s;
    }
    if (comm == NULL || !pml_comm_valid(comm)) {
        rcmsg_error("rcmsg_comm_dup: invalid communicator");
        return RCMSG_ERR_INVALID_PARAM;
    }
    s = newcomm_p == NULL ? pml_null_arg("rcmsg_comm_dup", "newcomm_p") : RCMSG_OK;
    s = comm_agree(comm, false, 0, s);
    if (s != RCMSG_OK) {
        return s;
    }
    /* the members agree on the context, in comm's collective space (an intercommunicator's:
     * its union's, both groups) */
    mine.rank = comm->rank;
    s = pml_ctx_agree("rcmsg_comm_dup", comm, true, NULL, comm->size, mine, NULL, &ctx);
    if (s != RCMSG_OK) {
        return s;
    }
    s = comm_create_dup(ctx, comm, newcomm_p);
    pml_ctx_agree_end();
    return s;
}

/* ---- rcmsg_comm_idup: the agreement advanced from a progress hook ---------------------------- */

typedef struct pml_idup {
    pml_agree_t *a;
    rcmsg_comm_t comm;
    rcmsg_comm_t *newcomm_p; /* written when it completes */
    rcmsg_request_t req;     /* owned: completed with the outcome */
    struct pml_idup *next;
} pml_idup_t;

static pml_idup_t *idups; /* under way, newest first */
static bool idup_hooked, idup_running;

/* The agreement is over: the communicator is made, the request completed. */
static void idup_finish(pml_idup_t *d)
{
    rcmsg_comm_t nc = RCMSG_COMM_NULL;
    uint32_t ctx;
    rcmsg_status_t s = pml_agree_result(d->a, NULL, &ctx);

    if (s == RCMSG_OK) {
        s = comm_create_dup(ctx, d->comm, &nc);
        pml_ctx_agree_end();
    }
    pml_agree_free(d->a);
    d->comm->nbc_active--;
    if (s == RCMSG_OK) {
        *d->newcomm_p = nc;
    }
    rcmsg_pml_req_owned_complete(d->req, s);
    free(d);
}

static int idup_progress(void *arg)
{
    int n = 0;

    (void)arg;
    if (idup_running) {
        return 0; /* (a round nested in one of its own calls) */
    }
    idup_running = true;
    for (pml_idup_t **pp = &idups; *pp != NULL;) {
        pml_idup_t *d = *pp;

        if (!pml_agree_advance(d->a)) {
            pp = &d->next;
            continue;
        }
        *pp = d->next;
        idup_finish(d);
        n++;
    }
    idup_running = false;
    if (idups == NULL && idup_hooked) {
        rcmsg_progress_unregister(idup_progress, NULL);
        idup_hooked = false;
    }
    return n;
}

static rcmsg_status_t idup_args(rcmsg_comm_t comm, rcmsg_comm_t *newcomm_p, rcmsg_request_t *req_p)
{
    rcmsg_status_t s = pml_check("rcmsg_comm_idup");

    if (s != RCMSG_OK) {
        return s;
    }
    if (comm == NULL || !pml_comm_valid(comm)) {
        rcmsg_error("rcmsg_comm_idup: invalid communicator");
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (newcomm_p == NULL || req_p == NULL) {
        return pml_null_arg("rcmsg_comm_idup", newcomm_p == NULL ? "newcomm_p" : "req_p");
    }
    if (!idup_hooked && rcmsg_progress_register_internal(idup_progress, NULL) != RCMSG_OK) {
        rcmsg_error("rcmsg_comm_idup needs a progress hook, and all %d are taken "
                    "(RCMSG_PROGRESS_HOOK_MAX)",
                    RCMSG_PROGRESS_HOOK_MAX);
        return RCMSG_ERR_NO_RESOURCE;
    }
    idup_hooked = true;
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_comm_idup(rcmsg_comm_t comm, rcmsg_comm_t *newcomm_p, rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    pml_agree_entry_t mine = {0, 0, 0};
    rcmsg_status_t s = idup_args(comm, newcomm_p, req_p);
    pml_idup_t *d = s == RCMSG_OK ? calloc(1, sizeof(*d)) : NULL;

    if (s == RCMSG_OK && (d == NULL || rcmsg_pml_req_owned(&d->req) != RCMSG_OK)) {
        rcmsg_error("rcmsg_comm_idup: out of memory");
        s = RCMSG_ERR_NO_MEMORY;
    }
    if (s == RCMSG_OK) {
        /* its number among comm's collectives: its tag, and its place among the agreements */
        mine.rank = comm->rank;
        s = pml_agree_new("rcmsg_comm_idup", comm, true, NULL, comm->size,
                          PML_TAG_IDUP(comm->coll_seq), comm->coll_seq, true, mine, &d->a);
        comm->coll_seq++;
    }
    if (s != RCMSG_OK) {
        if (d != NULL && d->req != NULL) {
            rcmsg_pml_req_owned_complete(d->req, s);
            (void)rcmsg_wait(&d->req, NULL);
        }
        free(d);
        return s;
    }
    d->comm = comm;
    d->newcomm_p = newcomm_p;
    comm->nbc_active++; /* rcmsg_comm_free refuses the parent until it is over */
    *req_p = d->req;
    d->next = idups;
    idups = d; /* its first exchange goes out on the next progress round */
    rcmsg_mt_kick_work();
    return RCMSG_OK;
}

static int split_cmp(const void *a, const void *b)
{
    const pml_agree_entry_t *x = a, *y = b;
    if (x->key != y->key) {
        return x->key < y->key ? -1 : 1;
    }
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Checks the gathered entries: each rank's own, with a valid color (every rank refuses a bad
 * one, naming it). */
static rcmsg_status_t split_check(const pml_agree_entry_t *all, int size)
{
    rcmsg_status_t s = RCMSG_OK;

    for (int i = 0; i < size; i++) {
        if (all[i].rank != i) {
            rcmsg_error("rcmsg_comm_split: rank %d sent a malformed entry", i);
            return RCMSG_ERR_PEER_DATA;
        }
        if (all[i].color < 0 && all[i].color != RCMSG_UNDEFINED) {
            rcmsg_error("rcmsg_comm_split refused: rank %d of the communicator gave color %d "
                        "(colors are >= 0, or RCMSG_UNDEFINED)",
                        i, all[i].color);
            s = RCMSG_ERR_INVALID_PARAM;
        }
    }
    return s;
}

/* The members of this rank's color, ordered by (key, rank in comm), as world ranks into
 * world; *n_p of them, this rank the *me_p-th. all is reordered. */
static void split_members(rcmsg_comm_t comm, int color, pml_agree_entry_t *all, int *world,
                          int *n_p, int *me_p)
{
    int n = 0;

    for (int i = 0; i < comm->size; i++) {
        if (all[i].color == color) {
            all[n++] = all[i];
        }
    }
    qsort(all, (size_t)n, sizeof(*all), split_cmp);
    for (int i = 0; i < n; i++) {
        world[i] = comm->world[all[i].rank];
        if (all[i].rank == comm->rank) {
            *me_p = i;
        }
    }
    *n_p = n;
}

rcmsg_status_t rcmsg_comm_split(rcmsg_comm_t comm, int color, int key, rcmsg_comm_t *newcomm_p)
{
    RCMSG_MT_GUARD();
    pml_agree_entry_t *all, mine = {color, key, 0};
    int *world, n = 0, me = -1;
    rcmsg_status_t s = RCMSG_OK;
    uint32_t ctx = 0;

    s = pml_check("rcmsg_comm_split");
    if (s != RCMSG_OK) {
        return s;
    }
    if (comm == NULL || !pml_comm_valid(comm)) {
        rcmsg_error("rcmsg_comm_split: invalid communicator");
        return RCMSG_ERR_INVALID_PARAM;
    }
    if ((s = comm_not_inter("rcmsg_comm_split", comm)) != RCMSG_OK) {
        return s;
    }
    s = newcomm_p == NULL ? pml_null_arg("rcmsg_comm_split", "newcomm_p") : RCMSG_OK;
    s = comm_agree(comm, true, color, s);
    if (s != RCMSG_OK) {
        return s;
    }
    all = calloc((size_t)comm->size, sizeof(*all));
    world = calloc((size_t)comm->size, sizeof(int));
    if (all == NULL || world == NULL) {
        s = RCMSG_ERR_NO_MEMORY;
        goto out;
    }
    /* everyone learns everyone's (color, key) with the agreement on the context (one for all
     * the colors: their members are disjoint); a bad color still takes part, so that every
     * rank refuses the split (naming this one) instead of waiting for it */
    mine.rank = comm->rank;
    s = pml_ctx_agree("rcmsg_comm_split", comm, true, NULL, comm->size, mine, all, &ctx);
    if (s != RCMSG_OK) {
        goto out;
    }
    *newcomm_p = RCMSG_COMM_NULL;
    s = split_check(all, comm->size);
    if (s == RCMSG_OK && color != RCMSG_UNDEFINED) {
        split_members(comm, color, all, world, &n, &me);
        s = pml_comm_create(ctx, n, me, world, newcomm_p);
    }
    pml_ctx_agree_end();
out:
    free(all);
    free(world);
    return s;
}

/* Checks the list of rcmsg_comm_create_ranks; *me_p: this rank's index in it. */
static rcmsg_status_t ranks_check(rcmsg_comm_t comm, int n, const int ranks[], int *me_p)
{
    *me_p = -1;
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= comm->size) {
            rcmsg_error("rcmsg_comm_create_ranks: ranks[%d] = %d is not a rank of the "
                        "communicator (size %d)",
                        i, ranks[i], comm->size);
            return RCMSG_ERR_INVALID_PARAM;
        }
        for (int j = 0; j < i; j++) {
            if (ranks[j] == ranks[i]) {
                rcmsg_error("rcmsg_comm_create_ranks: rank %d is listed twice", ranks[i]);
                return RCMSG_ERR_INVALID_PARAM;
            }
        }
        if (ranks[i] == comm->rank) {
            *me_p = i;
        }
    }
    if (*me_p < 0) {
        rcmsg_error("rcmsg_comm_create_ranks: this rank (%d) is not in the list", comm->rank);
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_comm_create_ranks(rcmsg_comm_t comm, int n, const int ranks[], uint32_t key,
                                       rcmsg_comm_t *newcomm_p)
{
    RCMSG_MT_GUARD();
    pml_agree_entry_t mine = {0, (int32_t)key, 0};
    rcmsg_status_t s = pml_check("rcmsg_comm_create_ranks");
    uint32_t ctx;
    int *world, me;

    if (s != RCMSG_OK) {
        return s;
    }
    if (comm == NULL || !pml_comm_valid(comm)) {
        rcmsg_error("rcmsg_comm_create_ranks: invalid communicator");
        return RCMSG_ERR_INVALID_PARAM;
    }
    if ((s = comm_not_inter("rcmsg_comm_create_ranks", comm)) != RCMSG_OK) {
        return s;
    }
    if (ranks == NULL || newcomm_p == NULL) {
        return pml_null_arg("rcmsg_comm_create_ranks", ranks == NULL ? "ranks" : "newcomm_p");
    }
    s = ranks_check(comm, n, ranks, &me);
    if (s != RCMSG_OK) {
        return s;
    }
    world = malloc(sizeof(int) * (size_t)n);
    if (world == NULL) {
        rcmsg_error("rcmsg_comm_create_ranks: out of memory");
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n; i++) {
        world[i] = comm->world[ranks[i]];
    }
    /* the listed ranks agree on the context among themselves, in comm's point-to-point space
     * (an internal tag no user receive matches): that space still works when comm's
     * collectives broke, so survivors of a loss can make their own communicator */
    mine.rank = comm->rank;
    s = pml_ctx_agree("rcmsg_comm_create_ranks", comm, false, ranks, n, mine, NULL, &ctx);
    if (s == RCMSG_OK) {
        s = pml_comm_create(ctx, n, me, world, newcomm_p);
        pml_ctx_agree_end();
    }
    free(world);
    return s;
}

rcmsg_status_t rcmsg_comm_free(rcmsg_comm_t *comm_p)
{
    RCMSG_MT_GUARD();
    rcmsg_status_t s = pml_comms.world == NULL ? pml_check("rcmsg_comm_free") : RCMSG_OK;

    if (s != RCMSG_OK) {
        return s;
    }
    if (comm_p == NULL) {
        return pml_null_arg("rcmsg_comm_free", "comm_p");
    }
    if (*comm_p == NULL || !pml_comm_valid(*comm_p) || *comm_p == pml_comms.world ||
        *comm_p == pml_comms.world_private) {
        rcmsg_error("rcmsg_comm_free: %s", *comm_p != NULL && (*comm_p == pml_comms.world ||
                                                               *comm_p == pml_comms.world_private)
                                               ? "the world communicators cannot be freed"
                                               : "invalid communicator");
        return RCMSG_ERR_INVALID_PARAM;
    }
    if ((*comm_p)->nbc_active > 0) {
        /* its schedules hold the handle, which a later communicator may take over */
        rcmsg_error("rcmsg_comm_free: communicator 0x%x has %d nonblocking collective(s) "
                    "outstanding: complete them (rcmsg_wait/rcmsg_test) before freeing it",
                    (*comm_p)->ctx, (*comm_p)->nbc_active);
        return RCMSG_ERR_STATE;
    }
    ctx_bury(*comm_p);
    pml_comm_destroy(*comm_p);
    *comm_p = RCMSG_COMM_NULL;
    return RCMSG_OK;
}
