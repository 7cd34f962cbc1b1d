/* SPDX-License-Identifier: BSD-3-Clause */
/* The launcher through PMIx: bounded fences and gets, event handlers, liveness. */
#include "config.h"

#include "wireup_launcher.h"

#include "base/clock.h"
#include "base/config_table.h"
#include "base/log.h"
#include "base/watch.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define LAUNCHER_SLICE_US 100000  /* a bounded wait looks at liveness this often */
#define LAUNCHER_POLL_US  1000    /* and calls its poll callback this often */
#define LAUNCHER_GRACE_US 1000000 /* beyond PMIX_TIMEOUT, for the server to report it first */
#define LAUNCHER_TERM_US  1000000 /* a wait cut short this soon after a rank's termination */

/*
 * What the event handlers share with the rest: written on PMIx's thread, read by the rank's
 * threads. One per process, as PMIx is. The bitmap is allocated before the handlers are
 * registered and freed after PMIx_Finalize, when none can run.
 */
static struct {
    atomic_int lost_code;         /* 0, or the PMIx status that said the server is lost */
    atomic_ulong term_events;     /* termination events received */
    _Atomic uint64_t *terminated; /* [words] ranks the launcher reported terminated */
    int rank, size;
    char nspace[PMIX_MAX_NSLEN + 1];
    int event_fd;      /* written by the handlers: wakes the watch thread (base/watch.h); -1 */
    int parent;        /* this rank's parent at start: the launcher's process */
    int parent_fd;     /* its pidfd, or -1 (the watch thread then looks every LAUNCHER_WATCH_US) */
    atomic_bool said;  /* the launcher's loss was logged (by the watch thread or a wait) */
    atomic_ulong seen; /* termination events the watch thread passed on */
} watch = {.event_fd = -1, .parent_fd = -1};

/* A non-blocking fence in flight; the callback may come after its waiter gave up. */
struct rcmsg_wireup_op {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
    rcmsg_queue_link_t orphan; /* in the launcher's orphans once given up on */
};
typedef struct rcmsg_wireup_op wireup_op_t;

/* The namespace prefix of Slurm's mpi/pmix plugin ("slurm.pmix.JOB.STEP") */
#define SLURM_NSPACE "slurm.pmix."

static rcmsg_status_t watch_register(void);
static void watch_unregister(void);

static size_t bitmap_words(int size)
{
    return ((size_t)size + 63) / 64;
}

/* ---- event handlers (PMIx's thread: atomics only, no rcmsg calls) ---------------------- */

/* The watch thread looks at once (an eventfd write: no lock, no rcmsg state). */
static void watch_wake_thread(void)
{
    uint64_t one = 1;

    if (watch.event_fd >= 0 && write(watch.event_fd, &one, sizeof(one)) < 0) {
        /* full (it is read at each wakeup): the thread is woken anyway */
    }
}

static void on_lost(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    int none = 0;

    (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    atomic_compare_exchange_strong(&watch.lost_code, &none, (int)status);
    watch_wake_thread();
    if (cbfunc != NULL) {
        cbfunc(PMIX_EVENT_NO_ACTION_TAKEN, NULL, 0, NULL, NULL, cbdata);
    }
}

static void mark_terminated(const pmix_proc_t *p)
{
    _Atomic uint64_t *bits = watch.terminated;

    if (p == NULL || bits == NULL || !PMIX_CHECK_NSPACE(p->nspace, watch.nspace) ||
        p->rank >= (pmix_rank_t)watch.size || (int)p->rank == watch.rank) {
        return; /* another job, a wildcard, or this rank itself */
    }
    atomic_fetch_or(&bits[p->rank / 64], UINT64_C(1) << (p->rank % 64));
}

static void on_term(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    bool named = false;

    (void)id, (void)status, (void)results, (void)nresults;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC) {
            mark_terminated(info[i].value.data.proc);
            named = true;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROCS) &&
                   info[i].value.type == PMIX_DATA_ARRAY && info[i].value.data.darray != NULL &&
                   info[i].value.data.darray->type == PMIX_PROC) {
            const pmix_proc_t *procs = info[i].value.data.darray->array;
            for (size_t k = 0; k < info[i].value.data.darray->size; k++) {
                mark_terminated(&procs[k]);
            }
            named = true;
        }
    }
    if (!named) {
        mark_terminated(source);
    }
    atomic_fetch_add(&watch.term_events, 1);
    watch_wake_thread();
    if (cbfunc != NULL) {
        cbfunc(PMIX_EVENT_NO_ACTION_TAKEN, NULL, 0, NULL, NULL, cbdata);
    }
}

