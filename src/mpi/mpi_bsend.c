/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffered sends: MPI_Buffer_attach gives the library a buffer; each Bsend (Ibsend,
 * Bsend_init's starts) takes a piece of it of its packed length plus MPI_BSEND_OVERHEAD,
 * packs the message there, sends it from there with rcmsg_isend and completes at once. The
 * piece comes back when that send completes: the pending sends are tested in every MPI call
 * that tests or waits (mpi_progress), before a Bsend reports that nothing fits, and waited
 * for by Buffer_detach. Finalize gives them a bounded time, then cancels them
 * (mpi_bsend_settle, from mpi_req_drain): a receiver that never takes one does not keep it
 * forever. A message that does not fit in the free space fails with MPI_ERR_BUFFER naming
 * the sizes.
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t off, len; /* the piece of the buffer: [off, off + len) */
    rcmsg_request_t rc;
    int peer, tag; /* where it goes (named if Finalize cancels it) */
    MPI_Comm comm;
    bool self; /* to this rank */
} bsend_piece_t;

static struct {
    char *buf;
    size_t size;
    bsend_piece_t *pieces; /* sorted by off */
    size_t n, cap;
} bsend;

#define BSEND_ALIGN 16

/* the offset of the first gap of len bytes (aligned), or (size_t)-1 */
static size_t bsend_find(size_t len)
{
    size_t at = 0;

    for (size_t i = 0; i <= bsend.n; i++) {
        size_t end = i < bsend.n ? bsend.pieces[i].off : bsend.size;

        if (end >= at && end - at >= len) {
            return at;
        }
        if (i < bsend.n) {
            at = (bsend.pieces[i].off + bsend.pieces[i].len + BSEND_ALIGN - 1) &
                 ~(size_t)(BSEND_ALIGN - 1);
        }
    }
    return (size_t)-1;
}

static size_t bsend_used(void)
{
    size_t used = 0;

    for (size_t i = 0; i < bsend.n; i++) {
        used += bsend.pieces[i].len;
    }
    return used;
}

static void bsend_remove(size_t i)
{
    memmove(&bsend.pieces[i], &bsend.pieces[i + 1], (bsend.n - i - 1) * sizeof(bsend_piece_t));
    bsend.n--;
}

void mpi_bsend_progress(void)
{
    for (size_t i = 0; i < bsend.n;) {
        int flag = 0;

        rcmsg_test(&bsend.pieces[i].rc, &flag, NULL);
        if (flag) {
            bsend_remove(i); /* a failed send's error has no request left to report it */
        } else {
            i++;
        }
    }
}

void mpi_bsend_drain(void)
{
    while (bsend.n > 0) {
        rcmsg_wait(&bsend.pieces[0].rc, NULL);
        bsend_remove(0);
    }
}

int mpi_bsend_settle(bool cancel, char *list, size_t cap, int *n_p)
{
    for (size_t i = 0; i < bsend.n;) {
        bsend_piece_t *p = &bsend.pieces[i];
        rcmsg_msg_status_t rst = {0};
        int flag = 0;

        if (cancel || p->self) {
            (void)rcmsg_cancel(&p->rc); /* RCMSG_OK also when too late: it completes */
        }
        rcmsg_test(&p->rc, &flag, &rst);
        if (!flag) {
            i++;
            continue;
        }
        if (rst.cancelled) {
            mpi_req_name_send(list, cap, ++*n_p, "buffered send", p->peer, p->tag, p->comm);
        }
        bsend_remove(i);
    }
    return (int)bsend.n;
}

static int bsend_insert(size_t off, size_t len, bsend_piece_t **piece_p)
{
    size_t i = 0;

    if (bsend.n == bsend.cap) {
        size_t cap = bsend.cap ? 2 * bsend.cap : 16;
        bsend_piece_t *p = realloc(bsend.pieces, cap * sizeof(*p));

        if (p == NULL) {
            return MPI_ERR_NO_MEM;
        }
        bsend.pieces = p;
        bsend.cap = cap;
    }
    while (i < bsend.n && bsend.pieces[i].off < off) {
        i++;
    }
    memmove(&bsend.pieces[i + 1], &bsend.pieces[i], (bsend.n - i) * sizeof(bsend_piece_t));
    bsend.pieces[i] = (bsend_piece_t){.off = off, .len = len, .rc = RCMSG_REQUEST_NULL};
    bsend.n++;
    *piece_p = &bsend.pieces[i];
    return MPI_SUCCESS;
}

