/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The nonblocking collectives' schedule builders shared by their bindings (mpi_nbc.c,
 * mpi_nbc_red.c) and the intercommunicator ones (mpi_nbc_inter.c): blocks of a typed buffer,
 * the start of a schedule, the binomial broadcast and the binomial reduce.
 */
#include "mpi/mpi_engines.h"

/* a reduction's arguments, as the tree needs them */
typedef struct {
    mpi_comm_t *c;
    MPI_Datatype dt;
    mpi_type_t *t;
    MPI_Op op;
    bool commute;
} red_t;

static mpi_tbuf_t tb(const void *buf, size_t count, const red_t *a)
{
    return (mpi_tbuf_t){(void *)buf, count, a->t};
}

/* the i-th block of count elements of t at buf */
mpi_tbuf_t mpi_nbc_block(const void *buf, int i, int count, mpi_type_t *t)
{
    MPI_Aint off = (MPI_Aint)i * count * mpi_type_extent(t);

    return (mpi_tbuf_t){(char *)buf + off, (size_t)count, t};
}

/* starts s, or raises its error through c */
int mpi_nbc_start(mpi_sched_t *s, mpi_comm_t *c, const char *call, MPI_Request *request)
{
    int err = mpi_sched_start(s, c, request);

    if (err != MPI_SUCCESS) {
        return mpi_err(c, call, err, "cannot start the schedule");
    }
    return MPI_SUCCESS;
}

/* Binomial broadcast of b from root (relative ranks: v = r - root): receive from the parent,
 * then send to every child. Rank r of c's group is off + r on the hidden communicator (an
 * intercommunicator's local group; 0 for an intracommunicator). */
void mpi_nbc_bcast_tree(mpi_sched_t *s, mpi_comm_t *c, mpi_tbuf_t b, int root)
{
    int n = c->size, v = (c->rank - root + n) % n, mask = 1, off = c->local_off;

    while (mask < n) {
        if (v & mask) {
            mpi_sched_recv(s, b, off + (v - mask + root) % n);
            mpi_sched_fence(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (v + mask < n) {
            mpi_sched_send(s, b, off + (v + mask + root) % n);
        }
    }
    mpi_sched_fence(s);
}

/* Binomial reduce of count elements from in (this rank's data, dt's layout) to the tree's
 * root rank v = 0 (rank root when commutative, else rank 0). Returns the buffer holding the
 * result at that rank (NULL elsewhere, and when out of memory). */
void *mpi_nbc_reduce_tree_at(mpi_sched_t *s, mpi_comm_t *c, const void *in, size_t count,
                             MPI_Datatype dt, MPI_Op op, bool commute, int root)
{
    red_t rt = {.c = c, .dt = dt, .t = mpi_type_get(dt), .op = op, .commute = commute};
    const red_t *a = &rt;
    int n = a->c->size, shift = a->commute ? root : 0, off = a->c->local_off;
    int v = (a->c->rank - shift + n) % n;
    void *acc = mpi_sched_tmp(s, count, a->dt), *tmp = mpi_sched_tmp(s, count, a->dt);

    if (acc == NULL || tmp == NULL) {
        return NULL;
    }
    mpi_sched_copy(s, tb(in, count, a), tb(acc, count, a));
    for (int mask = 1; mask < n; mask <<= 1) {
        if (v & mask) {
            mpi_sched_send(s, tb(acc, count, a), off + (v - mask + shift) % n);
            mpi_sched_fence(s);
            return NULL;
        }
        if (v + mask < n) {
            void *t = acc;

            mpi_sched_recv(s, tb(tmp, count, a), off + (v + mask + shift) % n);
            mpi_sched_fence(s);
            /* tmp = acc op tmp: the lower ranks' result first */
            mpi_sched_reduce(s, a->op, acc, tmp, count, a->dt);
            acc = tmp;
            tmp = t;
        }
    }
    mpi_sched_fence(s);
    return acc;
}

void *mpi_nbc_reduce_tree(mpi_sched_t *s, mpi_comm_t *c, const void *in, size_t count,
                          MPI_Datatype dt, MPI_Op op)
{
    return mpi_nbc_reduce_tree_at(s, c, in, count, dt, op, false, 0);
}
