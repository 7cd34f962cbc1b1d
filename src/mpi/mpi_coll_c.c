/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The large-count (_c) collectives' arguments as their int calls' (mpi_objects.h): one helper
 * per shape (rooted, unrooted, neighborhood), used by the blocking, nonblocking and persistent
 * forms alike, so the rule of which counts a rank uses (mpi_coll_sides: an intercommunicator's
 * root and leaf sides, MPI_IN_PLACE) and the refusal past INT_MAX naming the call are written
 * once; from there until mpi_c_out_free the errors the int call raises under its own name
 * are named by the _c call (mpi_err_as). In the objects floor with the checks it calls
 * (mpi_check.c).
 */
#include "mpi/mpi_objects.h"

#include <stdlib.h>

void mpi_c_out_free(mpi_c_out_t *out)
{
    mpi_err_as(out->prev_as); /* the name of a _c call this one ran inside (a callback's) */
    free(out->s.keep);
    free(out->r.keep);
    out->s.keep = out->r.keep = NULL;
}

int mpi_c_rooted(MPI_Comm comm, const char *call, int root, mpi_c_rooted_t kind,
                 const mpi_c_in_t *in, mpi_c_out_t *out)
{
    bool gather = kind == MPI_C_GATHER;
    unsigned sides, rs;
    bool s_used, r_used;
    int err;

    *out = (mpi_c_out_t){.prev_as = mpi_err_as(call)}; /* (until mpi_c_out_free) */
    if ((err = mpi_coll_sides(comm, call, root, &sides)) != MPI_SUCCESS) {
        return err;
    }
    if (kind == MPI_C_ONE) {
        return mpi_count_int(comm, call, in->scount, sides != 0, &out->scount);
    }
    rs = sides & COLL_SIDE_ROOT;
    s_used = gather ? mpi_coll_side_used(sides, COLL_SIDE_LEAF, in->sbuf)
                    : mpi_coll_side_used(sides, COLL_SIDE_ROOT, NULL);
    r_used = gather ? mpi_coll_side_used(sides, COLL_SIDE_ROOT, NULL)
                    : mpi_coll_side_used(sides, COLL_SIDE_LEAF, in->rbuf);
    if ((err = mpi_count_int(comm, call, in->scount, s_used, &out->scount)) != MPI_SUCCESS ||
        (err = mpi_count_int(comm, call, in->rcount, r_used, &out->rcount)) != MPI_SUCCESS) {
        return err;
    }
    if (gather) { /* a gatherv's root: one count and displacement per peer */
        return mpi_counts_int(comm, call, false, rs ? in->rcounts : NULL, rs ? in->rdispls : NULL,
                              &out->r);
    }
    return mpi_counts_int(comm, call, false, rs ? in->scounts : NULL, rs ? in->sdispls : NULL,
                          &out->s);
}

int mpi_c_all(MPI_Comm comm, const char *call, const mpi_c_in_t *in, mpi_c_out_t *out)
{
    bool s_used = in->sbuf != MPI_IN_PLACE;
    int err;

    *out = (mpi_c_out_t){.prev_as = mpi_err_as(call)}; /* (until mpi_c_out_free) */
    if ((err = mpi_count_int(comm, call, in->scount, s_used, &out->scount)) != MPI_SUCCESS ||
        (err = mpi_count_int(comm, call, in->rcount, true, &out->rcount)) != MPI_SUCCESS ||
        (err = mpi_counts_int(comm, call, false, s_used ? in->scounts : NULL,
                              s_used ? in->sdispls : NULL, &out->s)) != MPI_SUCCESS) {
        return err;
    }
    return mpi_counts_int(comm, call, in->local, in->rcounts, in->rdispls, &out->r);
}

int mpi_c_nbr(MPI_Comm comm, const char *call, const mpi_c_in_t *in, mpi_c_out_t *out)
{
    mpi_comm_t *c;
    int nsrc = 0, ndst = 0, err;

    *out = (mpi_c_out_t){.prev_as = mpi_err_as(call)}; /* (until mpi_c_out_free) */
    if ((err = mpi_count_int(comm, call, in->scount, true, &out->scount)) != MPI_SUCCESS ||
        (err = mpi_count_int(comm, call, in->rcount, true, &out->rcount)) != MPI_SUCCESS) {
        return err;
    }
    if ((c = mpi_comm_get(comm)) == NULL || c->topo == NULL) {
        return MPI_SUCCESS; /* (the int call names the communicator or its missing topology) */
    }
    mpi_topo_neighbors(c->topo, c->rank, &nsrc, NULL, &ndst, NULL);
    if ((err = mpi_counts_int_n(c, call, ndst, in->scounts, in->sdispls, &out->s)) != MPI_SUCCESS) {
        return err;
    }
    return mpi_counts_int_n(c, call, nsrc, in->rcounts, in->rdispls, &out->r);
}
