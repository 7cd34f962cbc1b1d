/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The point-to-point kind of request (mpi_req.c's engine): contiguous data goes straight from
 * and to the user's buffer (rcmsg's zero-copy paths); noncontiguous data is packed into a
 * temporary buffer for a send and received into one, then unpacked when the receive
 * completes. Modes: Ssend is rcmsg_issend (completes once matched); Rsend is a standard send
 * (legal: a ready send may be implemented as a standard one); Bsend is mpi_bsend.c's kind.
 *
 * Cancel (rcmsg_cancel): a receive nothing matched yet, or a send its receiver has not
 * matched, is taken back; its completion (Wait, Test) reports MPI_Test_cancelled true. One
 * matched already completes normally (false).
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>
#include <string.h>

/* Unpacks bytes of packed data into count elements of dt at buf: whole elements, then the
 * part of a last element that arrived (the rest of that element keeps its contents). */
static void recv_unpack(const mpi_type_t *t, const char *in, size_t bytes, void *buf)
{
    size_t size = mpi_type_size(t);
    size_t whole = size > 0 ? bytes / size : 0;
    size_t rest = bytes - whole * size;
    char *el, *scratch;

    mpi_type_unpack(t, in, whole, buf);
    if (rest == 0) {
        return;
    }
    el = (char *)buf + (MPI_Aint)whole * mpi_type_extent(t);
    scratch = malloc(size);
    if (scratch != NULL) {
        mpi_type_pack(t, el, 1, scratch);
        memcpy(scratch, in + whole * size, rest);
        mpi_type_unpack(t, scratch, 1, el);
        free(scratch);
    }
}

/* A receive through req->tmp (noncontiguous, or an Mprobe'd message): delivers what fits
 * into the user's buffer. Returns the bytes delivered; *trunc_p when some did not fit. */
static size_t recv_deliver(mpi_req_t *req, size_t bytes, bool *trunc_p)
{
    mpi_type_t *t = req->type;
    size_t cap = t != NULL ? mpi_type_size(t) * (size_t)req->count : 0;

    *trunc_p = bytes > cap;
    if (bytes > cap) {
        bytes = cap;
    }
    if (t == NULL || bytes == 0) {
        return bytes;
    }
    if (mpi_type_is_contig(t)) {
        memcpy((char *)req->buf + mpi_type_true_lb(t), req->tmp, bytes);
    } else {
        recv_unpack(t, req->tmp, bytes, req->buf);
    }
    return bytes;
}

/* Records the outcome of the rcmsg request (done with s and rst) in req->done. */
static void p2p_record(mpi_req_t *req, rcmsg_status_t s, const rcmsg_msg_status_t *rst)
{
    MPI_Status *status = &req->done;
    int err = MPI_SUCCESS;

    req->rc = RCMSG_REQUEST_NULL;
    if (rst->cancelled) { /* MPI_Cancel took it back: nothing sent or received */
        mpi_status_set(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS, true);
    } else if (req->is_recv) {
        size_t bytes = rst->count;
        bool trunc = s == RCMSG_ERR_TRUNCATED;

        if (req->tmp != NULL && (s == RCMSG_OK || trunc)) {
            bool t2;
            bytes = recv_deliver(req, bytes > req->tmp_len ? req->tmp_len : bytes, &t2);
            trunc = trunc || t2;
        }
        err = mpi_err_recv(s, trunc, mpi_comm_src(req->comm, rst->source), rst->tag,
                           req->type != NULL ? mpi_type_size(req->type) * (size_t)req->count : 0);
        mpi_status_set(status, mpi_comm_src(req->comm, rst->source), rst->tag, (MPI_Count)bytes,
                       err, false);
    } else {
        if (s != RCMSG_OK) {
            err = mpi_err_note(mpi_err_code(mpi_err_class_of(s), s),
                               "the send to rank %d (tag %d) failed: %s (%s)", req->peer, req->tag,
                               rcmsg_strerror(s), rcmsg_status_name(s));
        }
        mpi_status_set(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, err, false);
    }
}

static bool p2p_test(mpi_req_t *req)
{
    rcmsg_msg_status_t rst = {0};
    int flag = 0;
    rcmsg_status_t s = rcmsg_test(&req->rc, &flag, &rst);

    if (flag) {
        p2p_record(req, s, &rst);
    }
    return flag != 0;
}

