/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The public point-to-point calls (isend, irecv, probe and the blocking forms), their
 * arguments checked once (pml_check.h), and the same posting unchecked for the layers above
 * (rcmsg_pml_isend_unchecked, rcmsg_pml_irecv_unchecked: pml.h).
 */
#include "config.h"

#include "pml_internal.h"

#include "progress/progress.h"
#include "base/mt.h"

#include <stdlib.h>

/* A call whose arguments were checked once above: refused only without the launcher (the job
 * is over: said by pml_check). */
static inline rcmsg_status_t unchecked_start(const char *what)
{
    return atomic_load_explicit(&rcmsg_watch_news, memory_order_relaxed) == 0 ? RCMSG_OK
                                                                              : pml_check(what);
}

/* A send; sync: by rendezvous whatever its length, so that it completes only once the
 * receiver has matched it (and taken the data). Arguments checked by the caller. Inlined in
 * each entry (checked and unchecked), as the calls were one function before the split:
 * measured, a call here cost 9 instructions per receive (callgrind). */
static inline __attribute__((always_inline)) rcmsg_status_t
post_send(const void *buf, size_t len, int dest, int tag, struct rcmsg_comm *comm, bool coll,
          bool sync, rcmsg_request_t *req_p)
{
    rcmsg_request_t r;
    rcmsg_status_t s;

    r = pml_req_alloc(PML_REQ_SEND);
    if (r == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    r->my_rank = comm->rank;
    r->ctx = comm->ctx | (coll ? 1u : 0u);
    r->peer = comm->world[dest];
    r->tag = tag;
    r->buf = (void *)buf;
    r->len = len;
    if (coll && comm->coll_lost != RCMSG_OK) { /* a member is lost: see comm_break */
        pml_req_complete(r, comm->coll_lost);
        *req_p = r;
        return RCMSG_OK;
    }
    if (len > pml.peers[r->peer].eager_limit || sync) {
        s = pml_rndv_prepare(r);
        if (s != RCMSG_OK) {
            pml_req_free(r);
            return s;
        }
    }
    /* behind what is queued, control messages (a BREAK) included: a pair delivers in the order
     * of the calls, which the reuse of contexts relies on (pml_ctx.c) */
    if (pml_send_busy(r->peer) || pml_send_start(r) == RCMSG_ERR_NO_RESOURCE) {
        pml_sendq_push(r->peer, r);
        pml_peer_mark_pending(r->peer);
    }
    *req_p = r;
    return RCMSG_OK;
}

/* A receive; arguments checked by the caller. */
static inline __attribute__((always_inline)) rcmsg_status_t
post_recv(void *buf, size_t len, int source, int tag, struct rcmsg_comm *comm, bool coll,
          rcmsg_request_t *req_p)
{
    rcmsg_request_t r;
    pml_unexp_t *u;
    rcmsg_status_t s;

    r = pml_req_alloc(PML_REQ_RECV);
    if (r == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    r->my_rank = comm->rank;
    r->ctx = comm->ctx | (coll ? 1u : 0u);
    r->src = source;
    r->src_world = source == RCMSG_ANY_SOURCE ? -1 : comm->world[source];
    r->tag = tag;
    r->buf = buf;
    r->len = len;
    r->peer = -1;
    u = pml_unexp_find(r->ctx, source, tag, true);
    if (u != NULL) {
        pml_recv_matched(r, &u->h, u->peer, u->data);
        free(u);
    } else if ((pml.any_failed || pml.lost_launcher != RCMSG_OK || (r->ctx & 1u)) &&
               (s = pml_recv_lost(r, comm)) != RCMSG_OK) {
        /* from a rank already lost (or ANY_SOURCE with every other rank lost; or a collective
         * of a communicator with a member lost): nothing more can come (what was sent before
         * is matched above), so this fails now instead of waiting forever. (A point-to-point
         * receive while no rank was lost and the launcher is there skips the call: a lost
         * peer sets pml.any_failed, pml_fail.c) */
        r->st.source = source;
        r->st.tag = tag;
        pml_req_complete(r, s);
    } else {
        r->mrecv.ctx = r->ctx;
        r->mrecv.src = source;
        r->mrecv.tag = tag;
        s = rcmsg_match_post(&pml_rcv.match, &r->mrecv);
        if (s != RCMSG_OK) {
            pml_req_free(r);
            return s;
        }
    }
    *req_p = r;
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_pml_isend_unchecked(const void *buf, size_t len, int dest, int tag,
                                         struct rcmsg_comm *comm, bool coll, rcmsg_request_t *req_p)
{
    rcmsg_status_t s = unchecked_start("rcmsg_isend");

    return s == RCMSG_OK ? post_send(buf, len, dest, tag, comm, coll, false, req_p) : s;
}

rcmsg_status_t rcmsg_pml_irecv_unchecked(void *buf, size_t len, int source, int tag,
                                         struct rcmsg_comm *comm, bool coll, rcmsg_request_t *req_p)
{
    rcmsg_status_t s = unchecked_start("rcmsg_irecv");

    return s == RCMSG_OK ? post_recv(buf, len, source, tag, comm, coll, req_p) : s;
}

static rcmsg_status_t checked_isend(const char *what, const void *buf, size_t len, int dest,
                                    int tag, rcmsg_comm_t comm, bool coll, bool sync,
                                    rcmsg_request_t *req_p)
{
    rcmsg_status_t s = pml_check_args(what, req_p, "req_p", buf, len, comm, dest, false, tag, coll);

    return s == RCMSG_OK ? post_send(buf, len, dest, tag, comm, coll, sync, req_p) : s;
}

/* A receive with its arguments checked: rcmsg_pml_irecv's body, inlined into rcmsg_irecv too
 * (a call less per receive: callgrind, 20 instructions). */
static inline __attribute__((always_inline)) rcmsg_status_t
checked_irecv(void *buf, size_t len, int source, int tag, rcmsg_comm_t comm, bool coll,
              rcmsg_request_t *req_p)
{
    rcmsg_status_t s =
        pml_check_args("rcmsg_irecv", req_p, "req_p", buf, len, comm, source, true, tag, coll);

    return s == RCMSG_OK ? post_recv(buf, len, source, tag, comm, coll, req_p) : s;
}

rcmsg_status_t rcmsg_pml_irecv(void *buf, size_t len, int source, int tag, rcmsg_comm_t comm,
                               bool coll, rcmsg_request_t *req_p)
{
    return checked_irecv(buf, len, source, tag, comm, coll, req_p);
}

rcmsg_status_t rcmsg_pml_isend(const void *buf, size_t len, int dest, int tag, rcmsg_comm_t comm,
                               bool coll, rcmsg_request_t *req_p)
{
    return checked_isend("rcmsg_isend", buf, len, dest, tag, comm, coll, false, req_p);
}

rcmsg_status_t rcmsg_isend(const void *buf, size_t len, int dest, int tag, rcmsg_comm_t comm,
                           rcmsg_request_t *req_p)
{
    RCMSG_MT_TAIL(checked_isend("rcmsg_isend", buf, len, dest, tag, comm, false, false, req_p));
}

rcmsg_status_t rcmsg_issend(const void *buf, size_t len, int dest, int tag, rcmsg_comm_t comm,
                            rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    return checked_isend("rcmsg_issend", buf, len, dest, tag, comm, false, true, req_p);
}

rcmsg_status_t rcmsg_irecv(void *buf, size_t len, int source, int tag, rcmsg_comm_t comm,
                           rcmsg_request_t *req_p)
{
    RCMSG_MT_TAIL(checked_irecv(buf, len, source, tag, comm, false, req_p));
}

rcmsg_status_t rcmsg_iprobe(int source, int tag, rcmsg_comm_t comm, int *flag_p,
                            rcmsg_msg_status_t *status)
{
    RCMSG_MT_GUARD();
    pml_unexp_t *u;
    rcmsg_status_t s;

    s = pml_check_args("rcmsg_iprobe", flag_p, "flag_p", NULL, 0, comm, source, true, tag, false);
    if (s != RCMSG_OK) {
        return s;
    }
    rcmsg_progress();
    u = pml_unexp_find(comm->ctx, source, tag, false);
    *flag_p = u != NULL;
    if (u != NULL && status != NULL) {
        *status = (rcmsg_msg_status_t){
            .source = u->h.hdr.src, .tag = u->h.hdr.tag, .count = u->h.hdr.len};
    }
    if (u == NULL && (source != RCMSG_ANY_SOURCE ? pml_peer_failed(comm->world[source])
                                                 : pml_ctx_all_lost(comm->ctx, comm->rank))) {
        /* nothing more can come (probe returns) */
        rcmsg_error("rcmsg_iprobe: %s", source != RCMSG_ANY_SOURCE
                                            ? "the source rank was lost"
                                            : "every other rank of the communicator was lost");
        return pml_lost_status(source != RCMSG_ANY_SOURCE ? comm->world[source] : -1);
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_probe(int source, int tag, rcmsg_comm_t comm, rcmsg_msg_status_t *status)
{
    RCMSG_MT_GUARD();
    unsigned idle = 0;
    int flag = 0;
    rcmsg_status_t s;

    while ((s = rcmsg_iprobe(source, tag, comm, &flag, status)) == RCMSG_OK && !flag) {
        pml_idle(&idle);
    }
    return s;
}

static inline rcmsg_status_t send_body(const void *buf, size_t len, int dest, int tag,
                                       rcmsg_comm_t comm)
{
    rcmsg_request_t r;
    rcmsg_status_t s =
        pml_check_args("rcmsg_send", NULL, NULL, buf, len, comm, dest, false, tag, false);

    if (s != RCMSG_OK) {
        return s;
    }
    /* an eager message that can go now needs no request (a third of the call's instructions) */
    s = pml_send_now(comm->world[dest], comm->ctx, comm->rank, tag, buf, len);
    if (s != RCMSG_ERR_NO_RESOURCE) {
        return s;
    }
    s = rcmsg_isend(buf, len, dest, tag, comm, &r);
    return s == RCMSG_OK ? rcmsg_wait(&r, NULL) : s;
}

rcmsg_status_t rcmsg_send(const void *buf, size_t len, int dest, int tag, rcmsg_comm_t comm)
{
    RCMSG_MT_TAIL(send_body(buf, len, dest, tag, comm));
}

static inline rcmsg_status_t recv_body(void *buf, size_t len, int source, int tag,
                                       rcmsg_comm_t comm, rcmsg_msg_status_t *status)
{
    rcmsg_request_t r;
    rcmsg_status_t s = rcmsg_irecv(buf, len, source, tag, comm, &r);

    return s == RCMSG_OK ? rcmsg_wait(&r, status) : s;
}

rcmsg_status_t rcmsg_recv(void *buf, size_t len, int source, int tag, rcmsg_comm_t comm,
                          rcmsg_msg_status_t *status)
{
    RCMSG_MT_TAIL(recv_body(buf, len, source, tag, comm, status));
}

rcmsg_status_t rcmsg_sendrecv(const void *sendbuf, size_t sendlen, int dest, int sendtag,
                              void *recvbuf, size_t recvlen, int source, int recvtag,
                              rcmsg_comm_t comm, rcmsg_msg_status_t *status)
{
    RCMSG_MT_GUARD();
    rcmsg_request_t r[2];
    rcmsg_msg_status_t st[2];
    rcmsg_status_t s;

    s = pml_check_args("rcmsg_sendrecv", NULL, NULL, sendbuf, sendlen, comm, dest, false, sendtag,
                       false);
    if (s != RCMSG_OK) {
        return s; /* checked before the receive is posted, which could not be taken back */
    }
    s = rcmsg_irecv(recvbuf, recvlen, source, recvtag, comm, &r[0]);
    if (s != RCMSG_OK) {
        return s;
    }
    s = rcmsg_isend(sendbuf, sendlen, dest, sendtag, comm, &r[1]);
    if (s != RCMSG_OK) {
        if (rcmsg_pml_cancel_recv(&r[0]) != RCMSG_OK) {
            rcmsg_wait(&r[0], NULL); /* matched already: it completes */
        }
        return s;
    }
    s = rcmsg_waitall(2, r, st);
    if (status != NULL) {
        *status = st[0];
    }
    return s;
}
