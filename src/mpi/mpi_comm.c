/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicators: the MPI object around an rcmsg communicator (its handle, rank, size, error
 * handler and name). COMM_WORLD is rcmsg's world; COMM_SELF is a split of it by rank, made
 * by Init (a collective over the world, as every rank calls Init). Groups, Comm_create and
 * intercommunicators come later; the object is where their fields will go.
 */
#include "mpi/mpi_impl.h"

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

mpi_comm_t *mpi_comm_get(MPI_Comm comm)
{
    return mpi_handle_get(MPI_KIND_COMM_, comm);
}

mpi_comm_t *mpi_comm_check(MPI_Comm comm, const char *call, int *err_p)
{
    mpi_comm_t *c = mpi_handle_get(MPI_KIND_COMM_, comm);

    if (c == NULL) {
        *err_p = mpi_err(NULL, call, MPI_ERR_COMM,
                         comm == MPI_COMM_NULL ? "MPI_COMM_NULL is not a communicator"
                                               : "invalid communicator %#x",
                         (unsigned)comm);
    }
    return c;
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
    if (c->coll != NULL) {
        rcmsg_comm_free(&c->coll); /* the collectives' hidden duplicate (mpi_coll.c) */
    }
    if (c->handle != MPI_COMM_WORLD) {
        rcmsg_comm_free(&c->rc);
    }
    mpi_err_comm_release(c);
    free(c->members);
    free(c);
}

void mpi_comm_fini(void)
{
    mpi_comm_t *c;

    /* COMM_SELF and COMM_WORLD; communicators the program did not free stay for
     * rcmsg_finalize to release */
    c = mpi_comm_get(MPI_COMM_SELF);
    if (c != NULL) {
        mpi_handle_release(MPI_KIND_COMM_, MPI_COMM_SELF);
        mpi_comm_unref(c);
    }
    c = mpi_comm_get(MPI_COMM_WORLD);
    if (c != NULL) {
        mpi_handle_release(MPI_KIND_COMM_, MPI_COMM_WORLD);
        mpi_comm_unref(c);
    }
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    int err;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE("MPI_Comm_rank");
    c = mpi_comm_check(comm, "MPI_Comm_rank", &err);
    if (c == NULL) {
        return err;
    }
    *rank = c->rank;
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    int err;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE("MPI_Comm_size");
    c = mpi_comm_check(comm, "MPI_Comm_size", &err);
    if (c == NULL) {
        return err;
    }
    *size = c->size;
    return MPI_SUCCESS;
}

