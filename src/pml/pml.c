/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The point-to-point layer: requests, matching, eager and rendezvous protocols, flow control.
 *
 * Eager (len <= eager limit):   sender --EAGER(hdr+data)--> receiver
 *     (the limit of the peer's transport: its caps.eager_limit, e.g. RCMSG_SM_EAGER_LIMIT, or
 *     RCMSG_EAGER_LIMIT for one without its own)
 *     one credit per message; the receiver returns the credit once the message is matched
 *     (piggybacked on any header, or in a CREDIT message when half the credits are owed).
 *     Without a credit the message goes by rendezvous instead (an RTS needs none), so at
 *     most EAGER_CREDITS unmatched eager payloads per peer ever sit in a receiver's
 *     unexpected queue, and no receive can starve waiting for credits.
 * Rendezvous (larger):          sender --RTS(addr,rkey,sreq)--> receiver
 *                               receiver ==RDMA_READ chunks==> its buffer
 *                               receiver --FIN(sreq)--> sender; both complete.
 *
 * Queues: posted receives and unexpected messages are kept per context and per source by the
 * matching object (pml_match.h), so a message for a communicator this rank has not created
 * yet simply waits as unexpected. Each peer has a FIFO of data sends (eager and
 * RTS, in order: non-overtaking) and separate control work (FIN, BREAK, CREDIT) that never waits
 * behind data, so flow control cannot deadlock.
 *
 * Files, top to bottom (calls go down; test/unit/layering.sh holds the order), each with the
 * state it owns declared in its header: pml.c (init, fini), pml_fini_recv.c (what comes
 * during the closing barrier), pml_comm.c (communicators), pml_rx.c (what peers send: header
 * checks, each message type to its handler), pml_ctx.c (context ids and their agreement),
 * pml_p2p.c (the public point-to-point calls), pml_wait.c (wait and test), pml_liveness.c
 * (liveness, progress), pml_dump.c (state dump, stalls), pml_fail.c (a lost peer), pml_cancel.c
 * (cancel, and the CANCEL exchange that takes back a send), pml_break.c (a communicator's
 * collectives broken by a lost member), pml_recv.c (matched receives, unexpected messages,
 * rendezvous reads), pml_send.c (credits, send queue, control messages), pml_req.c (requests),
 * pml_check.c (argument checks), pml_handle.c (the communicator handle table), pml_base.c (the job
 * and its peers' links, message names, sequence compare; a lost peer up through a hook),
 * pml_match.c (the matching queues). pml_types.h: the types. A peer's state is split the same way,
 * an array indexed by world rank in each file that writes it (pml_snd.peers, pml_rcv.peers,
 * pml_rx.peers, pml_live.peers, pml_brk.gone) but for what files above and below the writer read (a
 * peer's link, the sequence number expected next, the loss: pml_base.c's pml.peers); other files
 * read it through inline accessors. Each file has its init and fini, called from here: init bottom
 * up, fini top down (pml_states_init, pml_states_fini).
 */
#include "config.h"

#include "pml_internal.h"

#include "base/clock.h"
#include "base/compiler.h"
#include "base/config_table.h"
#include "progress/progress.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool pml_parted; /* the last fini: a peer was lost, the survivors parted (BYE) */

/* What only init and fini read of the configuration (pml_config_read). */
static struct {
    size_t eager_limit;        /* RCMSG_EAGER_LIMIT: for transports without their own */
    uint64_t drain_timeout_us; /* RCMSG_DRAIN_TIMEOUT */
    uint64_t bye_timeout_us;   /* RCMSG_LAUNCHER_TIMEOUT: finalize's parting after a loss */
} pml_cfg;

/* Every file's state as before init, its memory released: each file's fini, top down. */
static void pml_states_fini(void)
{
    pml_rx_fini();
    pml_live_fini();
    pml_dump_fini();
    pml_break_fini();
    pml_recv_fini();
    pml_send_fini();
    pml_base_fini();
    memset(&pml_cfg, 0, sizeof(pml_cfg));
}

/* Each file's per-peer state, bottom up (after pml_base_init and the configuration). */
static rcmsg_status_t pml_states_init(void)
{
    rcmsg_status_t s = pml_send_init();

    s = s == RCMSG_OK ? pml_recv_init() : s;
    s = s == RCMSG_OK ? pml_break_init() : s;
    pml_dump_init();
    s = s == RCMSG_OK ? pml_live_init() : s;
    return s == RCMSG_OK ? pml_rx_init() : s;
}

long rcmsg_pml_live_requests(void)
{
    return pml_reqs.live_reqs;
}

bool rcmsg_pml_peer_lost(void)
{
    return pml.peers != NULL ? pml.any_failed : pml_parted;
}

/* The RCMSG_* variables of init and fini (each file's init reads its own); nothing reads the
 * table after init. */
static void pml_config_read(void)
{
    pml_cfg.eager_limit = rcmsg_config_size(RCMSG_CFG_EAGER_LIMIT);
    pml_cfg.drain_timeout_us = rcmsg_config_time_us(RCMSG_CFG_DRAIN_TIMEOUT);
    pml_cfg.bye_timeout_us = rcmsg_config_time_us(RCMSG_CFG_LAUNCHER_TIMEOUT);
}

/* The registration cache's callbacks: the transport's own (the cache's context is the btl,
 * its handle an rcmsg_btl_mem_t). */
static rcmsg_status_t pml_mem_reg(void *ctx, void *addr, size_t len, bool remote_read, void *handle)
{
    rcmsg_btl_t *btl = ctx;

    return btl->ops->mem_reg(btl, addr, len, remote_read, handle);
}

static void pml_mem_dereg(void *ctx, void *handle)
{
    rcmsg_btl_t *btl = ctx;

    btl->ops->mem_dereg(btl, handle);
}

static const rcmsg_rcache_ops_t pml_rcache_ops = {
    .reg = pml_mem_reg,
    .dereg = pml_mem_dereg,
    .handle_size = sizeof(rcmsg_btl_mem_t),
};

RCMSG_STATIC_ASSERT(sizeof(rcmsg_pml_rts_t) <= RCMSG_BTL_HDR_ROOM,
                    "transports that size their buffers from an eager limit leave room for the "
                    "largest header");

/* The eager limit for btl's peers: its own (RCMSG_SM_EAGER_LIMIT, ...) or RCMSG_EAGER_LIMIT,
 * capped by its largest send less a header. */
static size_t pml_eager_limit(const rcmsg_btl_t *btl)
{
    size_t limit = btl->caps.eager_limit;
    size_t room = btl->caps.max_send - sizeof(rcmsg_pml_hdr_t);

    if (limit == RCMSG_BTL_EAGER_DEFAULT) {
        limit = pml_cfg.eager_limit;
    }
    return limit < room ? limit : room;
}

/* Says each transport's eager limit once (and when its buffers capped it). */
static void pml_eager_limits_log(const rcmsg_btl_set_t *btls)
{
    for (int i = 0; i < btls->n; i++) {
        const rcmsg_btl_t *btl = btls->btls[i];
        size_t limit = pml_eager_limit(btl);
        size_t asked = btl->caps.eager_limit == RCMSG_BTL_EAGER_DEFAULT ? pml_cfg.eager_limit
                                                                        : btl->caps.eager_limit;

        if (limit < asked) {
            rcmsg_info("%s: eager limit capped to %zu bytes by the transport's %zu-byte buffers",
                       btl->name, limit, btl->caps.max_send);
        }
        rcmsg_info("point-to-point over %s: eager up to %zu bytes", btl->name, limit);
    }
}

rcmsg_status_t rcmsg_pml_init(rcmsg_wireup_t *w)
{
    rcmsg_comm_t world;
    int *ids;
    rcmsg_status_t s;

    pml_states_fini();
    pml_reqs_fini();
    pml_parted = false;
    s = pml_base_init(w);
    pml_set_peer_fail(pml_on_peer_failed); /* the hook up from below pml_fail.c */
    if (s == RCMSG_OK) {
        pml_config_read();
        s = pml_states_init();
    }
    ids = malloc(sizeof(int) * (size_t)pml.size);
    if (s != RCMSG_OK || ids == NULL) {
        free(ids);
        if (s != RCMSG_OK) {
            pml_states_fini(); /* (rcmsg_pml_fini: init failed early) */
        }
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < w->btls.n; i++) {
        w->btls.btls[i]->recv_cb = pml_on_recv;
        w->btls.btls[i]->fail_cb = pml_on_peer_failed;
        w->btls.btls[i]->broke_cb = pml_on_peer_broke;
    }
    for (int i = 0; i < pml.size; i++) {
        rcmsg_btl_t *btl = w->peer_btl[i];
        pml_peer_link(i, btl, pml_eager_limit(btl));
        pml_send_link(i);
        rcmsg_stats_set_transport(i, btl->name);
        ids[i] = i;
    }
    pml_eager_limits_log(&w->btls);
    pml.max_len = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    rcmsg_rcache_init(&pml_rcache_ops);
    s = pml_comms_init();
    if (s == RCMSG_OK) {
        s = pml_ctx_init();
    }
    if (s == RCMSG_OK) {
        s = pml_comm_create(0, pml.size, pml.rank, ids, &world); /* (pml_comms.world) */
    }
    if (s == RCMSG_OK) { /* (pml_comms.world_private) */
        s = pml_comm_create(PML_CTX_WORLD_PRIVATE, pml.size, pml.rank, ids, &world);
    }
    free(ids);
    if (s != RCMSG_OK) {
        return s;
    }
    rcmsg_info("point-to-point: %d eager credits per peer, rendezvous reads of %zu bytes, %d in "
               "flight",
               pml.credits, pml_rcv.chunk, pml_rcv.max_reads);
    return rcmsg_progress_init(w->btls.btls, w->btls.n, pml_progress, NULL, w->job.local_size);
}

/* Failed, or a BREAK said so: finalize sends it nothing more (its transport forgot it). */
static bool peer_lost(int i)
{
    return pml_peer_failed(i) || pml_peer_gone(i) != RCMSG_OK;
}

static bool ctl_pending(void)
{
    for (int i = 0; i < pml.npending; i++) {
        if (pml_snd.peers[pml.pending_peers[i]].nctl > 0 && !peer_lost(pml.pending_peers[i])) {
            return true;
        }
    }
    return false;
}

static void unexp_free(rcmsg_match_msg_t *m, void *arg)
{
    (void)arg;
    free(RCMSG_MATCH_ITEM(m, pml_unexp_t, m));
}

/* A message never received at finalize: refused (pml_msg_refuse: a rendezvous sender, waiting
 * for its FIN, is told; a CANCEL of an eager one is answered 'taken back'). */
static void unexp_refuse_fini(rcmsg_match_msg_t *m, void *arg)
{
    pml_unexp_t *u = RCMSG_MATCH_ITEM(m, pml_unexp_t, m);

    (void)arg;
    pml_msg_refuse(u->peer, &u->h, "this rank is in rcmsg_finalize", RCMSG_LOG_DEBUG,
                   RCMSG_ERR_STATE);
    free(u);
}

/* What the transports hold is read (a peer's CANCEL, RTS or message sent before this rank came
 * here is answered now, not after the closing barrier); bounded: a peer may keep sending. */
static void fini_poll_idle(void)
{
    for (int k = 0; k < PML_FINI_POLLS && rcmsg_progress() > 0; k++) {
    }
}

/* The peers lost during the job (failed, or a BREAK said so): said in one line; their
 * transports stop waiting for them (rc's flush would wait RCMSG_DRAIN_TIMEOUT for sends to a
 * dead peer, or one it still recovers). */
static void forget_lost(void)
{
    char list[256];
    size_t off = 0;
    int n = 0;

    for (int i = 0; i < pml.size; i++) {
        if (!peer_lost(i) || i == pml.rank) {
            continue;
        }
        pml.peers[i].btl->ops->forget(pml.peers[i].btl, i);
        if (off + 16 < sizeof(list)) {
            off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%d", n ? ", " : "", i);
        } else if (off + 4 < sizeof(list) && list[off - 1] != '.') {
            off += (size_t)snprintf(list + off, sizeof(list) - off, "...");
        }
        n++;
    }
    if (n > 0) {
        rcmsg_warn("finalize: %d rank(s) lost during the job (%s): nothing is flushed to them; the "
                   "survivors part without the launcher's barrier",
                   n, list);
    }
}

/* One round of the survivors' parting: BYEs not sent yet go out (to every peer not failed:
 * one that a BREAK named lost may be alive); returns how many survivors' BYEs are missing. */
static int bye_round(bool *sent)
{
    int missing = 0;

    for (int i = 0; i < pml.size; i++) {
        if (i == pml.rank || pml_peer_failed(i)) {
            continue;
        }
        if (!sent[i]) {
            sent[i] = pml_bye_xmit(i) != RCMSG_ERR_NO_RESOURCE; /* another error: lost meanwhile */
        }
        missing += !peer_lost(i) && (!sent[i] || !pml_rx.peers[i].bye);
    }
    return missing;
}

/* Probes the survivors whose BYE is missing (no request is pending, so the liveness rounds
 * probe nobody): one that died, or left without rcmsg_finalize, fails within rc's retry bound
 * rather than after RCMSG_LAUNCHER_TIMEOUT (sm notices a process gone by itself). */
static void bye_probe(void)
{
    for (int i = 0; i < pml.size; i++) {
        if (i != pml.rank && !peer_lost(i) && !pml_rx.peers[i].bye) {
            (void)pml.peers[i].btl->ops->ping(pml.peers[i].btl, i);
        }
    }
}

/* After a loss the launcher's closing barrier would wait for the lost ranks: the survivors part
 * among themselves instead. Each flushes its sends (no survivor has left: none leaves before
 * every BYE came), then sends a BYE to the others and waits for theirs, until a rank fails
 * (probed every RCMSG_LIVENESS_INTERVAL) or RCMSG_LAUNCHER_TIMEOUT. The BYEs are not flushed:
 * their receivers wait for them. */
static rcmsg_status_t survivors_part(void)
{
    rcmsg_status_t status = RCMSG_OK;
    rcmsg_deadline_t deadline, probe;
    bool *sent = calloc((size_t)pml.size, sizeof(bool));
    int missing;

    for (int i = 0; i < pml.w->btls.n; i++) {
        rcmsg_status_t f = pml.w->btls.btls[i]->ops->flush(pml.w->btls.btls[i]);
        status = status == RCMSG_OK ? f : status;
    }
    if (sent == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    deadline = rcmsg_deadline_in(pml_cfg.bye_timeout_us);
    probe = rcmsg_deadline_in(pml_live.watch_interval_us);
    while ((missing = bye_round(sent)) > 0 && !rcmsg_deadline_passed(deadline)) {
        rcmsg_progress();
        if (rcmsg_deadline_passed(probe)) {
            bye_probe();
            probe = rcmsg_deadline_in(pml_live.watch_interval_us);
        }
    }
    free(sent);
    if (missing > 0) {
        rcmsg_error("finalize: %d surviving rank(s) did not reach rcmsg_finalize within "
                    "RCMSG_LAUNCHER_TIMEOUT",
                    missing);
        return RCMSG_ERR_TIMEOUT;
    }
    return status;
}

rcmsg_status_t rcmsg_pml_fini(void)
{
    rcmsg_status_t status = RCMSG_OK;
    rcmsg_deadline_t deadline;
    long nunexp;

    if (pml.peers == NULL) {
        pml_states_fini();
        pml_reqs_fini();
        pml_comms_fini();
        return RCMSG_OK; /* init failed early */
    }
    if (pml_reqs.live_reqs > 0) {
        rcmsg_error("rcmsg_finalize refused: %ld request(s) not completed by wait or test",
                    pml_reqs.live_reqs);
        return RCMSG_ERR_PENDING;
    }
    /* from here every message that comes is refused (on_msg), as those never received: a
     * rendezvous sender is released (its send fails with RCMSG_ERR_STATE, or is cancelled)
     * instead of waiting for this rank forever */
    pml.finalizing = true;
    pml_send_ctl_filter();
    fini_poll_idle();
    nunexp = pml_rcv.match.nmsgs;
    rcmsg_match_fini(&pml_rcv.match, unexp_refuse_fini, NULL);
    rcmsg_match_init(&pml_rcv.match, pml.size); /* (stays empty: on_msg refuses) */
    forget_lost();
    deadline = rcmsg_deadline_in(pml_cfg.drain_timeout_us);
    while (ctl_pending()) {
        rcmsg_progress();
        if (rcmsg_deadline_passed(deadline)) {
            rcmsg_error("finalize: rendezvous FINs and cancel answers could not be sent within "
                        "RCMSG_DRAIN_TIMEOUT; peers waiting for them will not complete");
            break;
        }
    }
    pml_parted = pml.any_failed;
    if (pml_parted) {
        status = survivors_part();
    }
    /* from here on the transports may still deliver (their flush, the closing barrier):
     * answered by pml_fini_recv.c */
    pml_fini_recv_begin();
    rcmsg_info("unexpected queue peaked at %ld message(s) holding %zu payload bytes (bounded by "
               "%d eager credits per peer)",
               pml_rcv.unexp_peak, pml_rcv.unexp_bytes_peak, pml.credits);
    if (nunexp + pml_rcv.match.nmsgs > 0) {
        rcmsg_info("%ld unexpected message(s) were never received", nunexp + pml_rcv.match.nmsgs);
    }
    rcmsg_match_fini(&pml_rcv.match, unexp_free, NULL);
    for (rcmsg_queue_link_t *l; (l = rcmsg_queue_first(&pml_comms.live)) != NULL;) {
        pml_comm_destroy(RCMSG_CONTAINER_OF(l, struct rcmsg_comm, live_link));
    }
    pml_comms_fini();
    rcmsg_rcache_fini();
    rcmsg_progress_fini(); /* SIGUSR1 stays caught: the wireup's fence prints the dump now */
    pml_reqs_fini();
    pml_ctx_fini();
    pml_states_fini();
    rcmsg_pml_set_comm_check(NULL);
    return status;
}
