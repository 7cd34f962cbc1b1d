/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Point-to-point over rcmsg's: contiguous data goes straight from and to the user's buffer
 * (rcmsg's zero-copy paths); noncontiguous data is packed into a temporary buffer for a send
 * and received into one, then unpacked (mpi_req.c).
 *
 * Modes: Ssend is rcmsg_issend (completes once matched); Rsend is a standard send (legal: a
 * ready send may be implemented as a standard one); Bsend copies into the attached buffer
 * (mpi_bsend.c) and sends from there.
 *
 * Matched probes (Mprobe, Improbe): rcmsg has no message handle, so the probe is followed at
 * once by a receive of exactly the probed source and tag into a buffer of the probed length.
 * That receive gets the probed message: rcmsg matches in order (non-overtaking), and any
 * earlier message from that source with that tag would have matched the probe first; no
 * other receive can slip in between: under MPI_THREAD_MULTIPLE the call holds rcmsg's lock
 * from the probe that found the message to the receive (MPI_MT_GUARD; rcmsg_probe returns
 * from the round that found it, without an idle round that lets the lock go). Mrecv then
 * copies (or unpacks) into the user's buffer.
 */
#include "mpi/mpi_engines.h"
#include "mpi/mpi_type.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A nonblocking operation: checks, a new request, started. */
static int p2p_start(const char *call, void *buf, MPI_Count count, MPI_Datatype dt, int peer,
                     int tag, MPI_Comm comm, bool recv, mpi_send_mode_t mode, MPI_Request *request)
{
    MPI_CHECK_ACTIVE(call);
    return mpi_req_p2p(call, buf, count, dt, peer, tag, comm, recv, mode, false, request);
}

/* A blocking operation: started as a nonblocking one, then waited for (raised as MPI_Wait). */
static int p2p_blocking(const char *call, void *buf, MPI_Count count, MPI_Datatype dt, int peer,
                        int tag, MPI_Comm comm, bool recv, mpi_send_mode_t mode, MPI_Status *status)
{
    MPI_Request req;
    int err = p2p_start(call, buf, count, dt, peer, tag, comm, recv, mode, &req);

    if (err != MPI_SUCCESS) {
        return err;
    }
    return mpi_req_wait_call(&req, status, "MPI_Wait");
}

/* The fast path of Send/Recv: contiguous data on a live communicator, straight to rcmsg. It
 * reads the type's fields directly and looks the communicator and the type up inline
 * (mpi_handle_get, mpi_type_lookup) rather than through calls: this check
 * runs on every blocking call, and its calls were most of the layer's cost on an 8 B ping-pong
 * (docs/performance.md, "The MPI face"). Its bytes (*bytes_p) stay below the slow path's limit
 * (SIZE_MAX / 2): a larger count or type goes there, which raises MPI_ERR_COUNT past it. */
static inline __attribute__((always_inline)) bool fast_ok(MPI_Comm comm, MPI_Datatype dt,
                                                          MPI_Count count, int peer, int tag,
                                                          mpi_comm_t **c_p, mpi_type_t **t_p,
                                                          size_t *bytes_p)
{
    mpi_comm_t *c;
    mpi_type_t *t;

    /* count <= INT_MAX (folded away for the int calls, inlined) and a type of at most
     * UINT32_MAX bytes: the product stays below 2^63, so no overflow check is needed */
    _Static_assert((uint64_t)UINT32_MAX * INT_MAX <= SIZE_MAX / 2,
                   "a fast-path message's bytes must stay below the slow path's limit");
    if (__builtin_expect(
            mpi_state != MPI_STATE_ACTIVE || (count | peer | tag) < 0 || count > INT_MAX, 0)) {
        return false; /* (a large count: its bytes checked by mpi_check_buf) */
    }
    c = mpi_handle_get(MPI_KIND_COMM_, comm);
    t = mpi_type_lookup(dt);
    if (c == NULL || t == NULL || c->inter || peer >= c->size || !t->contig || !t->committed ||
        t->size > UINT32_MAX) {
        return false;
    }
    *bytes_p = t->size * (size_t)count;
    *c_p = c;
    *t_p = t;
    return true;
}

static inline int send_body(const char *call, const void *buf, MPI_Count count,
                            MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    mpi_comm_t *c;
    mpi_type_t *t;
    size_t bytes;

    if (fast_ok(comm, datatype, count, dest, tag, &c, &t, &bytes)) {
        rcmsg_status_t s = rcmsg_send((const char *)buf + t->true_lb, bytes, dest, tag, c->rc);
        return s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(c, call, s);
    }
    return p2p_blocking(call, (void *)buf, count, datatype, dest, tag, comm, false,
                        MPI_SEND_STANDARD, MPI_STATUS_IGNORE);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_MT_TAIL(send_body("MPI_Send", buf, count, datatype, dest, tag, comm));
}

int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    MPI_MT_TAIL(send_body("MPI_Send_c", buf, count, datatype, dest, tag, comm));
}
MPI_PMPI_ALIAS(Send_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm));

