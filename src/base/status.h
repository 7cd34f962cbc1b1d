/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal helpers on rcmsg_status_t (the printable names are public, in rcmsg.h). */
#ifndef RCMSG_BASE_STATUS_H
#define RCMSG_BASE_STATUS_H

#include <stdbool.h>

/* Whether status is one of rcmsg_status_t's values (for statuses that come off the wire). */
bool rcmsg_status_known(int status);

#endif /* RCMSG_BASE_STATUS_H */
