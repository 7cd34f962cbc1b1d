/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The launcher (mpirun, or slurmstepd under srun), as wireup sees it through PMIx: fences and
 * lookups that never wait longer than RCMSG_LAUNCHER_TIMEOUT, and the launcher's liveness.
 *
 * Liveness comes from two sources:
 *  - PMIx events, caught by handlers that run on PMIx's own thread and only set atomics (the
 *    lost server connection; a bitmap of terminated ranks);
 *  - the launcher's process itself: this rank's parent at start (getppid()), a backstop for
 *    when no event comes.
 *
 * What the launchers here deliver (Open MPI 4.1.4 mpirun, Slurm 22.05 mpi/pmix_v4 with
 * OpenPMIx 4.2.2 clients; found by experiment):
 *  - mpirun SIGKILLed: every rank gets PMIX_ERR_LOST_CONNECTION (-61, source: the server's
 *    namespace, rank 0) at once, and its parent becomes another process (init or a
 *    subreaper). The ranks are orphans: nobody kills them.
 *  - slurmstepd SIGKILLed: the same (PMIX_ERR_LOST_CONNECTION, source pmix-server:<pid>),
 *    the ranks are orphans. srun SIGKILLed: slurmstepd kills the ranks itself (no event).
 *  - one rank SIGKILLed: no event reaches the others under either launcher. mpirun kills the
 *    job; slurmstepd's mpi/pmix plugin sees its client's connection drop and cancels the step
 *    (the others are SIGKILLed within ~0.1 s). With mpirun --enable-recovery the others live
 *    on, but mpirun fails to notify them (it logs "PMIX ERROR: BAD-PARAM"), except a rank
 *    that registers its handler after the termination (it is told at once; a fence that
 *    begins then ends at once). The termination handler is for launchers that do notify
 *    (PMIX_EVENT_PROC_TERMINATED and friends).
 *  - one rank exiting (status 0) before PMIx_Init: mpirun aborts the job; srun leaves the
 *    others in the fence forever. Both honour PMIX_TIMEOUT on a fence (PMIX_ERR_TIMEOUT).
 *  - Slurm's fence WITHOUT data collection spans one node only: on two nodes, with the ranks
 *    of one asleep for 4 s, the other's fence returned after 0.02 s (NULL procs, the
 *    namespace's wildcard or the list of every rank alike; each slurmstepd ran its tree
 *    collective as a root with no child), while a collecting fence (its ring collective)
 *    waited the 4 s, as mpirun's fence does either way (the cause inside Slurm not traced;
 *    mpi.conf's PMIxFenceBarrier is read only by its collective benchmark mode). Every fence
 *    here therefore collects under Slurm (namespace "slurm.pmix.JOB.STEP"): the committed
 *    data travels again.
 */
#ifndef RCMSG_WIREUP_LAUNCHER_H
#define RCMSG_WIREUP_LAUNCHER_H

#include "base/queue.h"

#include <rcmsg.h>

#include <pmix.h>
#include <stdbool.h>
#include <stdint.h>

struct rcmsg_wireup_op;

typedef struct rcmsg_wireup_launcher {
    bool watched;   /* handlers registered: a launched (not singleton) job */
    int parent;     /* getppid() at start: the launcher's process */
    int rank, size; /* this rank, and the job size (bits of the bitmaps) */
    char nspace[PMIX_MAX_NSLEN + 1];
    size_t handler[2]; /* PMIx event handler references */
    int nhandlers;
    rcmsg_status_t gone;       /* RCMSG_ERR_LAUNCHER once the launcher is known gone */
    unsigned long events_seen; /* termination events already looked at */
    uint64_t *reported;        /* [words] ranks already passed to lost() */
    rcmsg_queue_t orphans;     /* operations given up on: freed after PMIx_Finalize */
    uint64_t timeout_us;       /* RCMSG_LAUNCHER_TIMEOUT, read once at start */
    char timeout_text[32];     /* ... as the user wrote it, for messages */
    bool always_collect;       /* Slurm's server: a fence without data spans one node only */
} rcmsg_wireup_launcher_t;

typedef void (*rcmsg_wireup_launcher_lost_cb_t)(void *arg, int rank);

/* After PMIx_Init: registers the event handlers, notes the parent process. */
rcmsg_status_t rcmsg_wireup_launcher_start(rcmsg_wireup_launcher_t *l, const pmix_proc_t *me,
                                           int size);

/* After PMIx_Finalize (no handler can run any more): releases what start and the waits left. */
void rcmsg_wireup_launcher_stop(rcmsg_wireup_launcher_t *l);

/* RCMSG_ERR_LAUNCHER once the launcher is gone (logged once, saying why); each rank the
 * launcher reported terminated since the last call goes to lost() once (lost may be NULL).
 * The parent check is rate-limited; the event flags are read on every call. */
rcmsg_status_t rcmsg_wireup_launcher_check(rcmsg_wireup_launcher_t *l,
                                           rcmsg_wireup_launcher_lost_cb_t lost, void *arg);

/* A fence over the whole job (collecting data or not; always collecting under Slurm, whose
 * fence without data is node-local, see above), bounded by RCMSG_LAUNCHER_TIMEOUT.
 * `what` names it in messages ("the address exchange"). RCMSG_ERR_TIMEOUT when it expires,
 * RCMSG_ERR_CONNECTION when a rank the launcher reported terminated (before the fence began:
 * at once; during it: a second later) cut it short, RCMSG_ERR_LAUNCHER when the launcher
 * fails or is gone; logged. */
rcmsg_status_t rcmsg_wireup_launcher_fence(rcmsg_wireup_launcher_t *l, bool collect,
                                           const char *what);

/* The same fence, calling poll(arg) about every millisecond while it waits (the transports
 * keep answering connection handshakes of peers not yet done). */
rcmsg_status_t rcmsg_wireup_launcher_fence_poll(rcmsg_wireup_launcher_t *l, bool collect,
                                                const char *what, void (*poll)(void *arg),
                                                void *arg);

/* PMIx_Get of a rank's key, bounded the same way; *val_p (release with PMIX_VALUE_RELEASE)
 * only on success. Not logged: the caller knows what the key was for. */
rcmsg_status_t rcmsg_wireup_launcher_get(rcmsg_wireup_launcher_t *l, const pmix_proc_t *proc,
                                         const char *key, pmix_value_t **val_p,
                                         pmix_status_t *rc_p);

#endif /* RCMSG_WIREUP_LAUNCHER_H */
