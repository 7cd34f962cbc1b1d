/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A member of a communicator is lost: its collectives break (pml_break.c).
 */
#ifndef RCMSG_PML_BREAK_H
#define RCMSG_PML_BREAK_H

#include "pml_recv.h"

/* World rank peer is lost with status: every communicator with it among its members breaks
 * (pml_comm_break); unless told by world rank reporter (-1: this rank saw it), the launcher
 * reported it, or it is this rank, their other members are told (BREAK). */
/* What each peer is lost with (failed, or a BREAK said so), written here only: the status
 * collectives with it fail with (communicators made from now on are broken at once);
 * RCMSG_OK while it is not known lost. */
typedef struct {
    rcmsg_status_t *gone; /* indexed by world rank */
} pml_break_t;

extern pml_break_t pml_brk;

static inline rcmsg_status_t pml_peer_gone(int peer)
{
    return pml_brk.gone[peer];
}

rcmsg_status_t pml_break_init(void);
void pml_break_fini(void);
void pml_comms_break(int peer, rcmsg_status_t status, int reporter);
void pml_comm_break(struct rcmsg_comm *c, int peer, rcmsg_status_t status, int reporter);

#endif /* RCMSG_PML_BREAK_H */