static rcmsg_status_t register_handler(rcmsg_wireup_launcher_t *l, pmix_status_t *codes,
                                       size_t ncodes, pmix_notification_fn_t fn, const char *name)
{
    pmix_info_t info;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info, PMIX_EVENT_HDLR_NAME, name, PMIX_STRING);
    rc = PMIx_Register_event_handler(codes, ncodes, &info, 1, fn, NULL, NULL);
    PMIX_INFO_DESTRUCT(&info);
    if (rc < 0) {
        rcmsg_error("PMIx_Register_event_handler(%s) failed: %s", name, PMIx_Error_string(rc));
        return RCMSG_ERR_LAUNCHER;
    }
    l->handler[l->nhandlers++] = (size_t)rc;
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_wireup_launcher_start(rcmsg_wireup_launcher_t *l, const pmix_proc_t *me,
                                           int size)
{
    pmix_status_t lost_codes[] = {PMIX_ERR_LOST_CONNECTION, PMIX_ERR_LOST_CONNECTION_TO_SERVER};
    pmix_status_t term_codes[] = {
        PMIX_EVENT_PROC_TERMINATED,    PMIX_PROC_TERMINATED,
        PMIX_ERR_PROC_ABORTED,         PMIX_ERR_PROC_ABORTING,
        PMIX_ERR_PROC_REQUESTED_ABORT, PMIX_ERR_PROC_TERM_WO_SYNC,
        PMIX_ERR_PROC_KILLED_BY_CMD,   PMIX_ERR_PROC_FAILED_TO_START,
        PMIX_ERR_PROC_ABORTED_BY_SIG,  PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED,
        PMIX_ERR_EXIT_NONZERO_TERM};
    rcmsg_status_t s;

    l->timeout_us = rcmsg_config_time_us(RCMSG_CFG_LAUNCHER_TIMEOUT);
    snprintf(l->timeout_text, sizeof(l->timeout_text), "%s",
             rcmsg_config_text(RCMSG_CFG_LAUNCHER_TIMEOUT));
    l->rank = (int)me->rank;
    l->size = size;
    snprintf(l->nspace, sizeof(l->nspace), "%s", me->nspace);
    l->reported = calloc(bitmap_words(size), sizeof(uint64_t));
    watch.terminated = calloc(bitmap_words(size), sizeof(*watch.terminated));
    if (l->reported == NULL || watch.terminated == NULL) {
        return RCMSG_ERR_NO_MEMORY; /* stop frees what was allocated */
    }
    atomic_store(&watch.lost_code, 0);
    atomic_store(&watch.term_events, 0);
    watch.rank = l->rank;
    watch.size = size;
    snprintf(watch.nspace, sizeof(watch.nspace), "%s", me->nspace);
    l->always_collect = strncmp(me->nspace, SLURM_NSPACE, sizeof(SLURM_NSPACE) - 1) == 0;
    l->parent = (int)getppid();
    watch.parent = l->parent;
    l->watched = true;
    s = watch_register(); /* before the handlers: they write its eventfd */
    s = s == RCMSG_OK ? register_handler(l, lost_codes, sizeof(lost_codes) / sizeof(lost_codes[0]),
                                         on_lost, "rcmsg-lost-server")
                      : s;
    if (s == RCMSG_OK) {
        s = register_handler(l, term_codes, sizeof(term_codes) / sizeof(term_codes[0]), on_term,
                             "rcmsg-proc-terminated");
    }
    rcmsg_debug("watching the launcher: parent pid %d, %d event handler(s)%s", l->parent,
                l->nhandlers,
                l->always_collect ? "; Slurm's PMIx server: every fence collects data (its "
                                    "fence without data spans one node only)"
                                  : "");
    return s;
}

