/* SPDX-License-Identifier: BSD-3-Clause */
/* The progress engine and blocking waits on completion events. */
#include "config.h"

#include "progress.h"

#include "base/config_table.h"
#include "base/event.h"
#include "base/log.h"
#include "base/mt.h"
#include "base/watch.h"
#include "btl/btl_component.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

__thread bool rcmsg_progress_on_thread __attribute__((tls_model("initial-exec")));

#define PROGRESS_SLEEP_MS 100 /* upper bound of one sleep: async failures are noticed */

/* The configuration, read once by rcmsg_progress_init(). */
typedef struct {
    rcmsg_wait_mode_t wait_mode;
    unsigned spin_count;
    rcmsg_yield_t yield;
} progress_config_t;

static struct {
    rcmsg_btl_t *btls[RCMSG_BTL_MAX];
    int nbtls;
    rcmsg_progress_hook_t hook;
    void *hook_arg;
    progress_config_t config;
    unsigned spin_count; /* idle polls before a wait sleeps: 0 in event mode */
    bool yield;          /* sched_yield() in idle polling rounds */
    bool oversubscribed; /* more ranks on this node than online CPUs */
    bool cpus_spare;     /* at least two CPUs per rank on this node */
    /* RCMSG_THREAD_MULTIPLE: a thread asleep in progress_sleep lets the core lock go, and the
     * completion that ends its wait may be polled by another thread; that thread then writes
     * wake_fd (an eventfd every sleeper polls too) when sleepers (atomic) is not 0. -1: none. */
    int wake_fd;
    int sleepers;
} prog = {.wake_fd = -1};

static void progress_config_read(progress_config_t *config)
{
    config->wait_mode = (rcmsg_wait_mode_t)rcmsg_config_enum(RCMSG_CFG_WAIT_MODE);
    config->spin_count = (unsigned)rcmsg_config_int(RCMSG_CFG_SPIN_COUNT);
    config->yield = (rcmsg_yield_t)rcmsg_config_enum(RCMSG_CFG_YIELD);
}

rcmsg_status_t rcmsg_progress_init(rcmsg_btl_t *const *btls, int n, rcmsg_progress_hook_t hook,
                                   void *hook_arg, int local_size)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    memset(&prog, 0, sizeof(prog));
    prog.wake_fd = -1;
    if (n < 0 || n > RCMSG_BTL_MAX) {
        rcmsg_error("progress: %d transports, at most %d supported", n, RCMSG_BTL_MAX);
        return RCMSG_ERR_INVALID_PARAM;
    }
    for (int i = 0; i < n; i++) {
        prog.btls[prog.nbtls++] = btls[i];
    }
    prog.hook = hook;
    prog.hook_arg = hook_arg;
    progress_config_read(&prog.config);
    prog.spin_count = prog.config.wait_mode == RCMSG_WAIT_EVENT ? 0 : prog.config.spin_count;
    prog.oversubscribed = cpus > 0 && local_size > cpus;
    prog.cpus_spare = cpus >= 2L * local_size;
    switch (prog.config.yield) {
    case RCMSG_YIELD_AUTO:
        prog.yield = prog.oversubscribed;
        break;
    case RCMSG_YIELD_YES:
        prog.yield = true;
        break;
    case RCMSG_YIELD_NO:
    case RCMSG_YIELD_COUNT:
        prog.yield = false;
        break;
    }
    if (rcmsg_mt_on && (prog.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
        rcmsg_error("progress: eventfd for the waits of several threads: %m");
        return RCMSG_ERR_NO_RESOURCE;
    }
    rcmsg_info("progress: %d transport(s), wait mode %s, spin count %u, %s when idle (%d "
               "rank(s) on this node, %ld CPU(s))",
               prog.nbtls, rcmsg_config_enum_name(RCMSG_CFG_WAIT_MODE, prog.config.wait_mode),
               prog.spin_count, prog.yield ? "yield" : "no yield", local_size, cpus);
    return RCMSG_OK;
}

void rcmsg_progress_fini(void)
{
    if (prog.wake_fd >= 0) {
        close(prog.wake_fd);
    }
    memset(&prog, 0, sizeof(prog));
    prog.wake_fd = -1;
}