static inline int recv_body(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                            int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    mpi_comm_t *c;
    mpi_type_t *t;
    size_t bytes;

    if (fast_ok(comm, datatype, count, source == MPI_ANY_SOURCE ? 0 : source,
                tag == MPI_ANY_TAG ? 0 : tag, &c, &t, &bytes)) {
        rcmsg_msg_status_t rst = {0};
        bool ignore = status == MPI_STATUS_IGNORE;
        rcmsg_status_t s =
            rcmsg_recv((char *)buf + t->true_lb, bytes, source, tag, c->rc, ignore ? NULL : &rst);
        int err = MPI_SUCCESS;

        if (__builtin_expect(s == RCMSG_OK, 1) && ignore) {
            return MPI_SUCCESS;
        }
        if (s != RCMSG_OK) {
            err = mpi_err_recv(s, false, ignore ? -1 : rst.source, rst.tag, bytes);
        }
        mpi_status_set(status, rst.source, rst.tag, (MPI_Count)rst.count,
                       ignore ? 0 : status->MPI_ERROR, false); /* (its error field kept) */
        return s == RCMSG_OK ? MPI_SUCCESS : mpi_err_again(c, call, err);
    }
    return p2p_blocking(call, buf, count, datatype, source, tag, comm, true, MPI_SEND_STANDARD,
                        status);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    MPI_MT_TAIL(recv_body("MPI_Recv", buf, count, datatype, source, tag, comm, status));
}

int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
               MPI_Comm comm, MPI_Status *status)
{
    MPI_MT_TAIL(recv_body("MPI_Recv_c", buf, count, datatype, source, tag, comm, status));
}
MPI_PMPI_ALIAS(Recv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, MPI_Status *status));

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_MT_GUARD();
    return p2p_blocking("MPI_Ssend", (void *)buf, count, datatype, dest, tag, comm, false,
                        MPI_SEND_SYNC, MPI_STATUS_IGNORE);
}

int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm)
{
    MPI_MT_GUARD();
    return p2p_blocking("MPI_Ssend_c", (void *)buf, count, datatype, dest, tag, comm, false,
                        MPI_SEND_SYNC, MPI_STATUS_IGNORE);
}
MPI_PMPI_ALIAS(Ssend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm));

int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_MT_GUARD();
    return p2p_blocking("MPI_Rsend", (void *)buf, count, datatype, dest, tag, comm, false,
                        MPI_SEND_READY, MPI_STATUS_IGNORE);
}

int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm)
{
    MPI_MT_GUARD();
    return p2p_blocking("MPI_Rsend_c", (void *)buf, count, datatype, dest, tag, comm, false,
                        MPI_SEND_READY, MPI_STATUS_IGNORE);
}
MPI_PMPI_ALIAS(Rsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm));

int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_MT_GUARD();
    return p2p_blocking("MPI_Bsend", (void *)buf, count, datatype, dest, tag, comm, false,
                        MPI_SEND_BUFFERED, MPI_STATUS_IGNORE);
}

int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm)
{
    MPI_MT_GUARD();
    return p2p_blocking("MPI_Bsend_c", (void *)buf, count, datatype, dest, tag, comm, false,
                        MPI_SEND_BUFFERED, MPI_STATUS_IGNORE);
}
MPI_PMPI_ALIAS(Bsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm));

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    MPI_MT_GUARD();
    return p2p_start("MPI_Isend", (void *)buf, count, datatype, dest, tag, comm, false,
                     MPI_SEND_STANDARD, request);
}

