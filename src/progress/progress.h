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
int rcmsg_progress_hooks_run(int n);
/* The sum of the counts the public hooks returned (progress, for the stall clock). */
uint64_t rcmsg_progress_hooks_advanced(void);

/* Called after a round that handled nothing; *idle counts consecutive idle rounds. Returns
 * whether it slept (event and hybrid waits). */
bool rcmsg_progress_idle(unsigned *idle);

#endif /* RCMSG_PROGRESS_H */