static void op_free(wireup_op_t *op)
{
    pthread_cond_destroy(&op->cond);
    pthread_mutex_destroy(&op->lock);
    free(op);
}

void rcmsg_wireup_launcher_stop(rcmsg_wireup_launcher_t *l)
{
    for (rcmsg_queue_link_t *o; (o = rcmsg_queue_pop_head(&l->orphans)) != NULL;) {
        op_free(RCMSG_CONTAINER_OF(o, wireup_op_t, orphan));
    }
    watch_unregister();
    free(l->reported);
    free((void *)watch.terminated);
    watch.terminated = NULL;
    *l = (rcmsg_wireup_launcher_t){0};
}

/* ---- liveness -------------------------------------------------------------------------- */

/* Why the launcher is gone, in *why (the end of the log line), or false: the lost-connection
 * event, or the parent process. Any thread: atomics and getppid() (one system call: the waits
 * look at most every 256 progress rounds or after a sleep, the watch thread when woken). */
static bool launcher_lost(char *why, size_t cap)
{
    int code = atomic_load_explicit(&watch.lost_code, memory_order_acquire);
    int parent;

    if (code != 0) {
        snprintf(why, cap, "PMIx reported %s; was it killed?", PMIx_Error_string(code));
        return true;
    }
    parent = (int)getppid();
    if (parent != watch.parent) {
        snprintf(why, cap,
                 "its process (pid %d, this rank's parent) is gone (the parent is now pid %d);",
                 watch.parent, parent);
        return true;
    }
    return false;
}

/* Logged once, by whoever notices first: the watch thread (while the application computes)
 * or a wait. */
static void say_lost(const char *why)
{
    if (!atomic_exchange(&watch.said, true)) {
        rcmsg_error("lost the connection to the launcher (mpirun or slurmstepd): %s every pending "
                    "and later request fails with RCMSG_ERR_LAUNCHER",
                    why);
    }
}

/* The launcher's death, from the lost-connection event or the parent process. */
static rcmsg_status_t check_gone(rcmsg_wireup_launcher_t *l)
{
    char why[160];

    if (l->gone == RCMSG_OK && launcher_lost(why, sizeof(why))) {
        say_lost(why);
        l->gone = RCMSG_ERR_LAUNCHER;
    }
    return l->gone;
}

/* ---- the watch thread's share (base/watch.h): it notices, the application's next call acts */

#define LAUNCHER_WATCH_US 100000 /* the parent looked at this often without a pidfd */

static int watch_launcher(void)
{
    char why[160];

    if (launcher_lost(why, sizeof(why))) {
        say_lost(why);
        return RCMSG_WATCH_FOUND | RCMSG_WATCH_DONE;
    }
    return RCMSG_WATCH_QUIET;
}

/* The handlers' eventfd: the launcher lost, or a rank reported terminated. */
static int watch_event_ready(void *arg)
{
    unsigned long events = atomic_load(&watch.term_events);
    uint64_t v;

    (void)arg;
    if (read(watch.event_fd, &v, sizeof(v)) < 0) {
        /* non-blocking: nothing more written since the last read */
    }
    if (watch_launcher() != RCMSG_WATCH_QUIET) {
        return RCMSG_WATCH_FOUND | RCMSG_WATCH_DONE;
    }
    if (atomic_exchange(&watch.seen, events) != events) {
        return RCMSG_WATCH_FOUND; /* the application reports the ranks (report_terminated) */
    }
    return RCMSG_WATCH_QUIET;
}