int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return p2p_start("MPI_Isend_c", (void *)buf, count, datatype, dest, tag, comm, false,
                     MPI_SEND_STANDARD, request);
}
MPI_PMPI_ALIAS(Isend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request));

int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    MPI_MT_GUARD();
    return p2p_start("MPI_Issend", (void *)buf, count, datatype, dest, tag, comm, false,
                     MPI_SEND_SYNC, request);
}

int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return p2p_start("MPI_Issend_c", (void *)buf, count, datatype, dest, tag, comm, false,
                     MPI_SEND_SYNC, request);
}
MPI_PMPI_ALIAS(Issend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm, MPI_Request *request));

int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    MPI_MT_GUARD();
    return p2p_start("MPI_Irsend", (void *)buf, count, datatype, dest, tag, comm, false,
                     MPI_SEND_READY, request);
}

int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return p2p_start("MPI_Irsend_c", (void *)buf, count, datatype, dest, tag, comm, false,
                     MPI_SEND_READY, request);
}
MPI_PMPI_ALIAS(Irsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm, MPI_Request *request));

int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    MPI_MT_GUARD();
    return p2p_start("MPI_Ibsend", (void *)buf, count, datatype, dest, tag, comm, false,
                     MPI_SEND_BUFFERED, request);
}

int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return p2p_start("MPI_Ibsend_c", (void *)buf, count, datatype, dest, tag, comm, false,
                     MPI_SEND_BUFFERED, request);
}
MPI_PMPI_ALIAS(Ibsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm, MPI_Request *request));

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    MPI_MT_GUARD();
    return p2p_start("MPI_Irecv", buf, count, datatype, source, tag, comm, true, MPI_SEND_STANDARD,
                     request);
}

int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return p2p_start("MPI_Irecv_c", buf, count, datatype, source, tag, comm, true,
                     MPI_SEND_STANDARD, request);
}
MPI_PMPI_ALIAS(Irecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, MPI_Request *request));

static int sendrecv(const char *call, const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                    MPI_Comm comm, MPI_Status *status)
{
    MPI_Request reqs[2];
    MPI_Status st[2];
    int err;

    err = p2p_start(call, recvbuf, recvcount, recvtype, source, recvtag, comm, true,
                    MPI_SEND_STANDARD, &reqs[0]);
    if (err != MPI_SUCCESS) {
        return err;
    }
    err = p2p_start(call, (void *)sendbuf, sendcount, sendtype, dest, sendtag, comm, false,
                    MPI_SEND_STANDARD, &reqs[1]);
    if (err != MPI_SUCCESS) {
        (void)mpi_req_cancel(mpi_handle_get(MPI_KIND_REQUEST_, reqs[0]),
                             NULL); /* a receive cannot be left behind */
        mpi_req_wait_call(&reqs[0], MPI_STATUS_IGNORE, "MPI_Wait");
        return err;
    }
    err = mpi_req_wait_call(&reqs[1], &st[1], "MPI_Wait");
    if (err != MPI_SUCCESS) {
        mpi_req_wait_call(&reqs[0], status, "MPI_Wait");
        return err;
    }
    err = mpi_req_wait_call(&reqs[0], &st[0], "MPI_Wait");
    mpi_status_out(status, &st[0]);
    return err;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    MPI_MT_GUARD();
    return sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                    recvtype, source, recvtag, comm, status);
}

int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_MT_GUARD();
    return sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                    recvcount, recvtype, source, recvtag, comm, status);
}
MPI_PMPI_ALIAS(Sendrecv_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                int recvtag, MPI_Comm comm, MPI_Status *status));

