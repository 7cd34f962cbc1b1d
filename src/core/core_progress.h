/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress thread of RCMSG_ASYNC_PROGRESS=full (docs/threads.md "The progress thread"):
 * it advances the data plane (rendezvous reads and their FINs, queued sends, the nonblocking
 * collectives' schedules) over every transport while the application computes.
 */
#ifndef RCMSG_CORE_PROGRESS_H
#define RCMSG_CORE_PROGRESS_H

#include <rcmsg.h>
#include <stdbool.h>

/* Starts the thread, parked until rcmsg_core_progress_go (rcmsg_init calls it before wireup,
 * so that a thread that cannot start fails init on every rank); logs the reason of a failure. */
rcmsg_status_t rcmsg_core_progress_start(void);
/* The pml and the collectives are up: the thread runs rounds from now on. */
void rcmsg_core_progress_go(void);
/* Stops the thread and waits for it (nothing when none runs). Core lock held or not. */
void rcmsg_core_progress_stop(void);
/* Whether the thread runs (between start and stop). */
bool rcmsg_core_progress_running(void);

#endif /* RCMSG_CORE_PROGRESS_H */
