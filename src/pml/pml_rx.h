/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What peers send, as the transports hand it over (pml_rx.c).
 */
#ifndef RCMSG_PML_RX_H
#define RCMSG_PML_RX_H

#include "pml_ctx.h"

/* The transports' recv_cb. */
bool pml_on_recv(void *arg, int peer, const void *data, size_t len);

#endif /* RCMSG_PML_RX_H */
