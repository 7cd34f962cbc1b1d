/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Making and merging intercommunicators (rcmsg.h): communicator constructors made of
 * collectives and of rcmsg_comm_create_ranks, above both. An intercommunicator is a
 * communicator of the union of its two groups, the group of the leader with the lower world
 * rank first, whose inter part (pml.h) says where each group lies; its collectives are
 * src/collectives/coll_inter.c's.
 */
#include "config.h"

#include "base/mt.h"

#include "base/log.h"
#include "pml/pml.h"

#include <rcmsg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* what a leader tells its group: the remote group's size (-1: failed), whether it is low */
typedef struct {
    int32_t remote_size;
    int32_t low;
} inter_info_t;

/* The leader's part: swaps sizes and members (world ranks) with the remote leader over
 * peer_comm. *remote_p: the remote group's world ranks. info->remote_size is -1 on failure. */
static rcmsg_status_t leader_swap(rcmsg_comm_t local_comm, rcmsg_comm_t peer, int remote_leader,
                                  int tag, inter_info_t *info, int **remote_p)
{
    int32_t mine[2] = {local_comm->size, rcmsg_rank()}, theirs[2] = {0, 0};
    rcmsg_status_t s;

    info->remote_size = -1;
    if (rcmsg_comm_size(peer) < 1 || peer->inter != NULL || remote_leader < 0 ||
        remote_leader >= peer->size || remote_leader == peer->rank || tag < 0) {
        rcmsg_error("rcmsg_intercomm_create: %s",
                    rcmsg_comm_size(peer) < 1 || peer->inter != NULL
                        ? "peer_comm is not a live intracommunicator"
                    : tag < 0 ? "negative tag"
                              : "remote_leader is not another rank of peer_comm");
        return RCMSG_ERR_INVALID_PARAM;
    }
    s = rcmsg_sendrecv(mine, sizeof(mine), remote_leader, tag, theirs, sizeof(theirs),
                       remote_leader, tag, peer, NULL);
    if (s == RCMSG_OK &&
        (theirs[0] <= 0 || (*remote_p = malloc((size_t)theirs[0] * sizeof(int))) == NULL)) {
        s = theirs[0] <= 0 ? RCMSG_ERR_PEER_DATA : RCMSG_ERR_NO_MEMORY;
    }
    if (s == RCMSG_OK) {
        s = rcmsg_sendrecv(local_comm->world, (size_t)local_comm->size * sizeof(int), remote_leader,
                           tag, *remote_p, (size_t)theirs[0] * sizeof(int), remote_leader, tag,
                           peer, NULL);
    }
    if (s == RCMSG_OK) {
        info->remote_size = theirs[0];
        info->low = mine[1] < theirs[1];
    }
    return s;
}

/* every member: the union (the low group first) as a communicator of the world, made inter */
static rcmsg_status_t union_create(rcmsg_comm_t local_comm, const inter_info_t *info,
                                   const int *remote, rcmsg_comm_t *newcomm_p)
{
    int L = local_comm->size, R = info->remote_size, n = L + R,
        *all = malloc(sizeof(int) * (size_t)n);
    struct rcmsg_comm_inter *in = malloc(sizeof(*in));
    rcmsg_status_t s = RCMSG_ERR_NO_MEMORY;

    if (all != NULL && in != NULL) {
        *in = (struct rcmsg_comm_inter){.local_off = info->low ? 0 : R,
                                        .local_size = L,
                                        .remote_off = info->low ? L : 0,
                                        .remote_size = R};
        memcpy(all + in->local_off, local_comm->world, sizeof(int) * (size_t)L);
        memcpy(all + in->remote_off, remote, sizeof(int) * (size_t)R);
        s = rcmsg_comm_create_ranks(rcmsg_comm_world(), n, all, 0, newcomm_p);
    }
    if (s == RCMSG_OK) {
        (*newcomm_p)->inter = in;
        in = NULL;
    }
    free(all);
    free(in);
    return s;
}

