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

/* Checks common to every collective: MPI active, comm live and an intracommunicator; takes
 * the collective's tag (mpi_coll_tag). NULL: the error (raised) is in *err_p. */
mpi_comm_t *coll_enter(MPI_Comm comm, const char *call, int *tag_p, int *err_p);
int coll_check_root(mpi_comm_t *c, const char *call, int root);
/* buf may be MPI_IN_PLACE only when in_place_ok (then nothing else is checked) */
int coll_check_buf(mpi_comm_t *c, const char *call, const void *buf, int count, MPI_Datatype dt,
                   bool in_place_ok, mpi_type_t **t_p);

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
 * the input (NULL: it is in out), out the result (root's, or everyone's). */
int coll_reduce(mpi_comm_t *c, const char *call, int tag, const void *in, void *out, int count,
                MPI_Datatype dt, MPI_Op op, int root);

#endif /* RCMSG_MPI_COLL_H */
