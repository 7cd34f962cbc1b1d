/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a rank answers between the release of its pml (the end of rcmsg_pml_fini) and the end
 * of the wireup's closing barrier, which can last until the last rank reaches rcmsg_finalize.
 * A peer still running may send this rank a message (it is discarded), a rendezvous (refused
 * by a FIN marked PML_FIN_REFUSED, so the sender does not wait for this rank), or a CANCEL of a
 * message this rank discarded unreceived (answered 'taken back': the sender's cancel takes) or
 * received before (answered 'not'). Without these answers a peer that cancels a send to this
 * rank would wait in its rcmsg_wait, and this rank in the barrier for it, until
 * RCMSG_LAUNCHER_TIMEOUT.
 *
 * The barrier polls the transports (rcmsg_wireup_t's fini_poll); answers are queued and sent
 * from there in order, each peer's sequence numbers going on from the pml's.
 */
#include "config.h"

#include "pml_internal.h"

#include <stdlib.h>

typedef struct {
    rcmsg_btl_t *btl;
    uint32_t send_seq;
    bool lost;
    pml_seqs_t dropped;   /* its eager messages discarded unreceived (from the pml, then here) */
    rcmsg_pml_rts_t *out; /* answers to send, in order */
    int nout, capout, sent;
} fini_peer_t;

static struct {
    rcmsg_wireup_t *w;
    int size;
    fini_peer_t *peers;
} fr;

static void fr_queue(int peer, const rcmsg_pml_rts_t *h)
{
    fini_peer_t *p = &fr.peers[peer];

    if (p->nout == p->capout) {
        int cap = p->capout ? p->capout * 2 : 8;
        rcmsg_pml_rts_t *out = realloc(p->out, sizeof(*out) * (size_t)cap);
        if (out == NULL) {
            rcmsg_error("finalize: out of memory for a %s to rank %d, which may wait for it",
                        rcmsg_pml_msg_name(h->hdr.type), peer);
            return;
        }
        p->out = out;
        p->capout = cap;
    }
    p->out[p->nout++] = *h;
}

static bool fr_recv(void *arg, int peer, const void *data, size_t len)
{
    rcmsg_pml_rts_t h = {0}, ans = {0};
    bool answer = false;
    fini_peer_t *p = peer >= 0 && peer < fr.size ? &fr.peers[peer] : NULL;

    (void)arg;
    if (p == NULL || p->lost || len < sizeof(h.hdr)) {
        return false;
    }
    memcpy(&h.hdr, data, sizeof(h.hdr));
    if (h.hdr.type != RCMSG_PML_EAGER && len >= sizeof(h)) {
        memcpy(&h, data, sizeof(h));
    }
    if (h.hdr.type == RCMSG_PML_EAGER) {
        pml_seqs_add(&p->dropped, h.hdr.seq);
    } else if (h.hdr.type == RCMSG_PML_RTS && len >= sizeof(h)) {
        answer = true;
        ans = (rcmsg_pml_rts_t){.hdr = {.type = RCMSG_PML_FIN},
                                .addr = PML_FIN_REFUSED,
                                .sreq = h.sreq,
                                .status = RCMSG_ERR_STATE};
    } else if (h.hdr.type == RCMSG_PML_CANCEL && len >= sizeof(h)) {
        answer = true;
        ans = (rcmsg_pml_rts_t){.hdr = {.type = RCMSG_PML_CANCEL_ACK},
                                .sreq = h.sreq,
                                .status = pml_seqs_take(&p->dropped, (uint32_t)h.addr) ? 1 : 0};
    }
    rcmsg_debug("finalize: a %s of %zu bytes from rank %d%s", rcmsg_pml_msg_name(h.hdr.type), len,
                peer, answer ? ": answered" : ": dropped");
    if (answer) {
        fr_queue(peer, &ans);
    }
    return false;
}

static void fr_fail(void *arg, int peer, rcmsg_status_t status, const char *cause)
{
    (void)arg;
    (void)cause;
    rcmsg_debug("finalize: rank %d lost (%s)", peer, rcmsg_status_name(status));
    if (peer >= 0 && peer < fr.size) {
        fr.peers[peer].lost = true;
    }
}

static void fr_broke(void *arg, int peer)
{
    (void)arg;
    rcmsg_debug("finalize: the connection to rank %d broke (recovered by the transport)", peer);
}

/* The closing barrier's poll: the transports deliver (fr_recv), the answers go out. */
static void fr_poll(void *arg)
{
    (void)arg;
    for (int i = 0; i < fr.w->btls.n; i++) {
        fr.w->btls.btls[i]->ops->progress(fr.w->btls.btls[i]);
    }
    for (int i = 0; i < fr.size; i++) {
        fini_peer_t *p = &fr.peers[i];
        while (p->sent < p->nout && !p->lost) {
            rcmsg_pml_rts_t h = p->out[p->sent];
            rcmsg_status_t s;

            h.hdr.seq = p->send_seq;
            s = p->btl->ops->send(p->btl, i, &h, sizeof(h), NULL, 0);
            if (s == RCMSG_ERR_NO_RESOURCE) {
                break; /* the next poll */
            }
            p->send_seq += s == RCMSG_OK;
            p->sent++;
        }
        if (p->sent == p->nout) {
            p->sent = p->nout = 0;
        }
    }
}

void pml_fini_recv_begin(void)
{
    rcmsg_pml_fini_recv_end();
    fr.peers = calloc((size_t)pml.size, sizeof(*fr.peers));
    fr.w = pml.w;
    for (int i = 0; i < pml.w->btls.n; i++) {
        pml.w->btls.btls[i]->recv_cb = fr_recv;
        pml.w->btls.btls[i]->fail_cb = fr_fail;
        pml.w->btls.btls[i]->broke_cb = fr_broke; /* (no read of this rank is left) */
    }
    if (fr.peers == NULL) {
        rcmsg_warn("finalize: out of memory to answer peers during the closing barrier");
        return; /* fr_recv drops everything */
    }
    fr.size = pml.size;
    for (int i = 0; i < pml.size; i++) {
        fr.peers[i].btl = pml.peers[i].btl;
        fr.peers[i].send_seq = pml_snd.peers[i].seq;
        fr.peers[i].lost = pml_peer_failed(i) || pml_peer_gone(i) != RCMSG_OK || i == pml.rank;
        fr.peers[i].dropped = pml_recv_dropped_give(i); /* taken over */
    }
    pml.w->fini_poll = fr_poll;
    pml.w->fini_poll_arg = NULL;
}

void rcmsg_pml_fini_recv_end(void)
{
    for (int i = 0; i < fr.size; i++) {
        free(fr.peers[i].dropped.v);
        free(fr.peers[i].out);
    }
    free(fr.peers);
    memset(&fr, 0, sizeof(fr)); /* (fr.w is released by then: the wireup's fini) */
}