/* A round did something while other threads sleep in progress_sleep: they look again. */
static void progress_wake(void)
{
    uint64_t one = 1;

    if (__atomic_load_n(&prog.sleepers, __ATOMIC_RELAXED) > 0 &&
        write(prog.wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
        rcmsg_warn("progress: waking the waits of other threads: %m");
    }
}

int rcmsg_progress(void)
{
    int n = 0;

    if (__builtin_expect(
            atomic_load_explicit(&rcmsg_watch_news, memory_order_relaxed) & RCMSG_WATCH_NEWS, 0)) {
        rcmsg_watch_take(); /* the watch thread found a loss: fail what it ends, now */
        n++;
    }

    for (int i = 0; i < prog.nbtls; i++) {
        n += prog.btls[i]->ops->progress(prog.btls[i]);
    }
    if (prog.hook != NULL) {
        n += prog.hook(prog.hook_arg);
    }
    if (rcmsg_event_pending() && !rcmsg_progress_on_thread) {
        n += rcmsg_event_deliver(); /* (the application's handlers: in its own threads) */
    }
    if (__builtin_expect(rcmsg_progress_nhooks != 0, 0)) {
        n = rcmsg_progress_hooks_run(n);
    }
    if (__builtin_expect(n > 0 && prog.wake_fd >= 0, 0)) {
        progress_wake();
    }
    return n;
}

/* The end of a sleep under MULTIPLE: no longer counted; the last sleeper reads the wakeup fd
 * empty (an earlier one could take a wakeup from a sleeper not yet past its poll). */
static void progress_unsleep(void)
{
    uint64_t v;

    if (prog.wake_fd >= 0 && __atomic_fetch_sub(&prog.sleepers, 1, __ATOMIC_RELAXED) == 1) {
        if (read(prog.wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN) {
            rcmsg_warn("progress: reading the wakeup of other threads: %m");
        }
    }
}

int rcmsg_progress_arm(struct pollfd *fds)
{
    int nfds = 0;

    for (int i = 0; i < prog.nbtls; i++) {
        rcmsg_status_t s = prog.btls[i]->ops->arm(prog.btls[i]);
        int fd;

        if (s != RCMSG_OK) {
            return -1; /* work pending, or no events to wait for: poll instead */
        }
        fd = prog.btls[i]->ops->event_fd(prog.btls[i]);
        if (fd >= 0) {
            fds[nfds++] = (struct pollfd){.fd = fd, .events = POLLIN};
        }
    }
    return nfds;
}

/* Arm every transport, poll once more, then sleep on the event fds. */
static void progress_sleep(void)
{
    struct pollfd fds[RCMSG_BTL_MAX + 1];
    unsigned depth;
    int nfds = rcmsg_progress_arm(fds);

    if (nfds < 0) {
        return;
    }
    if (rcmsg_progress() > 0) {
        return; /* a completion raced with arming */
    }
    /* the core lock is let go while asleep (MULTIPLE): another thread may poll the event
     * that wakes this one and complete its request; it then writes wake_fd. Counted as a
     * sleeper before the lock goes, so that no such wakeup is lost. */
    if (prog.wake_fd >= 0) {
        fds[nfds++] = (struct pollfd){.fd = prog.wake_fd, .events = POLLIN};
        __atomic_fetch_add(&prog.sleepers, 1, __ATOMIC_RELAXED);
    }
    depth = rcmsg_mt_suspend();
    if (poll(fds, (nfds_t)nfds, PROGRESS_SLEEP_MS) < 0 && errno != EINTR) {
        rcmsg_warn("poll on completion channels failed: %m");
    }
    rcmsg_mt_resume(depth);
    progress_unsleep();
}

bool rcmsg_progress_idle(unsigned *idle)
{
    if (prog.config.wait_mode == RCMSG_WAIT_POLL || ++*idle <= prog.spin_count) {
        rcmsg_mt_pause(prog.yield); /* and lets the core lock go a moment (MULTIPLE) */
        return false;
    }
    progress_sleep();
    *idle = 0;
    return true;
}

bool rcmsg_progress_oversubscribed(void)
{
    return prog.oversubscribed;
}

bool rcmsg_progress_cpus_spare(void)
{
    return prog.cpus_spare;
}
