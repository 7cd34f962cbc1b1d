/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Intercommunicators: Intercomm_create (its leaders meet over peer_comm with the program's tag:
 * mpi_inter_make.c), Intercomm_merge, Comm_test_inter, Comm_remote_size, Comm_remote_group.
 * Point-to-point on one names remote ranks (mpi_comm_rc_peer adds peer_off). The collectives
 * run over p2p on a hidden duplicate of the union (coll_rc) and rcmsg's collectives in each
 * group (local_rc, a duplicate of local_comm): data crosses between the groups' rank 0s, or
 * between a root and each remote rank.
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>
#include <string.h>

/* MPI_Intercomm_create's leader: its peer arguments checked; *peer_p, *low_p for the meeting
 * (this group first when its leader has the lower world rank) */
static int leader_check(mpi_comm_t *c, MPI_Comm peer_comm, int remote_leader, int tag,
                        rcmsg_comm_t *peer_p, bool *low_p)
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
    *peer_p = p->rc;
    *low_p = rcmsg_rank() < p->members[remote_leader];
    return MPI_SUCCESS;
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm)
{
    MPI_MT_GUARD();
    const char *call = "MPI_Intercomm_create";
    int err = MPI_SUCCESS;
    mpi_comm_t *c;
    rcmsg_comm_t peer = RCMSG_COMM_NULL;
    bool low = false;

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
        err = leader_check(c, peer_comm, remote_leader, tag, &peer, &low);
    }
    return mpi_inter_connect(c, call, local_leader, err, peer, remote_leader, tag, low,
                             newintercomm);
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
