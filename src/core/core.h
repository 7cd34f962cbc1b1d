/* SPDX-License-Identifier: BSD-3-Clause */
/* The process-wide state behind the public API. */
#ifndef RCMSG_CORE_H
#define RCMSG_CORE_H

#include "wireup/wireup.h"

/* The job's wireup (transports per peer), or NULL before rcmsg_init(). For tests and the
 * layers above the transports. */
rcmsg_wireup_t *rcmsg_core_wireup(void);

#endif /* RCMSG_CORE_H */
