/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Making an intercommunicator of two groups whose leaders meet over an rcmsg communicator
 * (mpi_inter_connect): MPI_Intercomm_create's (over peer_comm, the program's tag) and the
 * ports' and Comm_join's (mpi_dpm.c, over rcmsg_comm_world_private). The two leaders swap their
 * groups' world ranks, each broadcasts the other group to its own; then every member of both
 * groups makes the same rcmsg communicator of the union (the low group first) with
 * rcmsg_comm_create_ranks, keyed by the low group's leader, and the intercommunicator over it
 * (mpi_inter_wrap).
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
