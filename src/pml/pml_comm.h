/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicators (pml_comm.c): creation, adoption of early messages, freeing, and the public
 * communicator calls.
 */
#ifndef RCMSG_PML_COMM_H
#define RCMSG_PML_COMM_H

#include "pml_rx.h"

rcmsg_status_t pml_comm_create(uint32_t ctx, int size, int rank, const int *world,
                               rcmsg_comm_t *comm_p);
void pml_comm_destroy(rcmsg_comm_t c);

#endif /* RCMSG_PML_COMM_H */
