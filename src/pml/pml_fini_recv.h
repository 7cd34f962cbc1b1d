/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Between rcmsg_pml_fini and the end of the closing barrier (pml_fini_recv.c).
 */
#ifndef RCMSG_PML_FINI_RECV_H
#define RCMSG_PML_FINI_RECV_H

#include "pml_comm.h"

/* The last step of rcmsg_pml_fini before it releases the pml: the transports' callbacks
 * become the finalize-time ones, which answer until the closing barrier ends. */
void pml_fini_recv_begin(void);

#endif /* RCMSG_PML_FINI_RECV_H */
