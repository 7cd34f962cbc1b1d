/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the blocking collectives (mpi_coll.c, mpi_coll_v.c): private to those files. */
#ifndef RCMSG_MPI_COLL_H
#define RCMSG_MPI_COLL_H

#include "mpi/mpi_impl.h"

#include <stdbool.h>
#include <stddef.h>

/* A contiguous view of count elements of a type: the user's buffer itself for a contiguous
 * type (zero copy), else a packed copy (tmp). */
typedef struct {
    char *p;
    char *tmp;
    size_t bytes;
} coll_buf_t;

/* The arguments every collective checks alike (coll_check). The shape says where each buffer
 * is used: */
typedef enum {
    COLL_ALL,       /* no root: every rank sends and receives; sendbuf may be MPI_IN_PLACE */
    COLL_TO_ROOT,   /* gather, reduce: every rank sends, the root receives (and its sendbuf may
                     * be MPI_IN_PLACE) */
    COLL_FROM_ROOT, /* scatter: the root sends, every rank receives (the root's recvbuf may be
                     * MPI_IN_PLACE) */
    COLL_BCAST,     /* one buffer (recv), never MPI_IN_PLACE */
} coll_shape_t;

/* One buffer: count elements of dt, or (v) counts[i] elements at displs[i] for rank i. */
typedef struct {
    const void *buf;
    int count;
    MPI_Datatype dt;
    bool v;
    const int *counts, *displs;
} coll_side_t;

typedef struct {
    coll_shape_t shape;
    int root;    /* every shape but COLL_ALL */
    bool reduce; /* op is checked (on recv.dt) */
    MPI_Op op;
    coll_side_t send, recv;
    mpi_type_t *st, *rt; /* out: the buffers' types (NULL: not used here, or MPI_IN_PLACE) */
} coll_args_t;

/* The start of every blocking collective on an intracommunicator: MPI active, comm live and an
 * intracommunicator; takes the collective's tag (mpi_coll_tag; tag_p may be NULL); then, a not
 * NULL, coll_check. NULL: the error (raised naming call) is in *err_p. */
mpi_comm_t *coll_enter(MPI_Comm comm, const char *call, coll_args_t *a, int *tag_p, int *err_p);
/* Checks a in this order: the root, the operation, the send buffer and the receive buffer
 * where this rank uses them (a v buffer's counts and displacements before its type); sets
 * a->st and a->rt. MPI_SUCCESS or the error raised on c naming call. */
int coll_check(mpi_comm_t *c, const char *call, coll_args_t *a);
/* non-negative counts[i] for each peer of c (mpi_comm_peers: the remote group's ranks of an
 * intercommunicator; what: "send" or "receive" in the error); NULL arrays refused */
int coll_check_counts(mpi_comm_t *c, const char *call, const int *counts, const int *displs,
                      const char *what);

/* in: the data of buf, packed when needed. out: where to receive; coll_view_done unpacks. */
int coll_view_in(mpi_comm_t *c, const char *call, coll_buf_t *v, const void *buf, size_t count,
                 mpi_type_t *t);
int coll_view_out(mpi_comm_t *c, const char *call, coll_buf_t *v, void *buf, size_t count,
                  mpi_type_t *t);
void coll_view_done(coll_buf_t *v, void *buf, size_t count, mpi_type_t *t);
void coll_view_free(coll_buf_t *v);

/* count elements of t at src to dcount elements of dt at dst (the same signature). */
int coll_copy(const void *src, size_t count, mpi_type_t *t, void *dst, size_t dcount,
              mpi_type_t *dtt);

/* A buffer for count elements of dt in dt's own layout; free *base_p. NULL: no memory. */
void *coll_typed_alloc(MPI_Datatype dt, mpi_type_t *t, size_t count, void **base_p);

/* Point-to-point on the hidden communicator: post a send or receive of count elements of t at
 * buf (packed through *tmp_p when noncontiguous), and complete it (unpacking a receive). */
typedef struct {
    rcmsg_request_t req;
    char *tmp;
    void *buf;
    size_t count;
    mpi_type_t *t;
    bool recv;
} coll_xfer_t;
int coll_xfer_post(mpi_comm_t *c, const char *call, coll_xfer_t *x, bool recv, const void *buf,
                   size_t count, mpi_type_t *t, int peer, int tag);
/* waits for n transfers (every one, even after an error); MPI_SUCCESS or the first error
 * (raised) */
int coll_xfer_wait(mpi_comm_t *c, const char *call, coll_xfer_t *x, int n);

/* Reductions of count elements of dt in the user's layout (mpi_coll.c): by rcmsg when it can,
 * else the MPI layer's binomial tree in rank order. root -1: everyone gets the result. in is
 * the input (MPI_IN_PLACE: it is in out; NULL is MPI_BOTTOM), out the result (root's, or
 * everyone's). */
int coll_reduce(mpi_comm_t *c, const char *call, int tag, const void *in, void *out, int count,
                MPI_Datatype dt, MPI_Op op, int root);

#endif /* RCMSG_MPI_COLL_H */
