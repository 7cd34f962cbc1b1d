/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The state dump: what a rank waits for and why, printed when a wait made no progress for
 * RCMSG_STALL_TIMEOUT (once per stall) or on SIGUSR1 (the handler only sets a flag; the next
 * progress round prints; inside rcmsg_finalize, once the pml is released, the wireup and the
 * transports print theirs: base/dump_signal.h). Lines start "rcmsg dump [rank R]:";
 * rcmsg_info --dump explains them.
 *
 *   begin (why)
 *   request ...      every request not yet completed: kind, peer, tag, context, length, step
 *   unexpected ...   every message waiting for a receive
 *   peer ...         every peer with something to say: transport, credits both ways, queue
 *   (transport)      each transport's own lines (rc: QPs with hardware state, the CM)
 *   end
 */
#include "config.h"

#include "pml_internal.h"

#include "base/config_table.h"

#include "base/dump_signal.h"
#include "btl/btl_component.h"
#include "progress/progress.h"

#include <string.h>

pml_stall_t pml_stall;

/* SIGUSR1 asks for a dump, unless the application handles it itself (base/dump_signal.h:
 * kept until rcmsg_finalize returns; the pml's progress prints while the pml is up). */
void pml_dump_init(void)
{
    pml_stall.stall_us = rcmsg_config_time_us(RCMSG_CFG_STALL_TIMEOUT);
    rcmsg_dump_signal_install();
    pml_stall.stall_since_us = rcmsg_clock_coarse_us();
}

void pml_dump_fini(void)
{
    memset(&pml_stall, 0, sizeof(pml_stall));
}

static const char *req_step(const struct rcmsg_request *r, char *buf, size_t cap)
{
    if (r->kind == PML_REQ_SEND) {
        if (r->cancel_wait) {
            snprintf(buf, cap, "cancel asked, waiting for the receiver's answer");
        } else if (r->queued) {
            snprintf(buf, cap, "queued (%s)",
                     pml_snd.peers[r->peer].credits == 0 ? "no eager credit" : "transport full");
        } else {
            snprintf(buf, cap, r->rndv ? "rts sent, waiting for fin" : "sending");
        }
    } else if (r->peer < 0) {
        snprintf(buf, cap, "posted, unmatched");
    } else if (r->rndv) {
        snprintf(buf, cap, "matched, read %zu of %zu bytes, %d read(s) in flight", r->done,
                 r->msg_len, r->reads_out);
    } else {
        snprintf(buf, cap, "matched");
    }
    return buf;
}

static int dump_requests(void)
{
    int n = 0;

    for (uint32_t i = 0; i < (uint32_t)pml_reqs.nreq_chunks * PML_REQ_CHUNK; i++) {
        const struct rcmsg_request *r = pml_req_at(i);
        char peer[16], step[96];

        if (!r->in_use || r->complete) {
            continue;
        }
        if (r->kind == PML_REQ_OWNED) { /* no message of its own: its schedule's are listed */
            rcmsg_log_dump("request collective peer - step a nonblocking collective's schedule "
                           "(its messages are the requests marked (collective))");
            n++;
            continue;
        }
        if (r->kind == PML_REQ_SEND || r->peer >= 0) {
            snprintf(peer, sizeof(peer), "%d", r->peer);
        } else if (r->src_world >= 0) {
            snprintf(peer, sizeof(peer), "%d", r->src_world);
        } else {
            snprintf(peer, sizeof(peer), "any");
        }
        rcmsg_log_dump("request %s peer %s tag %d ctx %u%s len %zu step %s",
                       r->kind == PML_REQ_SEND ? "send" : "recv", peer, r->tag, r->ctx & ~1u,
                       r->ctx & 1u ? " (collective)" : "", r->len, req_step(r, step, sizeof(step)));
        n++;
    }
    return n;
}

static void dump_unexpected(void)
{
    for (rcmsg_hash_link_t *l = rcmsg_hash_first(&pml_rcv.match.ctxs); l != NULL;
         l = rcmsg_hash_next(&pml_rcv.match.ctxs, l)) {
        rcmsg_match_ctx_t *mc = RCMSG_CONTAINER_OF(l, rcmsg_match_ctx_t, hash);

        for (rcmsg_queue_link_t *q = rcmsg_queue_first(&mc->unexp_all); q != NULL;
             q = rcmsg_queue_next(q)) {
            const pml_unexp_t *u = RCMSG_CONTAINER_OF(q, pml_unexp_t, m.by_ctx);

            rcmsg_log_dump("unexpected peer %d tag %d ctx %u%s len %llu %s%s", u->peer, u->m.tag,
                           u->m.ctx & ~1u, u->m.ctx & 1u ? " (collective)" : "",
                           (unsigned long long)u->h.hdr.len, rcmsg_pml_msg_name(u->h.hdr.type),
                           u->orphan ? " (no communicator yet)" : "");
        }
    }
}

static size_t queue_length(const rcmsg_queue_t *q)
{
    size_t n = 0;

    for (const rcmsg_queue_link_t *l = rcmsg_queue_first(q); l != NULL; l = rcmsg_queue_next(l)) {
        n++;
    }
    return n;
}

