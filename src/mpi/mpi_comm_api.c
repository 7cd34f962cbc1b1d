/* SPDX-License-Identifier: BSD-3-Clause */
/* The calls of communicators (bindings over mpi_comm.c's objects): rank, size, dup, split,
 * create, free, compare, names. */
#include "mpi/mpi_engines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Comm_rank (size false) and Comm_size (size true) */
static int comm_get_int(const char *call, MPI_Comm comm, bool size, int *out)
{
    int err;
    mpi_comm_t *c = mpi_comm_enter(comm, call, &err);

    if (c != NULL && out == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "%s is NULL", size ? "size" : "rank");
    }
    if (c != NULL) {
        *out = size ? c->size : c->rank;
    }
    return err;
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    MPI_MT_GUARD();
    return comm_get_int("MPI_Comm_rank", comm, false, rank);
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    MPI_MT_GUARD();
    return comm_get_int("MPI_Comm_size", comm, true, size);
}

static int comm_wrap(mpi_comm_t *c, const char *call, rcmsg_comm_t rc, MPI_Comm *newcomm)
{
    return mpi_comm_wrap(c, call, rc, NULL, newcomm);
}

/* A duplicate of c with its attributes copied (their copy callbacks called), and its hints
 * unless with_info (Comm_dup_with_info: the info's instead, MPI-4.0 7.4.2). The members are
 * c's; rcmsg_comm_dup is collective over c (the context is agreed). */
static int comm_dup(mpi_comm_t *c, const char *call, bool with_info, MPI_Comm *newcomm)
{
    int err;
    rcmsg_comm_t rc;
    rcmsg_status_t s;
    MPI_Comm nc;

    if (newcomm == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL newcomm");
    }
    *newcomm = MPI_COMM_NULL; /* a dup that fails leaves no stale handle (as Type_dup) */
    if (c->inter) {
        err = mpi_inter_dup(c, call, &nc);
    } else {
        s = rcmsg_comm_dup(c->rc, &rc);
        if (s != RCMSG_OK) {
            return mpi_err_rcmsg(c, call, s);
        }
        err = mpi_comm_wrap(c, call, rc, c->members, &nc);
    }
    if (err != MPI_SUCCESS) {
        return err;
    }
    mpi_comm_get(nc)->hw_type = with_info ? NULL : c->hw_type;
    /* the topology too (MPI: Comm_dup keeps it) */
    if (c->topo != NULL && (mpi_comm_get(nc)->topo = mpi_topo_copy(c->topo)) == NULL) {
        err = MPI_ERR_NO_MEM;
    }
    err = err == MPI_SUCCESS ? mpi_attr_copy_all(c, mpi_comm_get(nc)) : err;
    if (err != MPI_SUCCESS) {
        mpi_comm_t *n = mpi_comm_get(nc);

        mpi_attr_delete_all(n);
        mpi_handle_release(MPI_KIND_COMM_, nc);
        mpi_comm_unref(n);
        return mpi_err(c, call, err, "%s",
                       err == MPI_ERR_NO_MEM ? "out of memory for the topology"
                                             : "an attribute's copy callback failed");
    }
    *newcomm = nc;
    return MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c;

    c = mpi_comm_enter(comm, "MPI_Comm_dup", &err);
    if (c == NULL) {
        return err;
    }
    return comm_dup(c, "MPI_Comm_dup", false, newcomm);
}

/* Comm_dup_with_info: a dup; info is checked, its hints not read (rcmsg uses none) */
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Comm_dup_with_info";
    int err;
    mpi_comm_t *c = mpi_comm_enter(comm, call, &err);

    if (c == NULL) {
        return err;
    }
    if (info != MPI_INFO_NULL && mpi_info_get(info) == NULL) {
        return mpi_err(c, call, MPI_ERR_INFO, "invalid info %#x", (unsigned)info);
    }
    return comm_dup(c, call, true, newcomm);
}

/* Comm_idup and Comm_idup_with_info (info checked, its hints not read). Nonblocking: returns
 * at once, the context agreed while the request runs (mpi_idup_req.c; an intercommunicator's
 * by both groups); *newcomm is written when it completes. */