/* the message to send is packed aside first: the receive overwrites buf */
static int sendrecv_replace(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                            int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status)
{
    mpi_comm_t *c;
    mpi_type_t *t;
    size_t bytes;
    void *copy;
    int err;

    MPI_CHECK_ACTIVE(call);
    c = mpi_comm_check(comm, call, &err);
    if (c == NULL) {
        return err;
    }
    err = mpi_check_p2p_buf(c, call, buf, count, datatype, &t);
    if (err != MPI_SUCCESS) {
        return err;
    }
    bytes = mpi_type_size(t) * (size_t)count; /* (bounded by mpi_check_p2p_buf) */
    copy = malloc(bytes > 0 ? bytes : 1);
    if (copy == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "no memory for %zu bytes", bytes);
    }
    mpi_type_pack(t, buf, (size_t)count, copy);
    err = sendrecv(call, copy, (MPI_Count)bytes, MPI_BYTE, dest, sendtag, buf, count, datatype,
                   source, recvtag, comm, status);
    free(copy);
    return err;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_MT_GUARD();
    return sendrecv_replace("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, source,
                            recvtag, comm, status);
}

int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_MT_GUARD();
    return sendrecv_replace("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag, source,
                            recvtag, comm, status);
}
MPI_PMPI_ALIAS(Sendrecv_replace_c,
               (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                int source, int recvtag, MPI_Comm comm, MPI_Status *status));

/* Isendrecv's work: the receive started, then the send (its failure takes the receive back),
 * both as one request; keep (or NULL) freed with it, or here on failure. */
static int isendrecv(const char *call, const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                     MPI_Comm comm, void *keep, MPI_Request *request)
{
    MPI_Request rh, sh;
    int err = p2p_start(call, recvbuf, recvcount, recvtype, source, recvtag, comm, true,
                        MPI_SEND_STANDARD, &rh);

    if (err == MPI_SUCCESS) {
        err = p2p_start(call, (void *)sendbuf, sendcount, sendtype, dest, sendtag, comm, false,
                        MPI_SEND_STANDARD, &sh);
        if (err != MPI_SUCCESS) {
            (void)mpi_req_cancel(mpi_handle_get(MPI_KIND_REQUEST_, rh), NULL);
            mpi_req_wait_call(&rh, MPI_STATUS_IGNORE, call);
        }
    }
    if (err != MPI_SUCCESS) {
        free(keep);
        return err;
    }
    return mpi_req_pair(mpi_comm_get(comm), call, rh, sh, keep, request);
}

/* Isendrecv's checks, then isendrecv */
static int isendrecv_call(const char *call, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                          MPI_Comm comm, MPI_Request *request)
{
    int err;

    MPI_CHECK_ACTIVE(call);
    if (mpi_nbc_args(call, comm, request, &err) == NULL) {
        return err;
    }
    return isendrecv(call, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                     recvtype, source, recvtag, comm, NULL, request);
}

int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return isendrecv_call("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                          recvcount, recvtype, source, recvtag, comm, request);
}
MPI_PMPI_ALIAS(Isendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                           int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request));

int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return isendrecv_call("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                          recvcount, recvtype, source, recvtag, comm, request);
}
MPI_PMPI_ALIAS(Isendrecv_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                int recvtag, MPI_Comm comm, MPI_Request *request));

/* the message to send is packed aside first (sent from there): the receive overwrites buf */
static int isendrecv_replace(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                             int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request)
{
    mpi_comm_t *c;
    mpi_type_t *t;
    size_t bytes;
    void *copy;
    int err;

    MPI_CHECK_ACTIVE(call);
    if ((c = mpi_nbc_args(call, comm, request, &err)) == NULL ||
        (err = mpi_check_p2p_buf(c, call, buf, count, datatype, &t)) != MPI_SUCCESS) {
        return err;
    }
    bytes = mpi_type_size(t) * (size_t)count; /* (bounded by mpi_check_p2p_buf) */
    copy = malloc(bytes > 0 ? bytes : 1);
    if (copy == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "no memory for %zu bytes", bytes);
    }
    mpi_type_pack(t, buf, (size_t)count, copy);
    return isendrecv(call, copy, (MPI_Count)bytes, MPI_BYTE, dest, sendtag, buf, count, datatype,
                     source, recvtag, comm, copy, request);
}

int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return isendrecv_replace("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag, source,
                             recvtag, comm, request);
}

int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Request *request)
{
    MPI_MT_GUARD();
    return isendrecv_replace("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag, source,
                             recvtag, comm, request);
}
MPI_PMPI_ALIAS(Isendrecv_replace_c,
               (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                int source, int recvtag, MPI_Comm comm, MPI_Request *request));
