/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The abort of the whole job (rcmsg_abort, MPI_Abort, MPI_ERRORS_ARE_FATAL): the launcher is
 * asked to end every rank, then this process exits with the status.
 *
 * A rank that only exits relies on the launcher ending the others when one leaves early,
 * which `mpirun --enable-recovery` and srun (KillOnBadExit=0) do not do. So: PMIx_Abort of
 * the namespace (srun cancels the step, mpirun ends the job and exits with the status, unless
 * recovery is on), then a job-control kill of the namespace (mpirun kills the ranks even with
 * recovery on), then, under mpirun with recovery on, a SIGTERM to mpirun (its continuous
 * operation mode exits 0 whatever the ranks' statuses: mpirun then exits 1).
 *
 * Every step is bounded: PMIx_Abort waits for the server's answer (a hung server would keep
 * the rank forever), and the flush of stdio's buffers blocks on a full pipe nobody reads, so
 * a watchdog thread, started first, exits the process after WIREUP_ABORT_WAIT_MS whatever
 * they do; its own message is written only if stderr can take it at once. Without a
 * launcher (singleton: PMIx_Abort returns there without exiting) the process exits once its
 * output is flushed.
 */
#include "config.h"

#include "wireup.h"

#include "base/config_table.h"
#include "base/log.h"

#include <pmix.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* how long an abort waits for the launcher before the process exits by itself */
#define WIREUP_ABORT_WAIT_MS 5000
/* how long it waits for the launcher's answer to the kill of the job */
#define WIREUP_ABORT_KILL_MS 2000

static int abort_status = 1;
static atomic_int abort_kill_done;

static void abort_sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* The watchdog's message: written to stderr only if it takes it without blocking (a full
 * pipe must not keep the process from exiting). */
static void watchdog_say(void)
{
    char msg[160];
    struct pollfd pfd = {.fd = STDERR_FILENO, .events = POLLOUT};
    int n = snprintf(msg, sizeof(msg),
                     "rcmsg: warning: abort: not ended by the launcher, or its output not "
                     "flushed, within %d ms; exiting\n",
                     WIREUP_ABORT_WAIT_MS);

    if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLOUT) != 0 && n > 0) {
        ssize_t w = write(STDERR_FILENO, msg, (size_t)n); /* less than PIPE_BUF: no block */
        (void)w;
    }
}

static void *abort_watchdog(void *arg)
{
    (void)arg;
    abort_sleep_ms(WIREUP_ABORT_WAIT_MS);
    watchdog_say();
    _exit(abort_status);
}

static void kill_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                      pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)status, (void)info, (void)ninfo, (void)cbdata;
    atomic_store(&abort_kill_done, 1);
    if (release_fn != NULL) {
        release_fn(release_cbdata);
    }
}

/* Asks the launcher to kill every process of the job: Open MPI's mpirun does so whatever
 * --enable-recovery says (PMIx_Abort does not there); a launcher without job control
 * answers NOT-SUPPORTED (srun ends the step at PMIx_Abort). */
static void abort_kill(void)
{
    pmix_info_t info;
    bool yes = true;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info, PMIX_JOB_CTRL_KILL, &yes, PMIX_BOOL);
    rc = PMIx_Job_control_nb(NULL, 0, &info, 1, kill_done, NULL); /* NULL: the whole job */
    if (rc != PMIX_SUCCESS) {
        rcmsg_debug("abort: PMIx_Job_control_nb(KILL): %s", PMIx_Error_string(rc));
        return;
    }
    for (int ms = 0; ms < WIREUP_ABORT_KILL_MS && atomic_load(&abort_kill_done) == 0; ms++) {
        abort_sleep_ms(1);
    }
}

/* Under `mpirun --enable-recovery` Open MPI runs the job in continuous operation: mpirun
 * exits 0 whatever the ranks' statuses (even after Open MPI's own MPI_Abort). When this rank
 * is mpirun's child, a SIGTERM to mpirun makes it end the job and exit nonzero (1). */
static void abort_recovery_mpirun(void)
{
    const char *recovery = rcmsg_config_foreign("OMPI_MCA_orte_enable_recovery");
    pid_t parent = getppid();
    char path[64], comm[32] = "";
    FILE *f;

    if (recovery == NULL || strcmp(recovery, "1") != 0 || parent <= 1) {
        return;
    }
    snprintf(path, sizeof(path), "/proc/%d/comm", (int)parent);
    f = fopen(path, "r");
    if (f == NULL) {
        return;
    }
    if (fgets(comm, sizeof(comm), f) == NULL) {
        comm[0] = '\0';
    }
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';
    if (strcmp(comm, "mpirun") == 0 || strcmp(comm, "mpiexec") == 0 ||
        strcmp(comm, "orterun") == 0) {
        rcmsg_warn("abort: mpirun --enable-recovery ignores exit statuses: sending it SIGTERM "
                   "so that it exits nonzero");
        kill(parent, SIGTERM);
    }
}

void rcmsg_wireup_abort(rcmsg_wireup_t *w, int status, const char *reason)
{
    pthread_t watchdog;
    pmix_status_t rc;

    abort_status = status;
    if (pthread_create(&watchdog, NULL, abort_watchdog, NULL) != 0) {
        _exit(status); /* unbounded without it: no flush, no launcher */
    }
    fflush(NULL); /* bounded by the watchdog: stdout may be a full pipe nobody reads */
    if (w == NULL || !w->pmix_up || w->singleton) {
        _exit(status); /* this process is the whole job */
    }
    /* first the abort, which the launcher reports with this status (mpirun, srun) */
    rc = PMIx_Abort(status, reason, NULL, 0); /* NULL: every process of this namespace */
    if (rc != PMIX_SUCCESS) {
        rcmsg_warn("abort: PMIx_Abort failed (%s)", PMIx_Error_string(rc));
    }
    abort_kill();
    abort_recovery_mpirun();
    _exit(status);
}