/* The parent's pidfd (readable once it exited), or the periodic look without one. */
static int watch_parent_ready(void *arg)
{
    (void)arg;
    return watch.parent_fd >= 0 ? RCMSG_WATCH_FOUND | RCMSG_WATCH_DONE | watch_launcher()
                                : watch_launcher();
}

/* The watch thread wakes when a handler runs, and when the parent exits. */
static rcmsg_status_t watch_register(void)
{
    rcmsg_status_t s;

    watch.event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (watch.event_fd < 0) {
        rcmsg_error("eventfd for the launcher's events failed: %m");
        return RCMSG_ERR_IO;
    }
    s = rcmsg_watch_add(watch.event_fd, 0, watch_event_ready, &watch);
    watch.parent_fd = rcmsg_watch_pidfd(watch.parent);
    if (s == RCMSG_OK) {
        s = rcmsg_watch_add(watch.parent_fd, LAUNCHER_WATCH_US, watch_parent_ready, &watch);
    }
    return s;
}

static void watch_unregister(void)
{
    rcmsg_watch_forget(&watch);
    if (watch.event_fd >= 0) {
        close(watch.event_fd);
    }
    if (watch.parent_fd >= 0) {
        close(watch.parent_fd);
    }
    watch.event_fd = watch.parent_fd = -1;
    atomic_store(&watch.said, false);
    atomic_store(&watch.seen, 0);
}

static void report_terminated(rcmsg_wireup_launcher_t *l, rcmsg_wireup_launcher_lost_cb_t lost,
                              void *arg)
{
    unsigned long events = atomic_load_explicit(&watch.term_events, memory_order_acquire);

    if (events == l->events_seen) {
        return;
    }
    l->events_seen = events;
    for (size_t w = 0; w < bitmap_words(l->size); w++) {
        uint64_t fresh = atomic_load(&watch.terminated[w]) & ~l->reported[w];
        while (fresh != 0) {
            int bit = __builtin_ctzll(fresh);
            int rank = (int)(w * 64) + bit;

            fresh &= fresh - 1;
            l->reported[w] |= UINT64_C(1) << bit;
            rcmsg_warn("the launcher reports that rank %d terminated", rank);
            if (lost != NULL) {
                lost(arg, rank);
            }
        }
    }
}

rcmsg_status_t rcmsg_wireup_launcher_check(rcmsg_wireup_launcher_t *l,
                                           rcmsg_wireup_launcher_lost_cb_t lost, void *arg)
{
    if (!l->watched) {
        return RCMSG_OK;
    }
    report_terminated(l, lost, arg);
    return check_gone(l);
}

/* ---- bounded operations ---------------------------------------------------------------- */

static wireup_op_t *op_new(void)
{
    wireup_op_t *op = calloc(1, sizeof(*op));
    pthread_condattr_t attr;

    if (op == NULL) {
        rcmsg_error("out of memory for a PMIx operation");
        return NULL;
    }
    pthread_mutex_init(&op->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&op->cond, &attr);
    pthread_condattr_destroy(&attr);
    return op;
}

/* PMIx's thread: records the outcome and wakes the waiter. */
static void op_complete(wireup_op_t *op, pmix_status_t status)
{
    pthread_mutex_lock(&op->lock);
    op->status = status;
    op->done = true;
    pthread_cond_signal(&op->cond);
    pthread_mutex_unlock(&op->lock);
}

static void op_fence_cb(pmix_status_t status, void *cbdata)
{
    op_complete(cbdata, status);
}

static bool op_wait_slice(wireup_op_t *op, rcmsg_deadline_t until)
{
    struct timespec ts = rcmsg_deadline_timespec(until);
    bool done;

    pthread_mutex_lock(&op->lock);
    while (!op->done && pthread_cond_timedwait(&op->cond, &op->lock, &ts) != ETIMEDOUT) {
    }
    done = op->done;
    pthread_mutex_unlock(&op->lock);
    return done;
}

