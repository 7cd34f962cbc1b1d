/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What peers send, as the transports hand it over (pml_rx.c).
 */
#ifndef RCMSG_PML_RX_H
#define RCMSG_PML_RX_H

#include "pml_ctx.h"

typedef struct {
    pml_rx_peer_t *peers; /* indexed by world rank */
} pml_rx_t;

extern pml_rx_t pml_rx;

rcmsg_status_t pml_rx_init(void);
void pml_rx_fini(void);
/* The transports' recv_cb. */
bool pml_on_recv(void *arg, int peer, const void *data, size_t len);

#endif /* RCMSG_PML_RX_H */
