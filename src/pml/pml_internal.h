/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every header of the pml's files, from the bottom up (test/unit/layering.sh holds their
 * order): each file's state and functions are declared in its own header.
 */
#ifndef RCMSG_PML_INTERNAL_H
#define RCMSG_PML_INTERNAL_H

#include "pml_types.h"
#include "pml_base.h"
#include "pml_handle.h"
#include "pml_check.h"
#include "pml_req.h"
#include "pml_send.h"
#include "pml_recv.h"
#include "pml_break.h"
#include "pml_cancel.h"
#include "pml_fail.h"
#include "pml_dump.h"
#include "pml_liveness.h"
#include "pml_wait.h"
#include "pml_ctx.h"
#include "pml_rx.h"
#include "pml_comm.h"
#include "pml_fini_recv.h"

#endif /* RCMSG_PML_INTERNAL_H */