static void dump_peers(void)
{
    for (int i = 0; i < pml.size; i++) {
        const pml_send_peer_t *p = &pml_snd.peers[i];
        bool failed = pml_peer_failed(i);

        if (i == pml.rank) {
            continue;
        }
        rcmsg_log_dump("peer %d %s credits %d owed %d sendq %zu fins %d failed %s%s%s", i,
                       pml.peers[i].btl->name, p->credits, p->owed, queue_length(&p->sendq),
                       p->nctl, failed ? "yes" : "no", failed ? " " : "",
                       failed ? rcmsg_status_name(pml_peer_why(i)) : "");
    }
}

void pml_dump(const char *why)
{
    rcmsg_rstat_add(RCMSG_RSTAT_stall_dumps, 1);
    rcmsg_log_dump("begin (%s)", why);
    dump_requests();
    dump_unexpected();
    dump_peers();
    for (int i = 0; i < pml.w->btls.n; i++) {
        rcmsg_btl_t *btl = pml.w->btls.btls[i];

        if (btl->component != NULL && btl->component->dump_state != NULL) {
            btl->component->dump_state(btl);
        }
    }
    rcmsg_log_dump("end");
}

/* Whether some request is not completed yet (completed ones only wait to be collected). */
static bool reqs_pending(void)
{
    for (uint32_t i = 0; i < (uint32_t)pml_reqs.nreq_chunks * PML_REQ_CHUNK; i++) {
        const struct rcmsg_request *r = pml_req_at(i);
        if (r->in_use && !r->complete) {
            return true;
        }
    }
    return false;
}

/* From waits and progress: dumps once when nothing happened for RCMSG_STALL_TIMEOUT while
 * requests are pending; a new request, message, read or completion, or a progress hook that
 * advanced something (rcmsg_progress_register), starts the clock again. */
void pml_stall_check(void)
{
    uint64_t now, activity;
    char why[96];

    if (pml_stall.stall_us == 0) {
        return;
    }
    now = rcmsg_clock_coarse_us(); /* every idle round: no system call */
    activity = pml.activity + rcmsg_progress_hooks_advanced();
    if (activity != pml_stall.stall_activity || pml_reqs.live_reqs == 0) {
        pml_stall.stall_activity = activity;
        pml_stall.stall_since_us = now;
        pml_stall.stall_dumped = false;
        return;
    }
    if (pml_stall.stall_dumped || now - pml_stall.stall_since_us < pml_stall.stall_us ||
        !reqs_pending()) {
        return;
    }
    pml_stall.stall_dumped = true;
    snprintf(why, sizeof(why), "no progress for %.1f s with requests pending: RCMSG_STALL_TIMEOUT",
             (double)(now - pml_stall.stall_since_us) / 1e6);
    pml_dump(why);
}

void rcmsg_pml_dump_describe(FILE *out)
{
    fputs("# State dump: printed once when a wait makes no progress for RCMSG_STALL_TIMEOUT with\n"
          "# requests pending, and at the next progress call after SIGUSR1 (kill -USR1 <pid>;\n"
          "# not installed when the application has its own SIGUSR1 handler). Every line starts\n"
          "# 'rcmsg dump [rank R]: ' and is one of (SIGUSR1 stays caught until rcmsg_finalize\n"
          "# returns):\n"
          "begin (why)            what asked for the dump\n"
          "request KIND peer P tag T ctx C len L step S\n"
          "                       a request not completed: KIND send or recv; P the peer's rank\n"
          "                       in the job (any: ANY_SOURCE); C the communicator's context\n"
          "                       (\"(collective)\": a collective's message); S where it is:\n"
          "                       queued (no eager credit | transport full), sending, rts sent,\n"
          "                       waiting for fin, cancel asked, waiting for the receiver's\n"
          "                       answer (its next progress), posted, unmatched, matched, read B\n"
          "                       of L bytes\n"
          "request collective peer - step S\n"
          "                       a nonblocking collective not completed (rcmsg_ibarrier, ...):\n"
          "                       its messages are the requests marked (collective)\n"
          "unexpected peer P tag T ctx C len L TYPE\n"
          "                       a message that arrived for no posted receive (EAGER or RTS)\n"
          "peer P TRANSPORT credits N owed M sendq Q fins F failed yes|no [status]\n"
          "                       eager credits this rank may still use towards P, credits it\n"
          "                       owes P, sends queued behind them, FINs to send\n"
          "rc qp 0xQPN peer P state S hw H sq_psn X rq_psn Y wr_out W rd_out R ...\n"
          "                       an rc connection: S the state rcmsg mirrors, H the state\n"
          "                       ibv_query_qp reports now (they differ: the QP broke behind\n"
          "                       rcmsg's back), the PSNs, send work requests and reads in\n"
          "                       flight, and the connection's CM state and recoveries\n"
          "rc cm ...              the connection manager: its UD QP and outstanding packets\n"
          "finalize: ...          SIGUSR1 inside rcmsg_finalize once the requests and\n"
          "                       communicators are released: what it waits for (rc's flush of\n"
          "                       the sends, or the closing barrier), then the transports' lines;\n"
          "                       after the last wait: 'everything released' and the status\n"
          "end\n",
          out);
}
