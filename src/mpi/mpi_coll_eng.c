/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the blocking collectives' bindings (mpi_coll.c, mpi_coll_v.c) share over rcmsg's
 * collectives: their entry (coll_enter), contiguous views of typed buffers (the user's buffer,
 * or a packed copy), the per-rank blocks of the v-variants as one buffer of bytes, and the
 * reductions of any operation (rcmsg_reduce / rcmsg_allreduce with mpi_op_rcmsg_any). No
 * algorithm: rcmsg's collectives run them.
 */
#include "mpi/mpi_engines.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mpi_comm_t *coll_enter(MPI_Comm comm, const char *call, coll_args_t *a, int *err_p)
{
    mpi_comm_t *c = mpi_comm_enter(comm, call, err_p);

    if (c == NULL) {
        return NULL;
    }
    /* the intercommunicator collectives (mpi_inter_coll.c) dispatched before this point */
    if (c->inter) {
        *err_p = mpi_err(c, call, MPI_ERR_COMM, "not supported over an intercommunicator");
        return NULL;
    }
    if (a != NULL && (*err_p = coll_check(c, call, a)) != MPI_SUCCESS) {
        return NULL;
    }
    return c;
}

int coll_all_pad(mpi_comm_t *c, const char *call, coll_buf_t *v, size_t n, size_t recv_block)
{
    size_t send_block = n > 0 ? v->bytes / n : 0;
    char *pad;

    if (send_block >= recv_block) {
        return MPI_SUCCESS;
    }
    pad = calloc(n, recv_block);
    if (pad == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "no memory for %zu bytes of padded send blocks",
                       n * recv_block);
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(pad + i * recv_block, v->p + i * send_block, send_block);
    }
    free(v->tmp);
    v->tmp = v->p = pad; /* (bytes kept: the send block's size, for coll_all_mismatch) */
    return MPI_SUCCESS;
}

/* the words of an allgather's or alltoall's send block of another size (why: 160 bytes) */
static const char *all_mismatch_why(char *why, size_t recv_block, size_t send_block)
{
    snprintf(why, 160,
             "this rank's send block is %zu bytes and its receive blocks %zu: the send and receive "
             "type signatures must match (%s)",
             send_block, recv_block,
             send_block > recv_block ? "its send was cut" : "its send was padded with zeros");
    return why;
}

int coll_all_mismatch(mpi_comm_t *c, const char *call, size_t recv_block, size_t send_block)
{
    char why[160];

    if (send_block == recv_block) {
        return MPI_SUCCESS;
    }
    return mpi_err(c, call, MPI_ERR_TRUNCATE, "%s", all_mismatch_why(why, recv_block, send_block));
}

int coll_all_mismatch_note(size_t recv_block, size_t send_block)
{
    char why[160];

    if (send_block == recv_block) {
        return MPI_SUCCESS;
    }
    return mpi_err_note(mpi_err_code(MPI_ERR_TRUNCATE, RCMSG_OK), "%s",
                        all_mismatch_why(why, recv_block, send_block));
}

static int coll_view_alloc(mpi_comm_t *c, const char *call, coll_buf_t *v, void *buf, size_t count,
                           mpi_type_t *t)
{
    v->bytes = mpi_type_size(t) * count;
    v->tmp = NULL;
    if (mpi_type_is_contig(t)) {
        v->p = (char *)buf + mpi_type_true_lb(t);
        return MPI_SUCCESS;
    }
    v->tmp = malloc(v->bytes > 0 ? v->bytes : 1);
    if (v->tmp == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "no memory for %zu bytes of packed data", v->bytes);
    }
    v->p = v->tmp;
    return MPI_SUCCESS;
}

int coll_view_in(mpi_comm_t *c, const char *call, coll_buf_t *v, const void *buf, size_t count,
                 mpi_type_t *t)
{
    int err = coll_view_alloc(c, call, v, (void *)buf, count, t);

    if (err == MPI_SUCCESS && v->tmp != NULL) {
        mpi_type_pack(t, buf, count, v->tmp);
    }
    return err;
}

int coll_view_out(mpi_comm_t *c, const char *call, coll_buf_t *v, void *buf, size_t count,
                  mpi_type_t *t)
{
    return coll_view_alloc(c, call, v, buf, count, t);
}

