/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bottom of the pml: the job's shared state (its peers), the message headers' names,
 * the sequence compare, memory registration through the cache, the record of discarded
 * eager messages, and the way up to the failure of a peer (a hook: the files below
 * pml_fail.c report a peer that sent bad data through it, as the transports do).
 */
#include "config.h"

#include "pml_internal.h"

#include "base/config_table.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pml_base_t pml;

static const char *const pml_msg_names[] = {
#define RCMSG_PML_MSG_NAME(name) #name,
    RCMSG_PML_MSG_LIST(RCMSG_PML_MSG_NAME)
#undef RCMSG_PML_MSG_NAME
};
RCMSG_ASSERT_COVERS(pml_msg_names, RCMSG_PML_MSG_COUNT);

const char *rcmsg_pml_msg_name(unsigned type)
{
    return type < RCMSG_PML_MSG_COUNT ? pml_msg_names[type] : "UNKNOWN";
}

rcmsg_pml_seq_t rcmsg_pml_seq_check(uint32_t expected, uint32_t got)
{
    if (got == expected) {
        return RCMSG_PML_SEQ_IN_ORDER;
    }
    return (int32_t)(got - expected) < 0 ? RCMSG_PML_SEQ_DUPLICATE : RCMSG_PML_SEQ_GAP;
}

/* Registers r's [buf, buf+len) on btl through the cache: r->reg and r->mem on success. */
rcmsg_status_t pml_mem_get(rcmsg_btl_t *btl, rcmsg_request_t r, void *buf, size_t len,
                           bool remote_read)
{
    const void *handle;
    rcmsg_status_t s = rcmsg_rcache_get(btl, buf, len, remote_read, &r->reg, &handle);

    if (s == RCMSG_OK) {
        r->mem = handle;
    }
    return s;
}

void pml_seqs_add(pml_seqs_t *s, uint32_t seq)
{
    if (s->n == PML_DROPPED_MAX) { /* the oldest goes: a CANCEL of it is answered 'not' */
        memmove(s->v, s->v + 1, sizeof(*s->v) * (size_t)(s->n - 1));
        s->n--;
    }
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        uint32_t *v = realloc(s->v, sizeof(*v) * (size_t)cap);
        if (v == NULL) {
            rcmsg_warn("out of memory to remember a discarded message: a cancel of it will be "
                       "answered 'not taken back'");
            return;
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = seq;
}

bool pml_seqs_take(pml_seqs_t *s, uint32_t seq)
{
    for (int i = s->n - 1; i >= 0; i--) {
        if (s->v[i] == seq) { /* (the order kept: the oldest is the first) */
            memmove(s->v + i, s->v + i + 1, sizeof(*s->v) * (size_t)(s->n - i - 1));
            s->n--;
            return true;
        }
    }
    return false;
}

/* A peer sent what no correct rank sends: it is treated as lost (its requests fail with
 * RCMSG_ERR_PEER_DATA), and nothing more of its is taken. */
void pml_peer_bad(int peer, const char *fmt, ...)
{
    char why[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    rcmsg_error("rank %d sent bad data: %s; rank %d is treated as lost", peer, why, peer);
    pml_peer_fail(peer, RCMSG_ERR_PEER_DATA, why);
}

rcmsg_status_t pml_base_init(rcmsg_wireup_t *w)
{
    pml.w = w;
    pml.rank = w->job.rank;
    pml.size = w->job.size;
    pml.credits = (int)rcmsg_config_int(RCMSG_CFG_EAGER_CREDITS); /* (before the send side's) */
    pml.peers = calloc((size_t)pml.size, sizeof(*pml.peers));
    pml.pending_peers = calloc((size_t)pml.size, sizeof(int));
    return pml.peers != NULL && pml.pending_peers != NULL ? RCMSG_OK : RCMSG_ERR_NO_MEMORY;
}

void pml_peer_link(int peer, rcmsg_btl_t *btl, size_t eager_limit)
{
    pml_peer_t *p = &pml.peers[peer];

    p->btl = btl;
    p->stat = rcmsg_stats_row(peer);
    p->max_inline = btl->caps.max_inline;
    p->eager_limit = eager_limit;
}

void pml_peer_set_lost(int peer, rcmsg_status_t why)
{
    pml.peers[peer].loss.failed = true;
    pml.peers[peer].loss.why = why;
}

void pml_peer_set_reported(int peer)
{
    pml.peers[peer].loss.reported = true;
}

void pml_base_fini(void)
{
    free(pml.peers);
    free(pml.pending_peers);
    memset(&pml, 0, sizeof(pml));
}

void pml_set_peer_fail(pml_peer_fail_t fail)
{
    pml.peer_fail = fail;
}

void pml_peer_fail(int peer, rcmsg_status_t status, const char *cause)
{
    pml.peer_fail(NULL, peer, status, cause);
}