static void p2p_wait(mpi_req_t *req)
{
    rcmsg_msg_status_t rst = {0};
    rcmsg_status_t s = rcmsg_wait(&req->rc, &rst);

    p2p_record(req, s, &rst);
}

/* the request completes (Wait, Test) cancelled or, when matched already, normally */
static int p2p_cancel(mpi_req_t *req, const char *call)
{
    rcmsg_status_t s = rcmsg_cancel(&req->rc);

    if (s == RCMSG_OK) {
        return MPI_SUCCESS;
    }
    return call != NULL ? mpi_err_rcmsg(req->comm, call, s) : mpi_err_code(mpi_err_class_of(s), s);
}

const mpi_req_ops_t mpi_p2p_ops = {
    .name = "point-to-point operation",
    .test = p2p_test,
    .wait = p2p_wait,
    .cancel = p2p_cancel,
};

/* The bytes to send or receive, and where: the user's buffer for a contiguous type, else
 * req->tmp (kept across the starts of a persistent request). */
static int req_buffer(mpi_req_t *req, mpi_type_t *t, size_t bytes, char **where_p)
{
    if (mpi_type_is_contig(t)) {
        *where_p = (char *)req->buf + mpi_type_true_lb(t);
        return MPI_SUCCESS;
    }
    if (req->tmp == NULL || req->tmp_len < bytes) {
        free(req->tmp);
        req->tmp = malloc(bytes > 0 ? bytes : 1);
        req->tmp_len = req->tmp != NULL ? bytes : 0;
        if (req->tmp == NULL) {
            return MPI_ERR_NO_MEM;
        }
    }
    req->tmp_len = bytes;
    *where_p = req->tmp;
    return MPI_SUCCESS;
}

int mpi_req_start(mpi_req_t *req, const char *call)
{
    mpi_type_t *t = req->type;
    size_t bytes = mpi_type_size(t) * (size_t)req->count;
    rcmsg_status_t s;
    char *where;
    int err;

    MPI_Status st;

    req->ops = &mpi_p2p_ops;
    req->complete = false;
    if (req->peer == MPI_PROC_NULL) {
        mpi_status_proc_null(&st);
        mpi_req_set_done(req, &st);
        return MPI_SUCCESS;
    }
    if (!req->is_recv && req->mode == MPI_SEND_BUFFERED) {
        return mpi_bsend_start(req, call);
    }
    err = req_buffer(req, t, bytes, &where);
    if (err != MPI_SUCCESS) {
        return mpi_err(req->comm, call, err, "no memory for %zu bytes of packed data", bytes);
    }
    if (req->is_recv) {
        s = rcmsg_irecv(where, bytes, mpi_comm_rc_peer(req->comm, req->peer), req->tag,
                        req->comm->rc, &req->rc);
    } else {
        if (where == req->tmp) {
            mpi_type_pack(t, req->buf, (size_t)req->count, where);
        }
        s = req->mode == MPI_SEND_SYNC
                ? rcmsg_issend(where, bytes, mpi_comm_rc_peer(req->comm, req->peer), req->tag,
                               req->comm->rc, &req->rc)
                : rcmsg_isend(where, bytes, mpi_comm_rc_peer(req->comm, req->peer), req->tag,
                              req->comm->rc, &req->rc);
    }
    if (s != RCMSG_OK) {
        return mpi_err_rcmsg(req->comm, call, s);
    }
    return MPI_SUCCESS;
}