void coll_view_done(coll_buf_t *v, void *buf, size_t count, mpi_type_t *t)
{
    if (v->tmp != NULL) {
        mpi_type_unpack(t, v->tmp, count, buf);
    }
}

void coll_view_free(coll_buf_t *v)
{
    free(v->tmp);
    v->tmp = NULL;
}

/* ---- reductions ------------------------------------------------------------------------------ */

/* rcmsg's reduce (root >= 0) or allreduce of count elements of t, packed when t is not
 * contiguous: n elements of rdt reduced by rop (mpi_op_rcmsg_any) */
static int reduce_rcmsg(mpi_comm_t *c, const char *call, const void *in, void *out, int count,
                        mpi_type_t *t, rcmsg_op_t rop, rcmsg_datatype_t rdt, size_t n, int root)
{
    bool result = root < 0 || root == c->rank;
    coll_buf_t vi = {0}, vo = {0};
    rcmsg_status_t s;
    int err;

    if (in == MPI_IN_PLACE) { /* the input is in out */
        err = coll_view_in(c, call, &vo, out, (size_t)count, t);
    } else {
        err = coll_view_in(c, call, &vi, in, (size_t)count, t);
        if (err == MPI_SUCCESS && result) {
            err = coll_view_out(c, call, &vo, out, (size_t)count, t);
        }
    }
    if (err == MPI_SUCCESS) {
        const void *sp = in == MPI_IN_PLACE ? RCMSG_IN_PLACE : vi.p;

        s = root < 0 ? rcmsg_allreduce(sp, vo.p, n, rdt, rop, c->rc)
                     : rcmsg_reduce(sp, vo.p, n, rdt, rop, root, c->rc);
        err = coll_status(c, call, s);
    }
    if (err == MPI_SUCCESS && result) {
        coll_view_done(&vo, out, (size_t)count, t);
    }
    coll_view_free(&vi);
    coll_view_free(&vo);
    return err;
}

int coll_reduce(mpi_comm_t *c, const char *call, const void *in, void *out, int count,
                MPI_Datatype dt, MPI_Op op, int root)
{
    mpi_type_t *t = mpi_type_get(dt);
    rcmsg_op_t rop;
    rcmsg_datatype_t rdt;
    size_t n;
    int err;

    if (count == 0 || mpi_type_size(t) == 0) {
        return MPI_SUCCESS;
    }
    err = mpi_op_rcmsg_any(op, dt, (size_t)count, &rop, &rdt, &n);
    if (err != MPI_SUCCESS) {
        return mpi_err(c, call, err, "no rcmsg operation or datatype for the reduction");
    }
    return reduce_rcmsg(c, call, in, out, count, t, rop, rdt, n, root);
}

/* ---- v-variants: per-rank blocks as one rcmsg buffer of bytes ------------------------------ */
static char vbuf_empty[1]; /* rcmsg's buffer when every block is empty */

static void vbuf_free_arrays(coll_vbuf_t *v)
{
    if (v->counts != v->small) {
        free(v->counts);
    }
    free(v->tmp);
    v->counts = v->displs = NULL;
    v->tmp = NULL;
}

/* zero copy when every block is of a contiguous type: displacements from the lowest block */
static bool vbuf_direct(coll_vbuf_t *v, const coll_blk_t *b, int n)
{
    char *lo = NULL;

    for (int i = 0; i < n; i++) {
        char *p = (char *)b[i].buf + (b[i].t != NULL ? mpi_type_true_lb(b[i].t) : 0);

        if (b[i].count == 0 || b[i].t == NULL || mpi_type_size(b[i].t) == 0) {
            continue;
        }
        if (!mpi_type_is_contig(b[i].t)) {
            return false;
        }
        lo = lo == NULL || p < lo ? p : lo;
    }
    v->base = lo != NULL ? lo : vbuf_empty;
    for (int i = 0; i < n; i++) {
        v->counts[i] = coll_blk_bytes(&b[i]);
        v->displs[i] =
            v->counts[i] > 0 ? (size_t)((char *)b[i].buf + mpi_type_true_lb(b[i].t) - v->base) : 0;
    }
    return true;
}