/* Whether the launcher reported some rank of the job terminated (since start). */
static bool any_terminated(const rcmsg_wireup_launcher_t *l)
{
    for (size_t w = 0; watch.terminated != NULL && w < bitmap_words(l->size); w++) {
        if (atomic_load(&watch.terminated[w]) != 0) {
            return true;
        }
    }
    return false;
}

/* Waits for op until the deadline, cut short when the launcher is gone, and shortened when a
 * rank of the job is reported terminated: at once when one was reported before the wait began
 * (a fence cannot complete without it), LAUNCHER_TERM_US after one reported during it; then
 * RCMSG_ERR_CONNECTION. An op given up on stays with the launcher (its callback may still
 * come) until stop. */
static rcmsg_status_t op_wait(rcmsg_wireup_launcher_t *l, wireup_op_t *op, uint64_t timeout_us,
                              void (*poll)(void *arg), void *arg)
{
    uint64_t slice = poll != NULL ? LAUNCHER_POLL_US : LAUNCHER_SLICE_US;
    rcmsg_deadline_t deadline = rcmsg_deadline_in(rcmsg_time_add_us(timeout_us, LAUNCHER_GRACE_US));
    unsigned long events = atomic_load(&watch.term_events);
    rcmsg_status_t s = RCMSG_OK;

    if (any_terminated(l)) {
        deadline = rcmsg_deadline_in(0); /* a rank is gone already: the wait is over */
    }
    while (!op_wait_slice(op, rcmsg_deadline_min(rcmsg_deadline_in(slice), deadline))) {
        uint64_t now;

        if (poll != NULL) {
            poll(arg);
        }
        now = rcmsg_clock_us();
        if (atomic_load(&watch.term_events) != events && any_terminated(l)) {
            /* a rank of the job is gone: it may be the one awaited (an event that named no
             * rank of this job, e.g. another step's process, shortens nothing) */
            deadline = rcmsg_deadline_min(deadline, rcmsg_deadline_after(now, LAUNCHER_TERM_US));
        }
        s = check_gone(l);
        if (s == RCMSG_OK && rcmsg_deadline_passed_at(deadline, now)) {
            s = any_terminated(l) ? RCMSG_ERR_CONNECTION : RCMSG_ERR_TIMEOUT;
        }
        if (s != RCMSG_OK) {
            rcmsg_queue_push_tail(&l->orphans, &op->orphan);
            return s;
        }
    }
    return RCMSG_OK;
}

/* PMIX_TIMEOUT for timeout_us: whole seconds rounded up (no wrap near UINT64_MAX), at most
 * 1000000 (an int). */
static int timeout_seconds(uint64_t timeout_us)
{
    uint64_t s = timeout_us / 1000000 + (timeout_us % 1000000 != 0);

    return s > 1000000 ? 1000000 : (int)s;
}

/* The ranks the launcher reported terminated, as text ("1, 3"), for messages. */
static void terminated_list(const rcmsg_wireup_launcher_t *l, char *buf, size_t cap)
{
    size_t off = 0;

    buf[0] = '\0';
    for (int r = 0; r < l->size && off + 16 < cap; r++) {
        if (atomic_load(&watch.terminated[r / 64]) & (UINT64_C(1) << (r % 64))) {
            off += (size_t)snprintf(buf + off, cap - off, "%s%d", off ? ", " : "", r);
        }
    }
}

