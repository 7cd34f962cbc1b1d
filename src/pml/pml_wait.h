/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The calls that wait for or test requests (pml_wait.c; rcmsg.h declares them).
 */
#ifndef RCMSG_PML_WAIT_H
#define RCMSG_PML_WAIT_H

#include "pml_liveness.h"

typedef struct {
    struct rcmsg_request *waiting; /* the request rcmsg_wait waits for (pml_on_recv's return) */
} pml_wait_t;

extern pml_wait_t pml_wt;

#endif /* RCMSG_PML_WAIT_H */
