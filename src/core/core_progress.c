/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress thread of RCMSG_ASYNC_PROGRESS=full (core_progress.h; docs/threads.md).
 *
 * Its one entry into the state below the public calls is progress_round: one progress round
 * under the lock a round needs (today the core lock, taken only when no application thread
 * holds it or waits for it: the application's calls come first). Everything else here is
 * pacing, outside every lock:
 * - a round did something: run again at once (sched_yield first when an application thread
 *   waits for the lock or the node has no CPU to spare);
 * - the application is inside rcmsg (the lock is held or wanted): it drives progress itself;
 *   sleep PACE_MIN_US, doubling up to PACE_APP_US while that lasts (the transports are not
 *   armed then: what arrives meanwhile raises no event here);
 * - nothing to do: with a CPU to spare per rank, PACE_SPIN idle rounds with sched_yield;
 *   then arm the transports (completion channels, sm's wakeup pipe) and sleep on them and on
 *   the kick eventfd; a transport that cannot be armed (btl_rc's RDMA-write rings raise no
 *   event) gets the same doubling sleep from PACE_MIN_US to PACE_MAX_US;
 * - nothing outstanding (no live request: nothing posted, in flight or in a schedule) for
 *   PACE_DEEP sleeps in a row: one sleep of up to PACE_DEEP_MS on the same fds, and the next
 *   application call that lets the core lock go writes the kick eventfd (mt.h), since what it
 *   posted may raise no event here;
 * - in every sleep, work the application hands over with no event (a rendezvous its receive
 *   matched, a nonblocking collective it started) writes the kick eventfd (rcmsg_mt_kick_work).
 */
#define _GNU_SOURCE
#include "config.h"

#include "core_progress.h"

#include "base/log.h"
#include "base/mt.h"
#include "pml/pml.h"
#include "progress/progress.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PACE_SPIN     64     /* idle rounds with sched_yield before a sleep (CPUs to spare only) */
#define PACE_MIN_US   20     /* the first sleep when no event can wake the thread */
#define PACE_MAX_US   1000   /* the longest such sleep while work is outstanding */
#define PACE_APP_US   100    /* the longest sleep while the application holds the lock */
#define PACE_EVENT_MS 100    /* the longest sleep on events while work is outstanding */
#define PACE_DEEP     8      /* sleeps in a row with nothing outstanding before a deep one */
#define PACE_DEEP_MS  1000   /* a deep sleep (events and the kick end it) */
#define PACE_SLICE_NS 100000 /* the scheduler slice the thread asks for (Linux >= 6.12) */

enum { CP_OFF, CP_PARKED, CP_RUN, CP_STOP };

/* What a round found. */
typedef enum {
    ROUND_BUSY,  /* it handled something */
    ROUND_APP,   /* an application thread holds or wants the lock: not run */
    ROUND_IDLE,  /* nothing; a transport cannot be armed: sleep without events */
    ROUND_ARMED, /* nothing; every transport armed: sleep on the fds */
} round_t;

typedef struct {
    unsigned idle;  /* idle rounds in a row */
    unsigned quiet; /* sleeps in a row with nothing outstanding */
    unsigned us;    /* the next sleep without events */
    unsigned ms;    /* the next sleep on events */
    struct pollfd fds[RCMSG_BTL_MAX + 1];
    int nfds;  /* transports' fds armed (ROUND_ARMED) */
    bool deep; /* nothing outstanding for long: the kick is asked for */
} pace_t;

static struct {
    pthread_t tid;
    int state;   /* CP_* (atomic) */
    int kick_fd; /* eventfd: go, stop, and the application's kicks */
    bool spin;   /* a CPU to spare per rank: spin PACE_SPIN rounds first */
    uint64_t rounds, busy, sleeps, kicks;
} cp = {.kick_fd = -1};

/* Runs one progress round under whatever lock a round needs (the single entry of this thread
 * into the core); when it finds nothing, arms the transports for a sleep (deep: and asks the
 * application's next call for a kick). */
static round_t progress_round(pace_t *p)
{
    round_t r;

    p->deep = false;
    if (!rcmsg_mt_own()) {
        return ROUND_APP;
    }
    __atomic_store_n(&rcmsg_mt_kick_wanted, RCMSG_MT_KICK_NONE, __ATOMIC_RELAXED);
    cp.rounds++;
    r = rcmsg_progress() > 0 ? ROUND_BUSY : ROUND_IDLE;
    if (r == ROUND_IDLE && (!cp.spin || p->idle >= PACE_SPIN)) {
        p->deep = rcmsg_pml_live_requests() == 0 && p->quiet >= PACE_DEEP;
        p->quiet = rcmsg_pml_live_requests() == 0 ? p->quiet + 1 : 0;
        p->nfds = rcmsg_progress_arm(p->fds);
        if (rcmsg_progress() > 0) {
            r = ROUND_BUSY; /* a completion raced with arming */
        } else if (p->nfds >= 0) {
            r = ROUND_ARMED;
        }
        p->deep = p->deep && r != ROUND_BUSY;
        if (r != ROUND_BUSY) {
            __atomic_store_n(&rcmsg_mt_kick_wanted,
                             p->deep ? RCMSG_MT_KICK_ANY : RCMSG_MT_KICK_WORK, __ATOMIC_RELAXED);
        }
    }
    rcmsg_mt_disown();
    return r;
}

/* Sleeps at most us microseconds on fds and the kick eventfd (which it empties). */
static void pace_sleep(struct pollfd *fds, int nfds, unsigned us)
{
    struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};
    uint64_t v;

    fds[nfds] = (struct pollfd){.fd = cp.kick_fd, .events = POLLIN};
    cp.sleeps++;
    if (ppoll(fds, (nfds_t)nfds + 1, &ts, NULL) < 0 && errno != EINTR) {
        rcmsg_warn("progress thread: ppoll: %m");
    }
    if (fds[nfds].revents != 0 && read(cp.kick_fd, &v, sizeof(v)) == sizeof(v)) {
        cp.kicks++;
    }
}

static unsigned pace_double(unsigned v, unsigned max)
{
    return v >= max ? v : v * 2 > max ? max : v * 2;
}

/* What the thread does after a round (the file's comment). */
static void pace(round_t r, pace_t *p)
{
    switch (r) {
    case ROUND_BUSY:
        p->idle = p->quiet = 0;
        p->us = PACE_MIN_US;
        p->ms = 1;
        if (!cp.spin || __atomic_load_n(&rcmsg_mt_waiters, __ATOMIC_RELAXED) != 0) {
            sched_yield();
        }
        cp.busy++;
        return;
    case ROUND_APP:
        /* (unlocked: a call that already passed its kick leaves this sleep at its bound) */
        __atomic_store_n(&rcmsg_mt_kick_wanted, RCMSG_MT_KICK_WORK, __ATOMIC_RELAXED);
        pace_sleep(p->fds, 0, p->us < PACE_APP_US ? p->us : PACE_APP_US);
        p->us = pace_double(p->us, PACE_MAX_US);
        return;
    case ROUND_IDLE:
    case ROUND_ARMED:
        if (cp.spin && ++p->idle <= PACE_SPIN) {
            sched_yield();
            return;
        }
        break;
    }
    if (r == ROUND_ARMED) {
        pace_sleep(p->fds, p->nfds, p->deep ? PACE_DEEP_MS * 1000 : p->ms * 1000);
        p->ms = pace_double(p->ms, PACE_EVENT_MS);
    } else {
        pace_sleep(p->fds, 0, p->deep ? PACE_DEEP_MS * 1000 : p->us);
        p->us = pace_double(p->us, PACE_MAX_US);
    }
    p->idle = 0;
}

/* A short scheduler slice (EEVDF, Linux >= 6.12: sched_attr.sched_runtime of a normal task):
 * woken by an event, the thread preempts a computing thread at once instead of after that
 * thread's slice (3 ms), so that a transfer moves while the application computes even with no
 * core to spare; its rounds are short. An older kernel ignores the value or refuses it. */
static void progress_slice(void)
{
    struct { /* struct sched_attr of sched_setattr(2), its first version */
        uint32_t size, sched_policy;
        uint64_t sched_flags;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_runtime, sched_deadline, sched_period;
    } a = {.size = sizeof(a), .sched_policy = SCHED_OTHER, .sched_runtime = PACE_SLICE_NS};

    if (syscall(SYS_sched_setattr, 0, &a, 0) != 0) {
        rcmsg_debug("progress thread: sched_setattr (a %d us slice): %m", PACE_SLICE_NS / 1000);
    }
}

static void *progress_main(void *arg)
{
    pace_t p = {.us = PACE_MIN_US, .ms = 1};

    (void)arg;
    rcmsg_progress_on_thread = true;
    progress_slice();
    while (__atomic_load_n(&cp.state, __ATOMIC_ACQUIRE) == CP_PARKED) {
        pace_sleep(p.fds, 0, PACE_DEEP_MS * 1000);
    }
    while (__atomic_load_n(&cp.state, __ATOMIC_ACQUIRE) == CP_RUN) {
        pace(progress_round(&p), &p);
    }
    return NULL;
}

rcmsg_status_t rcmsg_core_progress_start(void)
{
    sigset_t all, old;
    int err;

    memset(&cp, 0, sizeof(cp));
    cp.kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (cp.kick_fd < 0) {
        rcmsg_error("rcmsg_init: cannot start the progress thread (RCMSG_ASYNC_PROGRESS=full): "
                    "eventfd: %m");
        return RCMSG_ERR_NO_RESOURCE;
    }
    cp.state = CP_PARKED;
    sigfillset(&all); /* the application's signals go to its own threads */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    err = pthread_create(&cp.tid, NULL, progress_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err != 0) {
        rcmsg_error("rcmsg_init: cannot start the progress thread (RCMSG_ASYNC_PROGRESS=full): "
                    "pthread_create: %s",
                    strerror(err));
        close(cp.kick_fd);
        cp.kick_fd = -1;
        cp.state = CP_OFF;
        return RCMSG_ERR_NO_RESOURCE;
    }
    rcmsg_mt_kick_fd = cp.kick_fd;
    return RCMSG_OK;
}

static void progress_kick(void)
{
    uint64_t one = 1;

    if (write(cp.kick_fd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
        rcmsg_warn("progress thread: eventfd write: %m");
    }
}

void rcmsg_core_progress_go(void)
{
    if (cp.state == CP_PARKED) {
        cp.spin = rcmsg_progress_cpus_spare();
        __atomic_store_n(&cp.state, CP_RUN, __ATOMIC_RELEASE);
        progress_kick();
        rcmsg_info("progress thread (RCMSG_ASYNC_PROGRESS=full): running; %s",
                   cp.spin ? "spins 64 idle rounds before it sleeps"
                           : "no CPU to spare per rank: sleeps at once when idle");
    }
}

void rcmsg_core_progress_stop(void)
{
    if (cp.state == CP_OFF) {
        return;
    }
    __atomic_store_n(&cp.state, CP_STOP, __ATOMIC_RELEASE);
    progress_kick();
    pthread_join(cp.tid, NULL); /* (it never waits for the core lock: only tries it) */
    rcmsg_info("progress thread: stopped after %llu rounds (%llu with work), %llu sleeps, %llu "
               "kicks",
               (unsigned long long)cp.rounds, (unsigned long long)cp.busy,
               (unsigned long long)cp.sleeps, (unsigned long long)cp.kicks);
    __atomic_store_n(&rcmsg_mt_kick_wanted, 0, __ATOMIC_RELAXED);
    rcmsg_mt_kick_fd = -1;
    close(cp.kick_fd);
    cp.kick_fd = -1;
    cp.state = CP_OFF;
}

bool rcmsg_core_progress_running(void)
{
    return cp.state != CP_OFF;
}