/* wraps a new rcmsg communicator made from c under a new handle */
static int comm_wrap(mpi_comm_t *c, const char *call, rcmsg_comm_t rc, MPI_Comm *newcomm)
{
    mpi_comm_t *n;
    int err;
    rcmsg_status_t s;

    n = comm_new(rc, "");
    if (n == NULL) {
        rcmsg_comm_free(&rc);
        return mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    s = comm_learn_members(n);
    if (s != RCMSG_OK) {
        rcmsg_comm_free(&rc);
        free(n->members);
        free(n);
        return mpi_err_rcmsg(c, call, s);
    }
    err = mpi_handle_alloc(MPI_KIND_COMM_, n, &n->handle);
    if (err != MPI_SUCCESS) {
        rcmsg_comm_free(&rc);
        free(n);
        return mpi_err(c, call, err, "out of communicator handles");
    }
    mpi_err_inherit(c, n);
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    int err;
    mpi_comm_t *c;
    rcmsg_comm_t rc;
    rcmsg_status_t s;

    MPI_CHECK_ACTIVE("MPI_Comm_dup");
    c = mpi_comm_check(comm, "MPI_Comm_dup", &err);
    if (c == NULL) {
        return err;
    }
    if (newcomm == NULL) {
        return mpi_err(c, "MPI_Comm_dup", MPI_ERR_ARG, "NULL newcomm");
    }
    s = rcmsg_comm_dup(c->rc, &rc);
    if (s != RCMSG_OK) {
        return mpi_err_rcmsg(c, "MPI_Comm_dup", s);
    }
    return comm_wrap(c, "MPI_Comm_dup", rc, newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    int err;
    mpi_comm_t *c;
    rcmsg_comm_t rc;
    rcmsg_status_t s;

    MPI_CHECK_ACTIVE("MPI_Comm_split");
    c = mpi_comm_check(comm, "MPI_Comm_split", &err);
    if (c == NULL) {
        return err;
    }
    if (newcomm == NULL) {
        return mpi_err(c, "MPI_Comm_split", MPI_ERR_ARG, "NULL newcomm");
    }
    /* a negative color other than MPI_UNDEFINED fails on every rank (rcmsg says which) */
    s = rcmsg_comm_split(c->rc, color == MPI_UNDEFINED ? RCMSG_UNDEFINED : color, key, &rc);
    if (s != RCMSG_OK) {
        return mpi_err_rcmsg(c, "MPI_Comm_split", s);
    }
    if (rc == RCMSG_COMM_NULL) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    return comm_wrap(c, "MPI_Comm_split", rc, newcomm);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    int err;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE("MPI_Comm_free");
    if (comm == NULL) {
        return mpi_err(NULL, "MPI_Comm_free", MPI_ERR_ARG, "NULL comm");
    }
    c = mpi_comm_check(*comm, "MPI_Comm_free", &err);
    if (c == NULL) {
        return err;
    }
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) {
        return mpi_err(c, "MPI_Comm_free", MPI_ERR_COMM, "%s cannot be freed", c->name);
    }
    /* requests still using it keep the object (and the rcmsg communicator) until they end */
    mpi_handle_release(MPI_KIND_COMM_, *comm);
    mpi_comm_unref(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* CONGRUENT: the same members in the same order; SIMILAR: the same members; else UNEQUAL */
static int members_compare(const mpi_comm_t *a, const mpi_comm_t *b)
{
    bool same_order = true;

    if (a->size != b->size) {
        return MPI_UNEQUAL;
    }
    for (int i = 0; i < a->size; i++) {
        bool found = false;

        same_order = same_order && a->members[i] == b->members[i];
        for (int j = 0; !same_order && !found && j < b->size; j++) {
            found = a->members[i] == b->members[j];
        }
        if (!same_order && !found) {
            return MPI_UNEQUAL;
        }
    }
    return same_order ? MPI_CONGRUENT : MPI_SIMILAR;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    int err;
    mpi_comm_t *a, *b;

    MPI_CHECK_ACTIVE("MPI_Comm_compare");
    a = mpi_comm_check(comm1, "MPI_Comm_compare", &err);
    if (a == NULL) {
        return err;
    }
    b = mpi_comm_check(comm2, "MPI_Comm_compare", &err);
    if (b == NULL) {
        return err;
    }
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    *result = members_compare(a, b);
    return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    int err;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE("MPI_Comm_set_name");
    c = mpi_comm_check(comm, "MPI_Comm_set_name", &err);
    if (c == NULL) {
        return err;
    }
    if (comm_name == NULL) {
        return mpi_err(c, "MPI_Comm_set_name", MPI_ERR_ARG, "NULL comm_name");
    }
    snprintf(c->name, sizeof(c->name), "%s", comm_name);
    return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    int err;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE("MPI_Comm_get_name");
    c = mpi_comm_check(comm, "MPI_Comm_get_name", &err);
    if (c == NULL) {
        return err;
    }
    if (comm_name == NULL || resultlen == NULL) {
        return mpi_err(c, "MPI_Comm_get_name", MPI_ERR_ARG, "NULL %s",
                       comm_name == NULL ? "comm_name" : "resultlen");
    }
    strcpy(comm_name, c->name);
    *resultlen = (int)strlen(c->name);
    return MPI_SUCCESS;
}
