/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Addresses on first use (wireup_lazy.c), inside wireup: when the transport that serves every
 * rank fetches addresses on demand (btl_component.h: addr_on_demand, rc's lazy connect),
 * rcmsg_init fetches only the addresses of this node's ranks (when a node transport, sm, is
 * open; none otherwise) and the fence of the exchange collects no data: init makes O(1)
 * PMIx_Get calls in the number of ranks. The transport fetches any other peer's address when
 * it first needs it (a first message to it, or its connect request), through addr_fetch: one
 * PMIx_Get, bounded by RCMSG_LAUNCHER_TIMEOUT and cut short when the launcher is gone.
 */
#ifndef RCMSG_WIREUP_LAZY_H
#define RCMSG_WIREUP_LAZY_H

#include "wireup.h"

#include <pmix.h>

/* Whether this job fetches addresses on first use: the same answer on every rank (from the
 * configuration and the job size alone, whatever this rank's open did). */
bool rcmsg_wireup_lazy_wanted(const rcmsg_wireup_t *w);

/* After the transports opened: which peers get their address later (w->deferred) and the
 * fetch hook of the transport that serves them (w->lazy_btl). */
rcmsg_status_t rcmsg_wireup_lazy_plan(rcmsg_wireup_t *w);

/* (wireup.c) One peer's blob (PMIx_Get, bounded; counted); *val_p released by the caller. */
rcmsg_status_t rcmsg_wireup_get_addr(rcmsg_wireup_t *w, int peer, pmix_value_t **val_p);

/* (wireup.c) The sections of a peer's blob for this rank's opened transports; an error when
 * the blob is malformed or says the peer failed its rcmsg_init (logged). */
rcmsg_status_t rcmsg_wireup_peer_sections(rcmsg_wireup_t *w, int peer, const void *blob, size_t len,
                                          rcmsg_btl_section_t *secs, int *nsecs_p);

#endif /* RCMSG_WIREUP_LAZY_H */