static void log_fence_failure(const rcmsg_wireup_launcher_t *l, rcmsg_status_t s, pmix_status_t rc,
                              const char *what)
{
    char terminated[256];

    terminated_list(l, terminated, sizeof(terminated));
    if (s == RCMSG_ERR_LAUNCHER) {
        rcmsg_error("%s through the launcher failed: %s", what,
                    rc != PMIX_SUCCESS ? PMIx_Error_string(rc) : "the launcher is gone");
    } else if (terminated[0] != '\0') {
        rcmsg_error("%s: not every rank arrived; the launcher reports rank(s) %s terminated", what,
                    terminated);
    } else {
        rcmsg_error("%s: some rank did not arrive within RCMSG_LAUNCHER_TIMEOUT=%s (the "
                    "launcher does not say which): a rank failed or exited before it (see its "
                    "output) or is still busy; raise RCMSG_LAUNCHER_TIMEOUT if it is only slow",
                    what, l->timeout_text);
    }
}

rcmsg_status_t rcmsg_wireup_launcher_fence(rcmsg_wireup_launcher_t *l, bool collect,
                                           const char *what)
{
    return rcmsg_wireup_launcher_fence_poll(l, collect, what, NULL, NULL);
}

rcmsg_status_t rcmsg_wireup_launcher_fence_poll(rcmsg_wireup_launcher_t *l, bool collect,
                                                const char *what, void (*poll)(void *arg),
                                                void *arg)
{
    uint64_t timeout_us = l->timeout_us;
    int secs = timeout_seconds(timeout_us);
    wireup_op_t *op;
    pmix_info_t info[2];
    bool yes = true;
    pmix_status_t rc;
    rcmsg_status_t s = check_gone(l);

    if (s != RCMSG_OK || (op = op_new()) == NULL) {
        return s != RCMSG_OK ? s : RCMSG_ERR_NO_MEMORY;
    }
    collect = collect || l->always_collect; /* a barrier that spans the nodes (header) */
    PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &secs, PMIX_INT);
    PMIX_INFO_LOAD(&info[1], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence_nb(NULL, 0, info, collect ? 2 : 1, op_fence_cb, op);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc == PMIX_OPERATION_SUCCEEDED) {
        op_free(op);
        return RCMSG_OK;
    }
    if (rc != PMIX_SUCCESS) {
        op_free(op);
        rcmsg_error("%s: PMIx_Fence_nb failed: %s", what, PMIx_Error_string(rc));
        return RCMSG_ERR_LAUNCHER;
    }
    s = op_wait(l, op, timeout_us, poll, arg);
    rc = PMIX_SUCCESS;
    if (s == RCMSG_OK) { /* else op is an orphan now */
        rc = op->status;
        op_free(op);
    }
    if (rc != PMIX_SUCCESS) {
        s = rc == PMIX_ERR_TIMEOUT ? RCMSG_ERR_TIMEOUT : RCMSG_ERR_LAUNCHER;
    }
    if (s != RCMSG_OK) {
        log_fence_failure(l, s, rc, what);
    }
    return s;
}

rcmsg_status_t rcmsg_wireup_launcher_get(rcmsg_wireup_launcher_t *l, const pmix_proc_t *proc,
                                         const char *key, pmix_value_t **val_p, pmix_status_t *rc_p)
{
    int secs = timeout_seconds(l->timeout_us);
    pmix_info_t info;
    rcmsg_status_t s = check_gone(l);

    *rc_p = PMIX_ERR_UNREACH;
    if (s != RCMSG_OK) {
        return s;
    }
    /* Blocking, bounded by PMIX_TIMEOUT (both launchers here honour it); after the collecting
     * fence the data is local and the get returns at once. (PMIx_Get_nb is not used: OpenPMIx
     * 4.2 leaks the value it hands to the callback when the data is local.) */
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
    *rc_p = PMIx_Get(proc, key, &info, 1, val_p);
    PMIX_INFO_DESTRUCT(&info);
    if (*rc_p != PMIX_SUCCESS) {
        return *rc_p == PMIX_ERR_TIMEOUT ? RCMSG_ERR_TIMEOUT : RCMSG_ERR_LAUNCHER;
    }
    return RCMSG_OK;
}
