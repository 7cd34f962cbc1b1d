/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Intercommunicators. Intercomm_create: the two leaders swap their groups' world ranks over
 * peer_comm (with the user's tag), each broadcasts the other group to its own; then every
 * member of both groups makes the same rcmsg communicator of the union (the group of the
 * leader with the lower world rank first) with rcmsg_comm_create_ranks, keyed by that leader.
 * Point-to-point on it names remote ranks (mpi_comm_rc_peer adds peer_off). The collectives
 * run over p2p on a hidden duplicate of the union (coll_rc) and rcmsg's collectives in each
 * group (local_rc, a duplicate of local_comm): data crosses between the groups' rank 0s, or
 * between a root and each remote rank.
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>
#include <string.h>

/* what a leader tells its group: the remote group's size (-1: failed), the key, which is low */
typedef struct {
    int32_t remote_size;
    int32_t key;
    int32_t low;
} inter_info_t;

/* The leader's part over peer (an rcmsg communicator: remote, the remote leader's rank in it;
 * low: this group goes first in the union, the remote leader deciding the opposite): swaps
 * sizes, keys and members with the remote leader.
 * *remote_p: the remote group's world ranks. Errors are raised here; info->remote_size stays -1
 * then, so that the group fails too instead of waiting. */
static int leader_exchange(mpi_comm_t *c, const char *call, rcmsg_comm_t peer, int remote, bool low,
                           int tag, inter_info_t *info, int **remote_p)
{
    inter_info_t mine = {c->size, (int32_t)mpi_comm_next_key(), 0}, theirs;
    rcmsg_status_t s;

    s = rcmsg_sendrecv(&mine, sizeof(mine), remote, tag, &theirs, sizeof(theirs), remote, tag, peer,
                       NULL);
    if (s == RCMSG_OK && (theirs.remote_size <= 0 ||
                          (*remote_p = malloc((size_t)theirs.remote_size * sizeof(int))) == NULL)) {
        s = theirs.remote_size <= 0 ? RCMSG_ERR_PEER_DATA : RCMSG_ERR_NO_MEMORY;
    }
    if (s == RCMSG_OK) {
        s = rcmsg_sendrecv(c->members, (size_t)c->size * sizeof(int), remote, tag, *remote_p,
                           (size_t)theirs.remote_size * sizeof(int), remote, tag, peer, NULL);
    }
    if (s != RCMSG_OK) {
        return mpi_err_rcmsg(c, call, s);
    }
    info->remote_size = theirs.remote_size;
    info->low = low;
    info->key = info->low ? mine.key : theirs.key;
    return MPI_SUCCESS;
}

/* MPI_Intercomm_create's leader: its arguments checked, then the exchange over peer_comm. */
static int leader_swap(mpi_comm_t *c, MPI_Comm peer_comm, int remote_leader, int tag,
                       inter_info_t *info, int **remote_p)
{
    const char *call = "MPI_Intercomm_create";
    int err;
    mpi_comm_t *p = mpi_comm_check(peer_comm, call, &err);

    if (p == NULL) {
        return err;
    }
    if (p->inter || remote_leader < 0 || remote_leader >= p->size || remote_leader == p->rank ||
        (err = mpi_check_tag(p, call, tag, false)) != MPI_SUCCESS) {
        return p->inter ? mpi_err(c, call, MPI_ERR_COMM, "peer_comm is an intercommunicator")
               : remote_leader < 0 || remote_leader >= p->size || remote_leader == p->rank
                   ? mpi_err(c, call, MPI_ERR_RANK,
                             "remote_leader %d is not another rank of peer_comm (size %d)",
                             remote_leader, p->size)
                   : err;
    }
    return leader_exchange(c, call, p->rc, remote_leader, rcmsg_rank() < p->members[remote_leader],
                           tag, info, remote_p);
}

/* every member: the union (low group first) as an rcmsg communicator of the world */
static rcmsg_status_t union_create(mpi_comm_t *c, const inter_info_t *info, const int *remote,
                                   rcmsg_comm_t *rc_p)
{
    int n = c->size + info->remote_size;
    int *all = malloc((size_t)n * sizeof(int));
    int off = info->low ? 0 : info->remote_size;
    rcmsg_status_t s;

    if (all == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    memcpy(all + off, c->members, (size_t)c->size * sizeof(int));
    memcpy(all + (info->low ? c->size : 0), remote, (size_t)info->remote_size * sizeof(int));
    s = rcmsg_comm_create_ranks(rcmsg_comm_world(), n, all, (uint32_t)info->key, rc_p);
    free(all);
    return s;
}

static int inter_finish(mpi_comm_t *c, const char *call, int local_leader, int err,
                        inter_info_t *info_p, int *remote, MPI_Comm *newintercomm);

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm)
{
    MPI_MT_GUARD();
    const char *call = "MPI_Intercomm_create";
    int err = MPI_SUCCESS, *remote = NULL;
    mpi_comm_t *c;
    inter_info_t info = {0};

    MPI_CHECK_ACTIVE(call);
    if ((c = mpi_comm_check(local_comm, call, &err)) == NULL) {
        return err;
    }
    if (c->inter || newintercomm == NULL || local_leader < 0 || local_leader >= c->size) {
        return mpi_err(c, call, c->inter ? MPI_ERR_COMM : MPI_ERR_ARG,
                       c->inter               ? "local_comm is an intercommunicator"
                       : newintercomm == NULL ? "NULL newintercomm"
                                              : "local_leader %d is not a rank of local_comm",
                       local_leader);
    }
    if (c->rank == local_leader) {
        info.remote_size = -1;
        err = leader_swap(c, peer_comm, remote_leader, tag, &info, &remote);
    }
    return inter_finish(c, call, local_leader, err, &info, remote, newintercomm);
}

/* Every member of local group c, once its leader (local_leader) swapped the groups (info and
 * remote, err its outcome): the leader's news, then the union and the intercommunicator. */
static int inter_finish(mpi_comm_t *c, const char *call, int local_leader, int err,
                        inter_info_t *info_p, int *remote, MPI_Comm *newintercomm)
{
    inter_info_t info = *info_p;
    rcmsg_comm_t rc, local_rc;
    rcmsg_status_t s;

    s = rcmsg_bcast(&info, 3, RCMSG_INT32, local_leader, c->rc);
    if (s == RCMSG_OK && info.remote_size < 0) {
        free(remote);
        return err != MPI_SUCCESS ? err
                                  : mpi_err(c, call, MPI_ERR_OTHER,
                                            "the local leader (rank %d) failed", local_leader);
    }
    if (s == RCMSG_OK && c->rank != local_leader) {
        remote = malloc((size_t)info.remote_size * sizeof(int));
        s = remote == NULL ? RCMSG_ERR_NO_MEMORY : RCMSG_OK;
    }
    if (s == RCMSG_OK) {
        s = rcmsg_bcast(remote, (size_t)info.remote_size, RCMSG_INT32, local_leader, c->rc);
    }
    if (s == RCMSG_OK) {
        s = union_create(c, &info, remote, &rc);
    }
    if (s == RCMSG_OK && (s = rcmsg_comm_dup(c->rc, &local_rc)) != RCMSG_OK) {
        rcmsg_comm_free(&rc);
    }
    if (s != RCMSG_OK) {
        free(remote);
        return mpi_err_rcmsg(c, call, s);
    }
    return mpi_inter_wrap(c, call, rc, local_rc, RCMSG_COMM_NULL, info.remote_size, remote,
                          info.low, newintercomm);
}

int mpi_inter_connect(mpi_comm_t *c, const char *call, int leader, int leader_err,
                      rcmsg_comm_t peer, int remote, int tag, bool low, MPI_Comm *newintercomm)
{
    inter_info_t info = {0};
    int *remote_ranks = NULL, err = leader_err;

    if (c->rank == leader) {
        info.remote_size = -1;
        if (err == MPI_SUCCESS) {
            err = leader_exchange(c, call, peer, remote, low, tag, &info, &remote_ranks);
        }
    }
    return inter_finish(c, call, leader, err, &info, remote_ranks, newintercomm);
}

/* the intercommunicator of a call, or NULL with the error raised */
static mpi_comm_t *inter_check(MPI_Comm comm, const char *call, int *err_p)
{
    mpi_comm_t *c = mpi_comm_check(comm, call, err_p);

    if (c != NULL && !c->inter) {
        *err_p = mpi_err(c, call, MPI_ERR_COMM, "%s is not an intercommunicator", c->name);
        return NULL;
    }
    return c;
}

/* Merge: a split of the union; the group that passed high = 0 first (both the same: the low
 * group first) */
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    MPI_MT_GUARD();
    const char *call = "MPI_Intercomm_merge";
    int err, n, *highs, *members;
    int32_t mine = high != 0;
    mpi_comm_t *c;
    rcmsg_comm_t rc;
    rcmsg_status_t s;
    bool first;

    MPI_CHECK_ACTIVE(call);
    if ((c = inter_check(intercomm, call, &err)) == NULL) {
        return err;
    }
    if (newintracomm == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL newintracomm");
    }
    n = c->size + c->remote_size;
    highs = malloc((size_t)n * sizeof(int));
    members = malloc((size_t)n * sizeof(int));
    s = highs == NULL || members == NULL ? RCMSG_ERR_NO_MEMORY
                                         : rcmsg_allgather(&mine, highs, 1, RCMSG_INT32, c->rc);
    if (s != RCMSG_OK) {
        free(highs);
        free(members);
        return mpi_err_rcmsg(c, call, s);
    }
    first = highs[c->local_off] != highs[c->peer_off] ? !highs[c->local_off] : c->local_off == 0;
    free(highs);
    memcpy(members + (first ? 0 : c->remote_size), c->members, (size_t)c->size * sizeof(int));
    memcpy(members + (first ? c->size : 0), c->remote_members,
           (size_t)c->remote_size * sizeof(int));
    s = rcmsg_comm_split(c->rc, 0, first ? c->rank : c->remote_size + c->rank, &rc);
    if (s != RCMSG_OK) {
        free(members);
        return mpi_err_rcmsg(c, call, s);
    }
    err = mpi_comm_wrap(c, call, rc, members, newintracomm);
    free(members);
    return err;
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE("MPI_Comm_test_inter");
    if ((c = mpi_comm_check(comm, "MPI_Comm_test_inter", &err)) == NULL) {
        return err;
    }
    if (flag == NULL) {
        return mpi_err(c, "MPI_Comm_test_inter", MPI_ERR_ARG, "NULL flag");
    }
    *flag = c->inter;
    return MPI_SUCCESS;
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE("MPI_Comm_remote_size");
    if ((c = inter_check(comm, "MPI_Comm_remote_size", &err)) == NULL) {
        return err;
    }
    if (size == NULL) {
        return mpi_err(c, "MPI_Comm_remote_size", MPI_ERR_ARG, "NULL size");
    }
    *size = c->remote_size;
    return MPI_SUCCESS;
}
