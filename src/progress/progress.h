/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress engine: one call drives every transport's progress() (which polls its CQs in
 * batches of RCMSG_POLL_BATCH and dispatches completions), then the hook of the layer above
 * (the protocol's queued sends), the queued events, and the public hooks that layers built
 * over rcmsg registered (rcmsg_progress_register: progress_hook.c). Waiters call
 * rcmsg_progress_idle() when a round found nothing to do; depending on RCMSG_WAIT_MODE it returns
 * at once (poll), or arms completion events and sleeps until one arrives (event; hybrid after
 * RCMSG_SPIN_COUNT idle rounds). When the node runs more ranks than it has CPUs (RCMSG_YIELD=auto),
 * idle polling rounds give the CPU away with sched_yield(), so the rank being waited for gets to
 * run.
 */
#ifndef RCMSG_PROGRESS_H
#define RCMSG_PROGRESS_H

#include "btl/btl.h"

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

typedef int (*rcmsg_progress_hook_t)(void *arg);

/* The n opened transports to drive (at most RCMSG_BTL_MAX: wireup's set) and the hook run
 * after them; local_size is the number of ranks on this node (for RCMSG_YIELD=auto). */
rcmsg_status_t rcmsg_progress_init(rcmsg_btl_t *const *btls, int n, rcmsg_progress_hook_t hook,
                                   void *hook_arg, int local_size);
void rcmsg_progress_fini(void);
/* Whether this node runs more ranks than it has online CPUs (set by init; RCMSG_YIELD=auto
 * yields then, and the collectives prefer the algorithms with fewer messages in flight). */
bool rcmsg_progress_oversubscribed(void);

/* One round: the transports, the hook of init, pending events, then the public hooks of
 * rcmsg.h (rcmsg_progress_register; not from a round nested in them). Returns the number of
 * things handled (0: nothing happened), the hooks' counts and their nested rounds' included. */
int rcmsg_progress(void);

/* The public hooks (progress_hook.c). rcmsg_progress runs them when there are any (the count
 * is read inline: every round asks): rcmsg_progress_hooks_run(n) returns n, what the round
 * handled before them, plus their counts and what the rounds nested in them handled. */
extern int rcmsg_progress_nhooks;
/* A hook of rcmsg's own (the collectives' schedules): run by the progress thread's rounds too
 * (RCMSG_ASYNC_PROGRESS=full), where the application's hooks and events never run. Unregistered
 * with rcmsg_progress_unregister. */
rcmsg_status_t rcmsg_progress_register_internal(rcmsg_progress_fn_t fn, void *arg);
/* Set in the progress thread of RCMSG_ASYNC_PROGRESS=full (src/core/core_progress.c): its
 * rounds run the transports, the protocol's hook and rcmsg's own hooks, and leave the events
 * and the application's hooks to the application's next call. */
extern __thread bool rcmsg_progress_on_thread __attribute__((tls_model("initial-exec")));
int rcmsg_progress_hooks_run(int n);
/* The sum of the counts the public hooks returned (progress, for the stall clock). */
uint64_t rcmsg_progress_hooks_advanced(void);

/* Arms every transport for a sleep and fills fds (room for RCMSG_BTL_MAX) with their event
 * fds; returns how many, or -1 when a transport refused (work pending, or a path without
 * completion events such as btl_rc's RDMA-write rings: poll instead). Core lock held. */
int rcmsg_progress_arm(struct pollfd *fds);
/* Whether the node has a CPU for each rank and one more thread of each (RCMSG_ASYNC_PROGRESS=
 * full spins a few idle rounds before it sleeps only then). */
bool rcmsg_progress_cpus_spare(void);

/* Called after a round that handled nothing; *idle counts consecutive idle rounds. Returns
 * whether it slept (event and hybrid waits). */
bool rcmsg_progress_idle(unsigned *idle);

#endif /* RCMSG_PROGRESS_H */
