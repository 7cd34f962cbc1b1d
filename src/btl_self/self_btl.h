/* SPDX-License-Identifier: BSD-3-Clause */
/* btl_self: messages from a rank to itself, delivered from progress() (never re-entrantly). */
#ifndef RCMSG_BTL_SELF_H
#define RCMSG_BTL_SELF_H

#include "btl/btl.h"

rcmsg_status_t rcmsg_self_btl_open(const rcmsg_btl_job_t *job, rcmsg_btl_t **btl_p);

#endif /* RCMSG_BTL_SELF_H */
