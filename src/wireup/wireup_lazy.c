/* SPDX-License-Identifier: BSD-3-Clause */
/* Addresses on first use: which peers wait for theirs, and the transport's fetch hook. */
#include "config.h"

#include "wireup_lazy.h"

#include "base/config_table.h"
#include "base/log.h"

#include <stdlib.h>
#include <string.h>

bool rcmsg_wireup_lazy_wanted(const rcmsg_wireup_t *w)
{
    size_t n;
    char *const *items = rcmsg_config_list(RCMSG_CFG_TRANSPORTS, &n);
    const rcmsg_btl_component_t *best = NULL;

    for (int i = 0; i < rcmsg_btl_table.n; i++) {
        const rcmsg_btl_component_t *c = rcmsg_btl_table.comps[i];
        bool allowed = c->always;

        for (size_t k = 0; k < n && !allowed; k++) {
            allowed = strcmp(items[k], c->name) == 0;
        }
        if (allowed && c->reach == RCMSG_BTL_REACH_ANY &&
            (best == NULL || c->priority > best->priority)) {
            best = c;
        }
    }
    return best != NULL && best->addr_on_demand != NULL && best->addr_on_demand(&w->job);
}

/* The addr_fetch of the lazy transport: the peer's blob, its status, this transport's section. */
static rcmsg_status_t lazy_fetch(void *arg, rcmsg_btl_t *btl, int peer, void *buf, size_t *len_p)
{
    rcmsg_wireup_t *w = arg;
    rcmsg_btl_section_t secs[RCMSG_BTL_MAX];
    int nsecs = 0, i = 0;
    pmix_value_t *val = NULL;
    rcmsg_status_t status = rcmsg_wireup_get_addr(w, peer, &val);

    if (status == RCMSG_OK) {
        status = rcmsg_wireup_peer_sections(w, peer, val->data.bo.bytes, val->data.bo.size, secs,
                                            &nsecs);
    }
    while (status == RCMSG_OK && i < nsecs && strcmp(secs[i].name, btl->component->name) != 0) {
        i++;
    }
    if (status == RCMSG_OK && (i == nsecs || secs[i].len > *len_p)) {
        rcmsg_error("peer %d has no %s address this rank can use (it has not opened %s, or its "
                    "address is %zu bytes)",
                    peer, btl->component->name, btl->component->name, i < nsecs ? secs[i].len : 0);
        status = RCMSG_ERR_CONNECTION;
    }
    if (status == RCMSG_OK) {
        memcpy(buf, secs[i].data, secs[i].len);
        *len_p = secs[i].len;
    }
    if (val != NULL) {
        PMIX_VALUE_RELEASE(val);
    }
    return status;
}

/* Marks the ranks of this node (PMIX_LOCAL_PEERS, "0,1,5") in local[]. */
static rcmsg_status_t local_peers(rcmsg_wireup_t *w, bool *local)
{
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    char *p, *end;

    PMIX_LOAD_PROCID(&wild, w->nspace, PMIX_RANK_WILDCARD);
    w->pmix_gets++;
    rc = PMIx_Get(&wild, PMIX_LOCAL_PEERS, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || val == NULL || val->type != PMIX_STRING) {
        rcmsg_error("PMIx_Get(%s) failed: %s: the ranks of this node are needed to fetch the "
                    "other addresses on first use",
                    PMIX_LOCAL_PEERS, PMIx_Error_string(rc));
        if (val != NULL) {
            PMIX_VALUE_RELEASE(val);
        }
        return RCMSG_ERR_LAUNCHER;
    }
    for (p = val->data.string; *p != '\0'; p = *end == ',' ? end + 1 : end) {
        long r = strtol(p, &end, 10);
        if (end == p) {
            break;
        }
        if (r >= 0 && r < w->job.size) {
            local[r] = true;
        }
    }
    PMIX_VALUE_RELEASE(val);
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_wireup_lazy_plan(rcmsg_wireup_t *w)
{
    bool node_btl = false;
    rcmsg_status_t status = RCMSG_OK;

    for (int i = 0; i < w->btls.n; i++) {
        const rcmsg_btl_component_t *c = w->btls.btls[i]->component;
        node_btl |= c->reach == RCMSG_BTL_REACH_NODE;
        if (c->reach == RCMSG_BTL_REACH_ANY &&
            (w->lazy_btl == NULL || c->priority > w->lazy_btl->component->priority)) {
            w->lazy_btl = w->btls.btls[i];
        }
    }
    if (w->lazy_btl == NULL) {
        return RCMSG_OK; /* every peer served by another transport: all fetched at init */
    }
    w->deferred = calloc((size_t)w->job.size, sizeof(*w->deferred));
    if (w->deferred == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    if (node_btl) {
        status = local_peers(w, w->deferred); /* marked local first, inverted below */
    }
    for (int peer = 0; peer < w->job.size && status == RCMSG_OK; peer++) {
        w->deferred[peer] = peer != w->job.rank && !(node_btl && w->deferred[peer]);
        w->lazy_btl->addr_later += w->deferred[peer];
    }
    w->lazy_btl->addr_fetch = lazy_fetch;
    w->lazy_btl->addr_fetch_arg = w;
    rcmsg_info("addresses on first use: %d peer(s) through %s fetch theirs when first needed",
               w->lazy_btl->addr_later, w->lazy_btl->component->name);
    return status;
}