MPI_PMPI_ALIAS(Isendrecv_replace,
               (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                int recvtag, MPI_Comm comm, MPI_Request *request));

/* ---- probes ------------------------------------------------------------------------------ */
static int probe_args(const char *call, int source, int tag, MPI_Comm comm, mpi_comm_t **c_p)
{
    int err;
    mpi_comm_t *c = mpi_comm_check(comm, call, &err);

    if (c == NULL) {
        return err;
    }
    if ((err = mpi_check_peer(c, call, source, true)) != MPI_SUCCESS ||
        (err = mpi_check_tag(c, call, tag, true)) != MPI_SUCCESS) {
        return err;
    }
    *c_p = c;
    return MPI_SUCCESS;
}

/* rcmsg's probe: blocking, or once (*flag_p) */
static int probe_rc(const char *call, mpi_comm_t *c, int source, int tag, int *flag_p,
                    rcmsg_msg_status_t *rst)
{
    rcmsg_status_t s;

    if (flag_p == NULL) {
        s = rcmsg_probe(mpi_comm_rc_peer(c, source), tag, c->rc, rst);
    } else {
        mpi_progress();
        s = rcmsg_iprobe(mpi_comm_rc_peer(c, source), tag, c->rc, flag_p, rst);
    }
    return s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(c, call, s);
}

static int probe_common(const char *call, int source, int tag, MPI_Comm comm, int *flag,
                        MPI_Status *status)
{
    mpi_comm_t *c;
    rcmsg_msg_status_t rst = {0};
    MPI_Status pn;
    int err;

    MPI_CHECK_ACTIVE(call);
    err = probe_args(call, source, tag, comm, &c);
    if (err != MPI_SUCCESS) {
        return err;
    }
    if (source == MPI_PROC_NULL) {
        if (flag != NULL) {
            *flag = 1;
        }
        mpi_status_proc_null(&pn);
        mpi_status_out(status, &pn); /* (its error field kept) */
        return MPI_SUCCESS;
    }
    err = probe_rc(call, c, source, tag, flag, &rst);
    if (err == MPI_SUCCESS && (flag == NULL || *flag)) {
        mpi_status_set(status, mpi_comm_src(c, rst.source), rst.tag, (MPI_Count)rst.count,
                       status == MPI_STATUS_IGNORE ? 0 : status->MPI_ERROR, false);
    }
    return err;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    MPI_MT_GUARD();
    return probe_common("MPI_Probe", source, tag, comm, NULL, status);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    MPI_MT_GUARD();
    if (flag == NULL) {
        return mpi_err(NULL, "MPI_Iprobe", MPI_ERR_ARG, "NULL flag");
    }
    return probe_common("MPI_Iprobe", source, tag, comm, flag, status);
}

/* After a probe found rst's message: receives exactly it into a buffer of its length, held
 * by a request that becomes the message handle (see the top of this file). */
static int mprobe_claim(const char *call, mpi_comm_t *c, const rcmsg_msg_status_t *rst,
                        MPI_Message *message)
{
    mpi_req_t *r;
    rcmsg_status_t s;
    int err;

    r = mpi_req_new(c, &mpi_p2p_ops, &err);
    if (r == NULL) {
        return mpi_err(c, call, err, "out of requests");
    }
    /* the request handle is not the user's: the message handle names the object */
    mpi_handle_release(MPI_KIND_REQUEST_, r->handle);
    r->handle = MPI_REQUEST_NULL;
    r->is_recv = true;
    r->tmp = malloc(rst->count > 0 ? rst->count : 1);
    r->tmp_len = rst->count;
    err = r->tmp == NULL ? MPI_ERR_NO_MEM : mpi_handle_alloc(MPI_KIND_MESSAGE_, r, message);
    if (err != MPI_SUCCESS) {
        mpi_req_delete(r);
        return mpi_err(c, call, err, "no memory for a message of %zu bytes", rst->count);
    }
    s = rcmsg_irecv(r->tmp, rst->count, rst->source, rst->tag, c->rc, &r->rc);
    if (s != RCMSG_OK) {
        mpi_handle_release(MPI_KIND_MESSAGE_, *message);
        mpi_req_delete(r);
        *message = MPI_MESSAGE_NULL;
        return mpi_err_rcmsg(c, call, s);
    }
    return MPI_SUCCESS;
}