int mpi_req_p2p(const char *call, void *buf, MPI_Count count, MPI_Datatype dt, int peer, int tag,
                MPI_Comm comm, bool recv, mpi_send_mode_t mode, bool persistent,
                MPI_Request *request)
{
    int err;
    mpi_comm_t *c = mpi_comm_check(comm, call, &err);
    mpi_req_t *r;
    mpi_type_t *t = NULL;

    if (c == NULL) {
        return err;
    }
    if ((err = mpi_check_p2p_buf(c, call, buf, count, dt, &t)) != MPI_SUCCESS ||
        (err = mpi_check_peer(c, call, peer, recv)) != MPI_SUCCESS ||
        (err = mpi_check_tag(c, call, tag, recv)) != MPI_SUCCESS) {
        return err;
    }
    if (request == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL request");
    }
    r = mpi_req_new(c, &mpi_p2p_ops, &err);
    if (r == NULL) {
        return mpi_err(c, call, err, "out of requests");
    }
    r->is_recv = recv;
    r->buf = buf;
    r->count = count;
    r->dt = dt;
    r->type = t;
    mpi_type_retain(r->type);
    r->peer = peer;
    r->tag = tag;
    r->mode = mode;
    r->persistent = persistent;
    if (!persistent && (err = mpi_req_start(r, call)) != MPI_SUCCESS) {
        mpi_req_delete(r);
        return err;
    }
    *request = r->handle;
    return MPI_SUCCESS;
}

/* ---- send-receive (MPI_Isendrecv): a request over a receive and a send ---------------------
 * Both are point-to-point requests of this file, taken over (their handles released); the
 * pair completes when both did, with the receive's status (and the send's error when the
 * receive had none). keep: freed with the pair (Isendrecv_replace's packed copy). */
typedef struct {
    mpi_req_t *recv, *send;
    void *keep;
} pair_req_t;

static void pair_record(mpi_req_t *req)
{
    pair_req_t *p = req->priv;

    req->done = p->recv->done;
    if (req->done.MPI_ERROR == MPI_SUCCESS) {
        req->done.MPI_ERROR = p->send->done.MPI_ERROR;
    }
}

static bool pair_test(mpi_req_t *req)
{
    pair_req_t *p = req->priv;
    bool recv_done = mpi_req_test(p->recv);

    if (!mpi_req_test(p->send) || !recv_done) {
        return false;
    }
    pair_record(req);
    return true;
}

static void pair_wait(mpi_req_t *req)
{
    pair_req_t *p = req->priv;

    mpi_req_wait(p->send);
    mpi_req_wait(p->recv);
    pair_record(req);
}

/* both asked back: the receive's outcome says whether it was cancelled */
static int pair_cancel(mpi_req_t *req, const char *call)
{
    pair_req_t *p = req->priv;
    int err = mpi_req_cancel(p->recv, call);

    (void)mpi_req_cancel(p->send, NULL);
    return err;
}

static void pair_free(mpi_req_t *req)
{
    pair_req_t *p = req->priv;

    if (p == NULL) {
        return;
    }
    mpi_req_delete(p->recv);
    mpi_req_delete(p->send);
    free(p->keep);
    free(p);
    req->priv = NULL;
}

static const mpi_req_ops_t pair_ops = {
    .name = "send-receive",
    .test = pair_test,
    .wait = pair_wait,
    .cancel = pair_cancel,
    .free = pair_free,
};

/* the request of handle h, its handle released (it belongs to the pair now) */
static mpi_req_t *pair_take(MPI_Request h)
{
    mpi_req_t *r = mpi_handle_get(MPI_KIND_REQUEST_, h);

    mpi_handle_release(MPI_KIND_REQUEST_, h);
    r->handle = MPI_REQUEST_NULL;
    return r;
}

int mpi_req_pair(mpi_comm_t *c, const char *call, MPI_Request recv, MPI_Request send, void *keep,
                 MPI_Request *request)
{
    pair_req_t *p = calloc(1, sizeof(*p));
    int err = MPI_ERR_NO_MEM;
    mpi_req_t *r = p != NULL ? mpi_req_new(c, &pair_ops, &err) : NULL;

    if (r == NULL) { /* neither can be left behind: the receive taken back, both completed */
        free(p);
        (void)mpi_req_cancel(mpi_handle_get(MPI_KIND_REQUEST_, recv), NULL);
        mpi_req_wait_call(&recv, MPI_STATUS_IGNORE, call);
        mpi_req_wait_call(&send, MPI_STATUS_IGNORE, call);
        free(keep);
        return mpi_err(c, call, err, "out of requests");
    }
    p->recv = pair_take(recv);
    p->send = pair_take(send);
    p->keep = keep;
    r->priv = p;
    r->peer = p->send->peer;
    r->tag = p->send->tag;
    *request = r->handle;
    return MPI_SUCCESS;
}