static int vbuf_make(mpi_comm_t *c, const char *call, coll_vbuf_t *v, const coll_blk_t *b, int n,
                     bool pack)
{
    size_t total = 0;

    v->base = v->tmp = NULL;
    v->counts = n <= COLL_VBUF_SMALL ? v->small : calloc(2 * (size_t)n, sizeof(size_t));
    if (v->counts == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    v->displs = v->counts + n;
    if (vbuf_direct(v, b, n)) {
        return MPI_SUCCESS;
    }
    for (int i = 0; i < n; i++) {
        v->counts[i] = coll_blk_bytes(&b[i]);
        v->displs[i] = total;
        total += v->counts[i];
    }
    v->tmp = malloc(total > 0 ? total : 1);
    if (v->tmp == NULL) {
        vbuf_free_arrays(v);
        return mpi_err(c, call, MPI_ERR_NO_MEM, "no memory for %zu bytes of packed data", total);
    }
    v->base = v->tmp;
    for (int i = 0; pack && i < n; i++) {
        if (v->counts[i] > 0) {
            mpi_type_pack(b[i].t, b[i].buf, b[i].count, v->tmp + v->displs[i]);
        }
    }
    return MPI_SUCCESS;
}

const void *coll_blk_at(const void *buf, MPI_Aint elements, mpi_type_t *t)
{
    return (const char *)buf + elements * mpi_type_extent(t);
}

coll_blk_t *coll_blks_new(mpi_comm_t *c, const char *call, int n, int *err_p)
{
    coll_blk_t *b = calloc((size_t)n, sizeof(*b));

    *err_p = b == NULL ? mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory") : MPI_SUCCESS;
    return b;
}

coll_blk_t *coll_blks_of(mpi_comm_t *c, const char *call, const void *buf, const int counts[],
                         const int displs[], mpi_type_t *t, int *err_p)
{
    coll_blk_t *b = coll_blks_new(c, call, c->size, err_p);

    for (int i = 0; b != NULL && i < c->size; i++) {
        b[i] = (coll_blk_t){coll_blk_at(buf, displs[i], t), (size_t)counts[i], t};
    }
    return b;
}

int coll_vbuf_in(mpi_comm_t *c, const char *call, coll_vbuf_t *v, const coll_blk_t *b, int n)
{
    return vbuf_make(c, call, v, b, n, true);
}

int coll_vbuf_out(mpi_comm_t *c, const char *call, coll_vbuf_t *v, const coll_blk_t *b, int n,
                  int own)
{
    int err = vbuf_make(c, call, v, b, n, false);

    if (err == MPI_SUCCESS && own >= 0 && v->tmp != NULL && v->counts[own] > 0) {
        mpi_type_pack(b[own].t, b[own].buf, b[own].count, v->tmp + v->displs[own]);
    }
    return err;
}

void coll_vbuf_done(coll_vbuf_t *v, const coll_blk_t *b, int n)
{
    for (int i = 0; v->tmp != NULL && i < n; i++) {
        if (v->counts[i] > 0) {
            mpi_type_unpack(b[i].t, v->tmp + v->displs[i], b[i].count, (void *)b[i].buf);
        }
    }
}

void coll_vbuf_free(coll_vbuf_t *v)
{
    vbuf_free_arrays(v);
}

size_t coll_blk_bytes(const coll_blk_t *b)
{
    return b->t != NULL ? mpi_type_size(b->t) * b->count : 0;
}

int coll_status(mpi_comm_t *c, const char *call, rcmsg_status_t s)
{
    return s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(c, call, s);
}

/* The receive side of a gather or allgather into size blocks of rcount elements of rt; in
 * place, this rank's block is already there (packed into the view when it is a copy). */
int coll_gather_view(mpi_comm_t *c, const char *call, coll_buf_t *v, void *rbuf, int rcount,
                     mpi_type_t *rt, bool in_place)
{
    size_t block = mpi_type_size(rt) * (size_t)rcount;
    int err = coll_view_out(c, call, v, rbuf, (size_t)rcount * (size_t)c->size, rt);

    if (err == MPI_SUCCESS && in_place && v->tmp != NULL) {
        mpi_type_pack(rt, (char *)rbuf + (MPI_Aint)c->rank * rcount * mpi_type_extent(rt),
                      (size_t)rcount, v->tmp + (size_t)c->rank * block);
    }
    return err;
}