static int mprobe_common(const char *call, int source, int tag, MPI_Comm comm, int *flag,
                         MPI_Message *message, MPI_Status *status)
{
    mpi_comm_t *c;
    rcmsg_msg_status_t rst = {0};
    MPI_Status pn;
    int err;

    MPI_CHECK_ACTIVE(call);
    err = probe_args(call, source, tag, comm, &c);
    if (err != MPI_SUCCESS) {
        return err;
    }
    if (message == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL message");
    }
    if (source == MPI_PROC_NULL) {
        if (flag != NULL) {
            *flag = 1;
        }
        *message = MPI_MESSAGE_NO_PROC;
        mpi_status_proc_null(&pn);
        mpi_status_out(status, &pn); /* (its error field kept) */
        return MPI_SUCCESS;
    }
    err = probe_rc(call, c, source, tag, flag, &rst);
    if (err != MPI_SUCCESS || (flag != NULL && !*flag)) {
        return err;
    }
    err = mprobe_claim(call, c, &rst, message);
    if (err == MPI_SUCCESS) {
        mpi_status_set(status, mpi_comm_src(c, rst.source), rst.tag, (MPI_Count)rst.count,
                       status == MPI_STATUS_IGNORE ? 0 : status->MPI_ERROR, false);
    }
    return err;
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    MPI_MT_GUARD();
    return mprobe_common("MPI_Mprobe", source, tag, comm, NULL, message, status);
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status)
{
    MPI_MT_GUARD();
    if (flag == NULL) {
        return mpi_err(NULL, "MPI_Improbe", MPI_ERR_ARG, "NULL flag");
    }
    return mprobe_common("MPI_Improbe", source, tag, comm, flag, message, status);
}

/* The message's request, given the user's buffer, and under a request handle; *message
 * becomes MPI_MESSAGE_NULL. NULL with *err_p for a bad message; *noproc_p for NO_PROC. */
static mpi_req_t *message_take(const char *call, void *buf, MPI_Count count, MPI_Datatype dt,
                               MPI_Message *message, bool *noproc_p, int *err_p)
{
    mpi_req_t *r;
    mpi_type_t *t = NULL;

    *noproc_p = false;
    if (message == NULL) {
        *err_p = mpi_err(NULL, call, MPI_ERR_ARG, "NULL message");
        return NULL;
    }
    if (*message == MPI_MESSAGE_NO_PROC) {
        *noproc_p = true;
        *message = MPI_MESSAGE_NULL;
        *err_p = MPI_SUCCESS;
        return NULL;
    }
    r = mpi_handle_get(MPI_KIND_MESSAGE_, *message);
    if (r == NULL) {
        *err_p = mpi_err(NULL, call, MPI_ERR_ARG,
                         "invalid message %#x (not from MPI_Mprobe/Improbe, or received already)",
                         (unsigned)*message);
        return NULL;
    }
    *err_p = mpi_check_p2p_buf(r->comm, call, buf, count, dt, &t);
    if (*err_p != MPI_SUCCESS) {
        return NULL;
    }
    *err_p = mpi_handle_alloc(MPI_KIND_REQUEST_, r, &r->handle);
    if (*err_p != MPI_SUCCESS) {
        *err_p = mpi_err(r->comm, call, *err_p, "out of requests");
        return NULL;
    }
    mpi_handle_release(MPI_KIND_MESSAGE_, *message);
    *message = MPI_MESSAGE_NULL;
    r->buf = buf;
    r->count = count;
    r->dt = dt;
    r->type = t;
    mpi_type_retain(r->type);
    return r;
}

