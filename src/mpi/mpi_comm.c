/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicators: the MPI object around an rcmsg communicator (its handle, rank, size, error
 * handler and name). COMM_WORLD is rcmsg's world; COMM_SELF is a split of it by rank, made
 * by Init (a collective over the world, as every rank calls Init). Communicators of a group
 * (Comm_create: a split, one per disjoint group; Comm_create_group: rcmsg_comm_create_ranks over
 * the group's members only), of a node (Comm_split_type) and intercommunicators (mpi_inter.c) are
 * made here too.
 */
#include "mpi/mpi_objects.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mpi_comm_t *comm_new(rcmsg_comm_t rc, const char *name)
{
    mpi_comm_t *c = calloc(1, sizeof(*c));

    if (c == NULL) {
        return NULL;
    }
    c->rc = rc;
    c->rank = rcmsg_comm_rank(rc);
    c->size = rcmsg_comm_size(rc);
    c->errhandler = MPI_ERRORS_ARE_FATAL;
    c->refs = 1;
    snprintf(c->name, sizeof(c->name), "%s", name);
    c->members = malloc((size_t)c->size * sizeof(*c->members));
    if (c->members == NULL) {
        free(c);
        return NULL;
    }
    return c;
}

/* Learns the world rank of every member: one allgather over the new communicator (every
 * member makes it at once, collectively). */
static rcmsg_status_t comm_learn_members(mpi_comm_t *c)
{
    int32_t me = rcmsg_rank();
    int32_t *all = malloc((size_t)c->size * sizeof(*all));
    rcmsg_status_t s;

    if (all == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    s = rcmsg_allgather(&me, all, 1, RCMSG_INT32, c->rc);
    for (int i = 0; s == RCMSG_OK && i < c->size; i++) {
        c->members[i] = all[i];
    }
    free(all);
    return s;
}

int mpi_comm_init(void)
{
    rcmsg_comm_t self_rc;
    mpi_comm_t *world, *self;

    world = comm_new(rcmsg_comm_world(), "MPI_COMM_WORLD");
    if (world == NULL) {
        return MPI_ERR_NO_MEM;
    }
    world->handle = MPI_COMM_WORLD;
    for (int i = 0; i < world->size; i++) {
        world->members[i] = i;
    }
    if (mpi_handle_set(MPI_KIND_COMM_, MPI_COMM_WORLD & MPI_HANDLE_INDEX_MASK, world) !=
        MPI_SUCCESS) {
        free(world);
        return MPI_ERR_NO_MEM;
    }
    if (mpi_group_init() != MPI_SUCCESS) {
        return MPI_ERR_NO_MEM;
    }
    if (rcmsg_comm_split(world->rc, rcmsg_rank(), 0, &self_rc) != RCMSG_OK) {
        return MPI_ERR_OTHER;
    }
    self = comm_new(self_rc, "MPI_COMM_SELF");
    if (self == NULL) {
        return MPI_ERR_NO_MEM;
    }
    self->handle = MPI_COMM_SELF;
    self->members[0] = world->rank;
    return mpi_handle_set(MPI_KIND_COMM_, MPI_COMM_SELF & MPI_HANDLE_INDEX_MASK, self);
}

/* drops one reference; the last frees the rcmsg communicator (not the world's) */
void mpi_comm_unref(mpi_comm_t *c)
{
    if (--c->refs > 0) {
        return;
    }
    if (c->handle != MPI_COMM_WORLD) {
        rcmsg_comm_free(&c->rc);
    }
    if (c->inter) {
        mpi_inter_release(c);
    }
    mpi_err_comm_release(c);
    mpi_topo_free(c->topo);
    free(c->members);
    free(c);
}

/* A communicator the program did not free, at Finalize: released as MPICH does (no delete
 * callbacks: MPI calls them only for COMM_SELF and COMM_WORLD there), its attributes too. */
static void comm_leftover(int handle, void *obj)
{
    mpi_attr_release_all(obj);
    mpi_handle_release(MPI_KIND_COMM_, handle);
    mpi_comm_unref(obj);
}

void mpi_comm_fini(void)
{
    mpi_comm_t *c;

    /* COMM_SELF and COMM_WORLD (their attributes deleted first, SELF's before anything else
     * as MPI says), then the communicators the program did not free */
    c = mpi_comm_get(MPI_COMM_SELF);
    if (c != NULL) {
        mpi_attr_delete_all(c);
        mpi_attr_release_all(c); /* those whose delete callback failed */
        mpi_handle_release(MPI_KIND_COMM_, MPI_COMM_SELF);
        mpi_comm_unref(c);
    }
    c = mpi_comm_get(MPI_COMM_WORLD);
    if (c != NULL) {
        mpi_attr_delete_all(c);
        mpi_attr_release_all(c);
        mpi_handle_release(MPI_KIND_COMM_, MPI_COMM_WORLD);
        mpi_comm_unref(c);
    }
    mpi_handle_each(MPI_KIND_COMM_, comm_leftover);
    mpi_attr_fini();
    mpi_group_fini();
}

/* wraps a new rcmsg communicator made from c under a new handle; members: the world ranks of
 * its ranks, or NULL to learn them (collectively) */
int mpi_comm_wrap(mpi_comm_t *c, const char *call, rcmsg_comm_t rc, const int *members,
                  MPI_Comm *newcomm)
{
    mpi_comm_t *n;
    int err;
    rcmsg_status_t s = RCMSG_OK;

    n = comm_new(rc, "");
    if (n == NULL) {
        rcmsg_comm_free(&rc);
        return mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    if (members != NULL) {
        memcpy(n->members, members, (size_t)n->size * sizeof(int));
    } else {
        s = comm_learn_members(n);
    }
    if (s != RCMSG_OK) {
        rcmsg_comm_free(&rc);
        free(n->members);
        free(n);
        return mpi_err_rcmsg(c, call, s);
    }
    err = mpi_handle_alloc(MPI_KIND_COMM_, n, &n->handle);
    if (err != MPI_SUCCESS) {
        rcmsg_comm_free(&rc);
        free(n->members);
        free(n);
        return mpi_err(c, call, err, "out of communicator handles");
    }
    mpi_err_inherit(c, n);
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

/* The key of a communicator this rank leads (rank 0 of its group): leaders never reuse one, so
 * that two live communicators of the same members get different rcmsg contexts. */
uint32_t mpi_comm_next_key(void)
{
    static uint32_t next_key;

    return next_key++;
}

void mpi_inter_release(mpi_comm_t *c)
{
    rcmsg_comm_free(&c->local_rc);
    rcmsg_comm_free(&c->coll_rc);
    free(c->remote_members);
}

/* the new intercommunicator object around the union rc (and its duplicates) */
int mpi_inter_wrap(mpi_comm_t *local, const char *call, rcmsg_comm_t rc, rcmsg_comm_t local_rc,
                   rcmsg_comm_t coll_rc, int remote_size, int *remote_members, bool low,
                   MPI_Comm *newcomm)
{
    mpi_comm_t *n = calloc(1, sizeof(*n));
    rcmsg_status_t s = RCMSG_ERR_NO_MEMORY;
    int err;

    if (n == NULL || (n->members = malloc((size_t)local->size * sizeof(int))) == NULL) {
        goto err_free;
    }
    n->rc = rc;
    n->local_rc = local_rc;
    /* the collectives' rcmsg intercommunicator (a duplicate's, or made here): the leaders
     * (local rank 0 of each group) meet on rc, new (no message of the program's can be on it
     * yet), remote rank 0 being peer_off */
    n->coll_rc = coll_rc;
    s = coll_rc != RCMSG_COMM_NULL
            ? RCMSG_OK
            : rcmsg_intercomm_create(local_rc, 0, rc, low ? local->size : 0, 0, &n->coll_rc);
    coll_rc = RCMSG_COMM_NULL; /* (n's now, or never made) */
    if (s != RCMSG_OK) {
        goto err_free;
    }
    n->inter = true;
    n->rank = local->rank;
    n->size = local->size;
    memcpy(n->members, local->members, (size_t)local->size * sizeof(int));
    n->remote_size = remote_size;
    n->remote_members = remote_members;
    n->local_off = low ? 0 : remote_size;
    n->peer_off = low ? local->size : 0;
    n->refs = 1;
    err = mpi_handle_alloc(MPI_KIND_COMM_, n, &n->handle);
    if (err != MPI_SUCCESS) {
        rcmsg_comm_free(&n->coll_rc);
        goto err_free;
    }
    mpi_err_inherit(local, n);
    *newcomm = n->handle;
    return MPI_SUCCESS;

err_free:
    if (n != NULL) {
        free(n->members);
    }
    free(n);
    free(remote_members);
    rcmsg_comm_free(&rc);
    rcmsg_comm_free(&local_rc);
    if (coll_rc != RCMSG_COMM_NULL) {
        rcmsg_comm_free(&coll_rc);
    }
    return s == RCMSG_ERR_NO_MEMORY ? mpi_err(local, call, MPI_ERR_NO_MEM, "out of memory")
                                    : mpi_err_rcmsg(local, call, s);
}

/* rcmsg's duplicates of c's union, local group and collectives' intercommunicator. Every
 * member runs the three dups whatever the outcome of one (the first failure is kept): the
 * local group's dup can fail in one group only (its members out of context ids), and a group
 * that stopped there would leave the other waiting in the collectives' dup for ever. */
int mpi_inter_dup(mpi_comm_t *c, const char *call, MPI_Comm *newcomm)
{
    rcmsg_comm_t d[MPI_INTER_RCS] = {RCMSG_COMM_NULL, RCMSG_COMM_NULL, RCMSG_COMM_NULL};
    rcmsg_comm_t p[MPI_INTER_RCS];
    int n = mpi_comm_rcs(c, p);
    rcmsg_status_t s = RCMSG_OK;

    for (int i = 0; i < n; i++) {
        rcmsg_status_t si = rcmsg_comm_dup(p[i], &d[i]);

        s = s != RCMSG_OK ? s : si;
    }
    return mpi_inter_make(c, call, s, d, newcomm);
}

int mpi_inter_make(mpi_comm_t *c, const char *call, rcmsg_status_t s, rcmsg_comm_t *d,
                   MPI_Comm *newcomm)
{
    int *remote = s == RCMSG_OK ? malloc((size_t)c->remote_size * sizeof(int)) : NULL;

    if (s != RCMSG_OK || remote == NULL) {
        for (int i = 0; i < MPI_INTER_RCS; i++) {
            if (d[i] != RCMSG_COMM_NULL) {
                rcmsg_comm_free(&d[i]);
            }
        }
        return s != RCMSG_OK ? mpi_err_rcmsg(c, call, s)
                             : mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    memcpy(remote, c->remote_members, (size_t)c->remote_size * sizeof(int));
    return mpi_inter_wrap(c, call, d[0], d[1], d[2], c->remote_size, remote, c->local_off == 0,
                          newcomm);
}

/* The members of one group of c (union ranks off .. off + n - 1 in all[2 * i]: color, key)
 * with color, ordered by (key, rank): their ranks in that group into order (*count_p of them). */
static void inter_split_group(const int32_t *all, int off, int n, int color, int *order,
                              int *count_p)
{
    int m = 0;

    for (int i = 0; i < n; i++) {
        int j = m++;

        if (all[2 * (off + i)] != color) {
            m--;
            continue;
        }
        while (j > 0 && all[2 * (off + order[j - 1]) + 1] > all[2 * (off + i) + 1]) {
            order[j] = order[j - 1]; /* insertion by key; equal keys keep the rank order */
            j--;
        }
        order[j] = i;
    }
    *count_p = m;
}

/* Splits of an intercommunicator (the members of this rank's piece: see mpi_objects.h). */
static int inter_split_make(mpi_comm_t *c, const char *call, int color, const int *lord, int nl,
                            const int *rord, int nr, MPI_Comm *newcomm)
{
    bool in = color != RCMSG_UNDEFINED && nl > 0 && nr > 0;
    bool low = c->local_off == 0;
    int me = -1, n = c->size + c->remote_size;
    int *remote = in ? malloc((size_t)nr * sizeof(int)) : NULL;
    int *members = in ? malloc((size_t)nl * sizeof(int)) : NULL;
    rcmsg_comm_t rc = RCMSG_COMM_NULL, local_rc = RCMSG_COMM_NULL;
    rcmsg_status_t s = in && (remote == NULL || members == NULL) ? RCMSG_ERR_NO_MEMORY : RCMSG_OK;
    mpi_comm_t piece = *c;
    int err;

    for (int i = 0; in && s == RCMSG_OK && i < nl; i++) {
        members[i] = c->members[lord[i]];
        me = lord[i] == c->rank ? i : me;
    }
    for (int i = 0; in && s == RCMSG_OK && i < nr; i++) {
        remote[i] = c->remote_members[rord[i]];
    }
    /* every member of both groups takes part in both splits, those left out too */
    if (s == RCMSG_OK) {
        s = rcmsg_comm_split(c->rc, in ? color : RCMSG_UNDEFINED, (low ? 0 : n) + me, &rc);
    }
    if (s == RCMSG_OK) {
        s = rcmsg_comm_split(c->local_rc, in ? color : RCMSG_UNDEFINED, me, &local_rc);
    }
    if (s != RCMSG_OK || !in) {
        if (rc != RCMSG_COMM_NULL) {
            rcmsg_comm_free(&rc);
        }
        if (local_rc != RCMSG_COMM_NULL) {
            rcmsg_comm_free(&local_rc);
        }
        free(remote);
        free(members);
        *newcomm = MPI_COMM_NULL;
        return s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(c, call, s);
    }
    piece.rank = me;
    piece.size = nl;
    piece.members = members;
    err = mpi_inter_wrap(&piece, call, rc, local_rc, RCMSG_COMM_NULL, nr, remote, low, newcomm);
    free(members);
    return err;
}

int mpi_inter_split(mpi_comm_t *c, const char *call, int color, int key, MPI_Comm *newcomm)
{
    int n = c->size + c->remote_size, nl = 0, nr = 0;
    int32_t mine[2] = {color, key};
    int32_t *all = malloc((size_t)n * 2 * sizeof(int32_t));
    int *lord = malloc((size_t)c->size * sizeof(int));
    int *rord = malloc((size_t)c->remote_size * sizeof(int));
    rcmsg_status_t s = all == NULL || lord == NULL || rord == NULL ? RCMSG_ERR_NO_MEMORY : RCMSG_OK;
    int err;

    if (s == RCMSG_OK) {
        s = rcmsg_allgather(mine, all, 2, RCMSG_INT32, c->rc);
    }
    if (s != RCMSG_OK) {
        free(all);
        free(lord);
        free(rord);
        return mpi_err_rcmsg(c, call, s);
    }
    if (color != RCMSG_UNDEFINED) {
        inter_split_group(all, c->local_off, c->size, color, lord, &nl);
        inter_split_group(all, c->peer_off, c->remote_size, color, rord, &nr);
    }
    err = inter_split_make(c, call, color, lord, nl, rord, nr, newcomm);
    free(all);
    free(lord);
    free(rord);
    return err;
}