/* The kind of a buffered send's request: complete once its message is copied into the
 * attached buffer; the sends from there are this kind's background work. Its cancel fails, as
 * MPI allows (the copy is on its way; Test_cancelled says false). */
static bool bsend_test(mpi_req_t *req)
{
    (void)req;
    return true;
}

static void bsend_wait(mpi_req_t *req)
{
    (void)req;
}

static int bsend_cancel(mpi_req_t *req, const char *call)
{
    (void)req;
    (void)call;
    return MPI_SUCCESS;
}

static const mpi_req_ops_t bsend_ops = {
    .name = "buffered send",
    .test = bsend_test,
    .wait = bsend_wait,
    .cancel = bsend_cancel,
    .progress = mpi_bsend_progress,
};

int mpi_bsend_start(mpi_req_t *req, const char *call)
{
    mpi_type_t *t = req->type;
    size_t bytes = mpi_type_size(t) * (size_t)req->count;
    size_t len = bytes + MPI_BSEND_OVERHEAD;
    bsend_piece_t *piece;
    rcmsg_status_t s;
    size_t off;
    int err;

    if (bsend.buf == NULL) {
        return mpi_err(req->comm, call, MPI_ERR_BUFFER,
                       "no buffer attached (MPI_Buffer_attach) for a buffered send of %zu bytes",
                       bytes);
    }
    off = bsend_find(len);
    if (off == (size_t)-1) {
        mpi_bsend_progress();
        off = bsend_find(len);
    }
    if (off == (size_t)-1) {
        return mpi_err(req->comm, call, MPI_ERR_BUFFER,
                       "a buffered send of %zu bytes (+ MPI_BSEND_OVERHEAD %d) does not fit in "
                       "the attached buffer (%zu bytes, %zu in use by %zu pending send(s))",
                       bytes, MPI_BSEND_OVERHEAD, bsend.size, bsend_used(), bsend.n);
    }
    err = bsend_insert(off, len, &piece);
    if (err != MPI_SUCCESS) {
        return mpi_err(req->comm, call, err, "out of memory");
    }
    piece->peer = req->peer;
    piece->tag = req->tag;
    piece->comm = req->comm->handle;
    piece->self = mpi_comm_rc_peer(req->comm, req->peer) == rcmsg_comm_rank(req->comm->rc);
    mpi_type_pack(t, req->buf, (size_t)req->count, bsend.buf + off);
    s = rcmsg_isend(bsend.buf + off, bytes, mpi_comm_rc_peer(req->comm, req->peer), req->tag,
                    req->comm->rc, &piece->rc);
    if (s != RCMSG_OK) {
        bsend_remove((size_t)(piece - bsend.pieces));
        return mpi_err_rcmsg(req->comm, call, s);
    }
    mpi_status_empty(&req->done);
    req->ops = &bsend_ops;
    req->complete = true;
    mpi_req_register(&bsend_ops);
    return MPI_SUCCESS;
}

void mpi_bsend_fini(void)
{
    free(bsend.pieces);
    bsend.pieces = NULL;
    bsend.n = bsend.cap = 0;
    bsend.buf = NULL;
    bsend.size = 0;
}

bool mpi_bsend_attached(void)
{
    return bsend.buf != NULL;
}

size_t mpi_bsend_attached_size(void)
{
    return bsend.size;
}

void mpi_bsend_attach(void *buffer, size_t size)
{
    bsend.buf = buffer;
    bsend.size = size;
}

void mpi_bsend_detach(void **buffer_p, size_t *size_p)
{
    mpi_bsend_drain(); /* waits for the messages still in the buffer */
    *buffer_p = bsend.buf;
    *size_p = bsend.size;
    bsend.buf = NULL;
    bsend.size = 0;
}