static int imrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Message *message, MPI_Request *request)
{
    mpi_req_t *r;
    bool noproc;
    int err;

    MPI_CHECK_ACTIVE(call);
    if (request == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "NULL request");
    }
    r = message_take(call, buf, count, datatype, message, &noproc, &err);
    if (noproc) {
        mpi_comm_t *self = mpi_comm_get(MPI_COMM_SELF);

        MPI_Status st;

        r = mpi_req_new(self, &mpi_req_done_ops, &err);
        if (r == NULL) {
            return mpi_err(self, call, err, "out of requests");
        }
        r->is_recv = true;
        mpi_status_proc_null(&st);
        mpi_req_set_done(r, &st);
    }
    if (r == NULL) {
        return err;
    }
    *request = r->handle;
    return MPI_SUCCESS;
}

static int mrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Message *message, MPI_Status *status)
{
    MPI_Request req;
    int err = imrecv(call, buf, count, datatype, message, &req);

    if (err != MPI_SUCCESS) {
        return err;
    }
    return mpi_req_wait_call(&req, status, "MPI_Wait");
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    MPI_MT_GUARD();
    return mrecv("MPI_Mrecv", buf, count, datatype, message, status);
}

int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Status *status)
{
    MPI_MT_GUARD();
    return mrecv("MPI_Mrecv_c", buf, count, datatype, message, status);
}
MPI_PMPI_ALIAS(Mrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                         MPI_Status *status));

int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Request *request)
{
    MPI_MT_GUARD();
    return imrecv("MPI_Imrecv", buf, count, datatype, message, request);
}

int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Request *request)
{
    MPI_MT_GUARD();
    return imrecv("MPI_Imrecv_c", buf, count, datatype, message, request);
}
MPI_PMPI_ALIAS(Imrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                          MPI_Request *request));

/* ---- buffered sends' buffer (mpi_bsend.c) -------------------------------------------------
 * Buffer_attach_c attaches a buffer of any size (Bsend_c and its kin then carry messages past
 * INT_MAX bytes); Buffer_detach (the int form) refuses to detach one whose size does not fit its
 * int (MPI_ERR_COUNT; it stays attached, for Buffer_detach_c). */
static int buffer_attach(const char *call, void *buffer, MPI_Count size)
{
    if (mpi_bsend_attached()) {
        return mpi_err(NULL, call, MPI_ERR_BUFFER,
                       "a buffer is attached already (detach it first)");
    }
    if (buffer == NULL || size < 0) {
        return mpi_err(NULL, call, MPI_ERR_ARG,
                       buffer == NULL ? "NULL buffer" : "negative size %lld", size);
    }
    mpi_bsend_attach(buffer, (size_t)size);
    return MPI_SUCCESS;
}

int MPI_Buffer_attach(void *buffer, int size)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Buffer_attach");
    return buffer_attach("MPI_Buffer_attach", buffer, size);
}

int MPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Buffer_attach_c");
    return buffer_attach("MPI_Buffer_attach_c", buffer, size);
}
MPI_PMPI_ALIAS(Buffer_attach_c, (void *buffer, MPI_Count size));

static int buffer_detach(const char *call, void *buffer_addr, const void *size, MPI_Count limit,
                         MPI_Count *len_p)
{
    size_t len;

    if (buffer_addr == NULL || size == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "NULL %s", size == NULL ? "size" : "buffer_addr");
    }
    if (mpi_bsend_attached_size() > (size_t)limit) {
        return mpi_err(NULL, call, MPI_ERR_COUNT,
                       "the attached buffer has %zu bytes, more than an int holds (%lld): it "
                       "stays attached; MPI_Buffer_detach_c detaches it",
                       mpi_bsend_attached_size(), limit);
    }
    mpi_bsend_detach((void **)buffer_addr, &len);
    *len_p = (MPI_Count)len;
    return MPI_SUCCESS;
}

int MPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_MT_GUARD();
    MPI_Count len;
    int err;

    MPI_CHECK_ACTIVE("MPI_Buffer_detach");
    err = buffer_detach("MPI_Buffer_detach", buffer_addr, size, INT_MAX, &len);
    if (err == MPI_SUCCESS) {
        *size = (int)len;
    }
    return err;
}

int MPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Buffer_detach_c");
    return buffer_detach("MPI_Buffer_detach_c", buffer_addr, size, LLONG_MAX, size);
}
MPI_PMPI_ALIAS(Buffer_detach_c, (void *buffer_addr, MPI_Count *size));
