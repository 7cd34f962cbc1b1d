/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A lost peer (pml_fail.c).
 */
#ifndef RCMSG_PML_FAIL_H
#define RCMSG_PML_FAIL_H

#include "pml_cancel.h"

/* The transports' fail_cb (and pml_base.h's hook): marks the peer's loss (pml_peer_set_lost);
 * cause: why, in words, or NULL. */
void pml_on_peer_failed(void *arg, int peer, rcmsg_status_t status, const char *cause);
/* The launcher's news (rcmsg_wireup_poll): rank terminated. */
void pml_on_rank_lost(void *arg, int rank);
/* Without the launcher the job is over: every request fails with status. */
void pml_launcher_lost(rcmsg_status_t status);

#endif /* RCMSG_PML_FAIL_H */