static int comm_idup(MPI_Comm comm, bool with_info, MPI_Info info, const char *call,
                     MPI_Comm *newcomm, MPI_Request *request)
{
    int err;
    mpi_comm_t *c;

    c = mpi_comm_enter(comm, call, &err);
    if (c == NULL) {
        return err;
    }
    if (request == NULL || newcomm == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL %s", request == NULL ? "request" : "newcomm");
    }
    if (info != MPI_INFO_NULL && mpi_info_get(info) == NULL) {
        return mpi_err(c, call, MPI_ERR_INFO, "invalid info %#x", (unsigned)info);
    }
    return mpi_idup_req_start(c, call, with_info, newcomm, request);
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return comm_idup(comm, false, MPI_INFO_NULL, "MPI_Comm_idup", newcomm, request);
}

int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return comm_idup(comm, true, info, "MPI_Comm_idup_with_info", newcomm, request);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c;
    rcmsg_comm_t rc;
    rcmsg_status_t s;

    c = mpi_comm_enter(comm, "MPI_Comm_split", &err);
    if (c == NULL) {
        return err;
    }
    if (newcomm == NULL) {
        return mpi_err(c, "MPI_Comm_split", MPI_ERR_ARG, "NULL newcomm");
    }
    if (c->inter) {
        return mpi_inter_split(c, "MPI_Comm_split",
                               color == MPI_UNDEFINED ? RCMSG_UNDEFINED : color, key, newcomm);
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

/* Comm_create and Comm_create_group: every member of g is a member of c */
static int comm_check_subgroup(mpi_comm_t *c, const char *call, const mpi_group_t *g)
{
    for (int i = 0; i < g->size; i++) {
        bool found = false;

        for (int j = 0; j < c->size && !found; j++) {
            found = c->members[j] == g->members[i];
        }
        if (!found) {
            return mpi_err(c, call, MPI_ERR_GROUP,
                           "rank %d of the group (world rank %d) is not in %s", i, g->members[i],
                           c->name);
        }
    }
    return MPI_SUCCESS;
}

/* Comm_create: collective over comm, a split ranked as in the group. Every rank passes the
 * group it will belong to (MPI-2.2: the groups of different ranks may differ but then are
 * disjoint), so the color is the rank in comm of its group's rank 0: the same for the members
 * of one group, different for disjoint ones. A rank outside the group it passed gets
 * MPI_COMM_NULL. */
static int create_color(mpi_comm_t *c, const mpi_group_t *g, int me)
{
    if (me == MPI_UNDEFINED) {
        return RCMSG_UNDEFINED;
    }
    for (int j = 0; j < c->size; j++) {
        if (c->members[j] == g->members[0]) {
            return j;
        }
    }
    return RCMSG_UNDEFINED; /* (never: comm_check_subgroup found every member) */
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    MPI_MT_GUARD();
    const char *call = "MPI_Comm_create";
    int err, me;
    mpi_comm_t *c;
    mpi_group_t *g;
    rcmsg_comm_t rc;
    rcmsg_status_t s;

    if ((c = mpi_comm_enter(comm, call, &err)) == NULL) {
        return err;
    }
    if ((g = mpi_group_get(group)) == NULL || newcomm == NULL) {
        return mpi_err(c, call, g == NULL ? MPI_ERR_GROUP : MPI_ERR_ARG,
                       g == NULL ? "invalid group %#x" : "NULL newcomm", (unsigned)group);
    }
    if ((err = comm_check_subgroup(c, call, g)) != MPI_SUCCESS) {
        return err;
    }
    me = mpi_group_rank_of(g, c->members[c->rank]);
    if (c->inter) { /* g: a subgroup of the local group; the pieces of both groups meet */
        return mpi_inter_split(c, call, me == MPI_UNDEFINED ? RCMSG_UNDEFINED : 0, me, newcomm);
    }
    s = rcmsg_comm_split(c->rc, create_color(c, g, me), me, &rc);
    if (s != RCMSG_OK) {
        return mpi_err_rcmsg(c, call, s);
    }
    if (rc == RCMSG_COMM_NULL) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (rcmsg_comm_size(rc) != g->size || rcmsg_comm_rank(rc) != me) {
        rcmsg_comm_free(&rc);
        return mpi_err(c, call, MPI_ERR_GROUP,
                       "the members of this rank's group (%d rank(s)) passed other groups: the "
                       "groups must be the same on its members and disjoint from the others",
                       g->size);
    }
    return mpi_comm_wrap(c, call, rc, g->members, newcomm);
}

/* Comm_create_group: collective over the group only. Its rank 0 sends a fresh key to the
 * others over comm with tag (the user's tag, as MPI says); then each makes the communicator of
 * the group's members from the world with rcmsg_comm_create_ranks (no other message). A send
 * that fails (a member lost) does not stop the others: each member that has the key fails in
 * rcmsg_comm_create_ranks on that loss instead of waiting for a key that never comes. */
static rcmsg_status_t create_group_key(mpi_comm_t *c, mpi_group_t *g, int me, int tag,
                                       uint32_t *key_p)
{
    rcmsg_status_t s = RCMSG_OK;
    int leader = -1; /* the rank in c of the group's rank 0 */

    for (int j = 0; j < c->size; j++) {
        leader = c->members[j] == g->members[0] ? j : leader;
    }
    if (me > 0) {
        return rcmsg_recv(key_p, sizeof(*key_p), leader, tag, c->rc, NULL);
    }
    *key_p = mpi_comm_next_key();
    for (int i = 1; i < g->size; i++) {
        for (int j = 0; j < c->size; j++) {
            rcmsg_status_t e = c->members[j] == g->members[i]
                                   ? rcmsg_send(key_p, sizeof(*key_p), j, tag, c->rc)
                                   : RCMSG_OK;

            s = s == RCMSG_OK ? e : s;
        }
    }
    return s;
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    MPI_MT_GUARD();
    const char *call = "MPI_Comm_create_group";
    int err, me;
    mpi_comm_t *c;
    mpi_group_t *g;
    rcmsg_comm_t rc;
    rcmsg_status_t s;
    uint32_t key;

    if ((c = mpi_comm_enter(comm, call, &err)) == NULL) {
        return err;
    }
    if ((g = mpi_group_get(group)) == NULL || newcomm == NULL) {
        return mpi_err(c, call, g == NULL ? MPI_ERR_GROUP : MPI_ERR_ARG,
                       g == NULL ? "invalid group %#x" : "NULL newcomm", (unsigned)group);
    }
    if (c->inter || (err = mpi_check_tag(c, call, tag, false)) != MPI_SUCCESS) {
        return c->inter ? mpi_err(c, call, MPI_ERR_COMM, "intercommunicators are not supported")
                        : err;
    }
    me = mpi_group_rank_of(g, c->members[c->rank]);
    if (me == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if ((err = comm_check_subgroup(c, call, g)) != MPI_SUCCESS) {
        return err;
    }
    s = create_group_key(c, g, me, tag, &key);
    if (s == RCMSG_OK) {
        s = rcmsg_comm_create_ranks(rcmsg_comm_world(), g->size, g->members, key, &rc);
    }
    if (s != RCMSG_OK) {
        return mpi_err_rcmsg(c, call, s);
    }
    return mpi_comm_wrap(c, call, rc, g->members, newcomm);
}

/* Comm_split_type's node color: the lowest rank of comm on the same host (the host names
 * allgathered: rcmsg.h does not say which ranks share a node); *several_p: comm spans more
 * than one host */
static rcmsg_status_t node_color(mpi_comm_t *c, int *color_p, bool *several_p)
{
    int n = rcmsg_comm_size(c->rc); /* of an intercommunicator: both groups */
    char(*names)[MPI_MAX_PROCESSOR_NAME] = calloc((size_t)n, sizeof(*names));
    char mine[MPI_MAX_PROCESSOR_NAME] = {0};
    rcmsg_status_t s;

    if (names == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    if (gethostname(mine, sizeof(mine)) != 0) { /* as MPI_Get_processor_name */
        strcpy(mine, "unknown");
    }
    mine[sizeof(mine) - 1] = '\0';
    s = rcmsg_allgather(mine, names, sizeof(mine), RCMSG_UINT8, c->rc);
    *color_p = RCMSG_UNDEFINED;
    *several_p = false;
    for (int i = 0; s == RCMSG_OK && i < n; i++) {
        if (*color_p == RCMSG_UNDEFINED && strcmp(names[i], mine) == 0) {
            *color_p = i;
        }
        *several_p = *several_p || strcmp(names[i], names[0]) != 0;
    }
    free(names);
    return s;
}

/* The hardware resource type of this rank's piece (MPI-4.0 7.4.2), NULL: MPI_COMM_NULL (for
 * MPI_UNDEFINED, a GUIDED type other than "mpi_shared_memory" or none, an UNGUIDED split of
 * comm on one node: the node is the finest domain rcmsg knows, and comm is all of it). */
static const char *split_hw_type(int split_type, const mpi_info_t *info, bool several)
{
    static const char shm[] = "mpi_shared_memory";
    int n = info != NULL ? mpi_info_find(info, "mpi_hw_resource_type") : -1;

    switch (split_type) {
    case MPI_COMM_TYPE_SHARED:
        return shm;
    case MPI_COMM_TYPE_HW_UNGUIDED:
        return several ? shm : NULL;
    case MPI_COMM_TYPE_HW_GUIDED:
        return n >= 0 && strcmp(info->values[n], shm) == 0 ? shm : NULL;
    default:
        return NULL;
    }
}

/* the communicator of c's ranks of this color (RCMSG_UNDEFINED: MPI_COMM_NULL) */
static int split_color(mpi_comm_t *c, const char *call, int color, int key, MPI_Comm *newcomm)
{
    rcmsg_comm_t rc;
    rcmsg_status_t s;

    if (c->inter) { /* each node's ranks of both groups */
        return mpi_inter_split(c, call, color, key, newcomm);
    }
    s = rcmsg_comm_split(c->rc, color, key, &rc);
    if (s != RCMSG_OK) {
        return mpi_err_rcmsg(c, call, s);
    }
    if (rc == RCMSG_COMM_NULL) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    return comm_wrap(c, call, rc, newcomm);
}

static int comm_release(const char *call, mpi_comm_t *c, MPI_Comm *comm);

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    MPI_MT_GUARD();
    const char *call = "MPI_Comm_split_type", *hw;
    int err, color;
    bool several;
    mpi_comm_t *c;
    mpi_info_t *i = NULL;
    rcmsg_status_t s;

    if ((c = mpi_comm_enter(comm, call, &err)) == NULL) {
        return err;
    }
    if (newcomm == NULL ||
        (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED &&
         split_type != MPI_COMM_TYPE_HW_GUIDED && split_type != MPI_COMM_TYPE_HW_UNGUIDED)) {
        return mpi_err(c, call, newcomm == NULL ? MPI_ERR_ARG : MPI_ERR_COMM,
                       newcomm == NULL ? "NULL newcomm"
                                       : "split_type %d is not supported (only "
                                         "MPI_COMM_TYPE_SHARED, _HW_GUIDED, _HW_UNGUIDED and "
                                         "MPI_UNDEFINED)",
                       split_type);
    }
    if (info != MPI_INFO_NULL && (i = mpi_info_get(info)) == NULL) {
        return mpi_err(c, call, MPI_ERR_INFO, "invalid info %#x", (unsigned)info);
    }
    /* every rank takes part in the exchange, an UNDEFINED one too */
    s = node_color(c, &color, &several);
    if (s != RCMSG_OK) {
        return mpi_err_rcmsg(c, call, s);
    }
    hw = split_hw_type(split_type, i, several);
    err = split_color(c, call, hw != NULL ? color : RCMSG_UNDEFINED, key, newcomm);
    if (err != MPI_SUCCESS || *newcomm == MPI_COMM_NULL) {
        return err;
    }
    mpi_comm_get(*newcomm)->hw_type = hw;
    /* UNGUIDED: the type chosen also in the program's info, as MPICH does (its
     * comm/cmsplit_type reads it there) */
    if (split_type == MPI_COMM_TYPE_HW_UNGUIDED && i != NULL && !mpi_info_is_env(i) &&
        mpi_info_put(i, "mpi_hw_resource_type", hw) != MPI_SUCCESS) {
        comm_release(call, mpi_comm_get(*newcomm), newcomm); /* the call failed: none made */
        return mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    return MPI_SUCCESS;
}

/* The checks of Comm_free and Comm_disconnect: the communicator behind *comm, not WORLD or SELF */
static mpi_comm_t *comm_to_free(const char *call, const MPI_Comm *comm, int *err_p)
{
    mpi_comm_t *c;

    if (comm == NULL) {
        *err_p = mpi_err(NULL, call, MPI_ERR_ARG, "NULL comm");
        return NULL;
    }
    if ((c = mpi_comm_check(*comm, call, err_p)) == NULL) {
        return NULL;
    }
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) {
        *err_p = mpi_err(c, call, MPI_ERR_COMM, "%s cannot be freed", c->name);
        return NULL;
    }
    return c;
}

/* Its attributes deleted, the handle released, *comm set to MPI_COMM_NULL. */
static int comm_release(const char *call, mpi_comm_t *c, MPI_Comm *comm)
{
    int err = mpi_attr_delete_all(c);

    if (err != MPI_SUCCESS) {
        return mpi_err(c, call, err, "an attribute's delete callback failed");
    }
    /* requests still using it keep the object (and the rcmsg communicator) until they end */
    mpi_handle_release(MPI_KIND_COMM_, *comm);
    mpi_comm_unref(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE("MPI_Comm_free");
    if ((c = comm_to_free("MPI_Comm_free", comm, &err)) == NULL) {
        return err;
    }
    return comm_release("MPI_Comm_free", c, comm);
}

/* MPI-3.1 10.5.4, on any communicator (the program's communication on it complete, as MPI
 * says): a barrier of its members (both groups of an intercommunicator), then Comm_free. */
int MPI_Comm_disconnect(MPI_Comm *comm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Comm_disconnect";
    int err;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE(call);
    if ((c = comm_to_free(call, comm, &err)) == NULL) {
        return err;
    }
    err = c->inter ? mpi_inter_barrier(c) : coll_status(c, call, rcmsg_barrier(c->rc));
    if (err != MPI_SUCCESS) {
        return err;
    }
    return comm_release(call, c, comm);
}
MPI_PMPI_ALIAS(Comm_disconnect, (MPI_Comm * comm));

/* MPI-3.1 10.3.2: a process started by MPI_Init or MPI_Init_thread (every process here: rcmsg
 * spawns none) has no parent, MPI_COMM_NULL. */
int MPI_Comm_get_parent(MPI_Comm *parent)
{
    MPI_MT_GUARD();

    MPI_CHECK_ACTIVE("MPI_Comm_get_parent");
    if (parent == NULL) {
        return mpi_err(NULL, "MPI_Comm_get_parent", MPI_ERR_ARG, "NULL parent");
    }
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
MPI_PMPI_ALIAS(Comm_get_parent, (MPI_Comm * parent));

/* CONGRUENT: the same members in the same order; SIMILAR: the same members; else UNEQUAL */
static int members_compare(int na, const int *a, int nb, const int *b)
{
    bool same_order = true;

    if (na != nb) {
        return MPI_UNEQUAL;
    }
    for (int i = 0; i < na; i++) {
        bool found = false;

        same_order = same_order && a[i] == b[i];
        for (int j = 0; !same_order && !found && j < nb; j++) {
            found = a[i] == b[j];
        }
        if (!same_order && !found) {
            return MPI_UNEQUAL;
        }
    }
    return same_order ? MPI_CONGRUENT : MPI_SIMILAR;
}

/* Two distinct communicators: an intercommunicator compares both its groups (the weaker
 * answer of the two), and never matches an intracommunicator. */
static int comm_compare(const mpi_comm_t *a, const mpi_comm_t *b)
{
    int local, remote;

    if (a->inter != b->inter) {
        return MPI_UNEQUAL;
    }
    local = members_compare(a->size, a->members, b->size, b->members);
    if (!a->inter || local == MPI_UNEQUAL) {
        return local;
    }
    remote = members_compare(a->remote_size, a->remote_members, b->remote_size, b->remote_members);
    return remote == MPI_CONGRUENT ? local : remote;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    MPI_MT_GUARD();
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
    if (result == NULL) {
        return mpi_err(a, "MPI_Comm_compare", MPI_ERR_ARG, "NULL result");
    }
    *result = a == b ? MPI_IDENT : comm_compare(a, b);
    return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c;

    c = mpi_comm_enter(comm, "MPI_Comm_set_name", &err);
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
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c;

    c = mpi_comm_enter(comm, "MPI_Comm_get_name", &err);
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