rcmsg_status_t rcmsg_intercomm_create(rcmsg_comm_t local_comm, int local_leader,
                                      rcmsg_comm_t peer_comm, int remote_leader, int tag,
                                      rcmsg_comm_t *newcomm_p)
{
    RCMSG_MT_GUARD();
    inter_info_t info = {0, 0};
    int *remote = NULL, size = rcmsg_comm_size(local_comm);
    rcmsg_status_t s = RCMSG_OK, lead = RCMSG_OK;

    if (size < 1 || local_comm->inter != NULL || newcomm_p == NULL || local_leader < 0 ||
        local_leader >= size) {
        rcmsg_error("rcmsg_intercomm_create: %s", size < 1 || local_comm->inter != NULL
                                                      ? "local_comm is not a live intracommunicator"
                                                  : newcomm_p == NULL
                                                      ? "newcomm_p is NULL"
                                                      : "local_leader is not a rank of local_comm");
        return RCMSG_ERR_INVALID_PARAM;
    }
    *newcomm_p = RCMSG_COMM_NULL;
    if (local_comm->rank == local_leader) {
        lead = leader_swap(local_comm, peer_comm, remote_leader, tag, &info, &remote);
    }
    s = rcmsg_bcast(&info, 2, RCMSG_INT32, local_leader, local_comm);
    if (s == RCMSG_OK && info.remote_size < 0) {
        s = lead != RCMSG_OK ? lead : RCMSG_ERR_CONNECTION;
        rcmsg_error("rcmsg_intercomm_create: the local leader (rank %d) failed", local_leader);
    }
    if (s == RCMSG_OK && remote == NULL &&
        (remote = malloc(sizeof(int) * (size_t)info.remote_size)) == NULL) {
        s = RCMSG_ERR_NO_MEMORY; /* (the group then fails at the union's agreement) */
    }
    if (s == RCMSG_OK) {
        s = rcmsg_bcast(remote, (size_t)info.remote_size, RCMSG_INT32, local_leader, local_comm);
    }
    if (s == RCMSG_OK) {
        s = union_create(local_comm, &info, remote, newcomm_p);
    }
    free(remote);
    return s;
}

rcmsg_status_t rcmsg_intercomm_merge(rcmsg_comm_t intercomm, int high, rcmsg_comm_t *newcomm_p)
{
    RCMSG_MT_GUARD();
    int32_t mine = high != 0, theirs = 0;
    struct rcmsg_comm_inter *in;
    int *all, n;
    bool first;
    rcmsg_status_t s;

    if (rcmsg_comm_size(intercomm) < 1 || intercomm->inter == NULL || newcomm_p == NULL) {
        rcmsg_error("rcmsg_intercomm_merge: %s",
                    newcomm_p == NULL ? "newcomm_p is NULL" : "not an intercommunicator");
        return RCMSG_ERR_INVALID_PARAM;
    }
    in = intercomm->inter;
    *newcomm_p = RCMSG_COMM_NULL;
    /* the remote group's high: its rank 0's, broadcast to this whole group */
    s = rcmsg_allreduce(&mine, &theirs, 1, RCMSG_INT32, RCMSG_MAX, intercomm);
    if (s != RCMSG_OK) {
        return s;
    }
    first = mine != theirs ? !mine : in->local_off == 0;
    n = in->local_size + in->remote_size;
    if ((all = malloc(sizeof(int) * (size_t)n)) == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    memcpy(all + (first ? 0 : in->remote_size), intercomm->world + in->local_off,
           sizeof(int) * (size_t)in->local_size);
    memcpy(all + (first ? in->local_size : 0), intercomm->world + in->remote_off,
           sizeof(int) * (size_t)in->remote_size);
    s = rcmsg_comm_create_ranks(rcmsg_comm_world(), n, all, 0, newcomm_p);
    free(all);
    return s;
}
