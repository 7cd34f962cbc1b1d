/* SPDX-License-Identifier: BSD-3-Clause */
/* The progress engine and blocking waits on completion events. */
#include "config.h"

#include "progress.h"

#include "base/config_table.h"
#include "base/event.h"
#include "base/log.h"
#include "btl/btl_component.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

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
} prog;

/* The public hooks (rcmsg_progress_register), apart from prog: init and fini reset prog, and a
 * registration outlives them. */
static struct {
    struct {
        rcmsg_progress_fn_t fn; /* NULL: unregistered while the hooks ran (removed after) */
        void *arg;
    } at[RCMSG_PROGRESS_HOOK_MAX];
    int n;
    bool running;      /* the hooks run: nested progress rounds do not call them */
    bool holes;        /* an entry was unregistered while the hooks ran */
    int nested;        /* what nested rounds handled while the hooks ran */
    uint64_t advanced; /* the sum of the hooks' counts */
} hooks;

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
    switch (prog.config.yield) {
    case RCMSG_YIELD_AUTO:
        prog.yield = cpus > 0 && local_size > cpus;
        break;
    case RCMSG_YIELD_YES:
        prog.yield = true;
        break;
    case RCMSG_YIELD_NO:
    case RCMSG_YIELD_COUNT:
        prog.yield = false;
        break;
    }
    rcmsg_info("progress: %d transport(s), wait mode %s, spin count %u, %s when idle (%d "
               "rank(s) on this node, %ld CPU(s))",
               prog.nbtls, rcmsg_config_enum_name(RCMSG_CFG_WAIT_MODE, prog.config.wait_mode),
               prog.spin_count, prog.yield ? "yield" : "no yield", local_size, cpus);
    return RCMSG_OK;
}

void rcmsg_progress_fini(void)
{
    memset(&prog, 0, sizeof(prog));
}

/* ---- public hooks ------------------------------------------------------------------------ */
static int hook_find(rcmsg_progress_fn_t fn, void *arg)
{
    for (int i = 0; i < hooks.n; i++) {
        if (hooks.at[i].fn == fn && hooks.at[i].arg == arg) {
            return i;
        }
    }
    return -1;
}

rcmsg_status_t rcmsg_progress_register(rcmsg_progress_fn_t fn, void *arg)
{
    if (fn == NULL) {
        rcmsg_error("rcmsg_progress_register: NULL function");
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (hook_find(fn, arg) >= 0) {
        rcmsg_error("rcmsg_progress_register: hook %p with argument %p is registered already",
                    (void *)fn, arg);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (hooks.n == RCMSG_PROGRESS_HOOK_MAX) {
        rcmsg_error("rcmsg_progress_register: %d hooks registered already, at most "
                    "RCMSG_PROGRESS_HOOK_MAX (%d)",
                    hooks.n, RCMSG_PROGRESS_HOOK_MAX);
        return RCMSG_ERR_NO_RESOURCE;
    }
    hooks.at[hooks.n].fn = fn;
    hooks.at[hooks.n].arg = arg;
    hooks.n++;
    rcmsg_debug("progress: hook %p (argument %p) registered", (void *)fn, arg);
    return RCMSG_OK;
}

/* drops the entries unregistered while the hooks ran */
static void hooks_compact(void)
{
    int k = 0;

    for (int i = 0; i < hooks.n; i++) {
        if (hooks.at[i].fn != NULL) {
            hooks.at[k++] = hooks.at[i];
        }
    }
    hooks.n = k;
    hooks.holes = false;
}

rcmsg_status_t rcmsg_progress_unregister(rcmsg_progress_fn_t fn, void *arg)
{
    int i;

    if (fn == NULL) {
        rcmsg_error("rcmsg_progress_unregister: NULL function");
        return RCMSG_ERR_INVALID_PARAM;
    }
    i = hook_find(fn, arg);
    if (i < 0) {
        rcmsg_error("rcmsg_progress_unregister: hook %p with argument %p is not registered",
                    (void *)fn, arg);
        return RCMSG_ERR_NOT_FOUND;
    }
    hooks.at[i].fn = NULL;
    if (hooks.running) {
        hooks.holes = true; /* the running loop walks the table: removed after it */
    } else {
        hooks_compact();
    }
    rcmsg_debug("progress: hook %p (argument %p) unregistered", (void *)fn, arg);
    return RCMSG_OK;
}

/* The hooks' part of a round that handled n before them: once, not from a nested round (a
 * hook's own rcmsg calls), whose count goes to the outer round instead. */
static int hooks_run(int n)
{
    int end = hooks.n; /* a hook registered now runs from the next round on */

    if (hooks.running) {
        hooks.nested += n;
        return n;
    }
    hooks.running = true;
    hooks.nested = 0;
    for (int i = 0; i < end; i++) {
        int k = hooks.at[i].fn != NULL ? hooks.at[i].fn(hooks.at[i].arg) : 0;

        if (k > 0) {
            n += k;
            hooks.advanced += (uint64_t)k;
        }
    }
    hooks.running = false;
    if (hooks.holes) {
        hooks_compact();
    }
    return n + hooks.nested;
}

uint64_t rcmsg_progress_hooks_advanced(void)
{
    return hooks.advanced;
}

/* ---- the engine -------------------------------------------------------------------------- */
int rcmsg_progress(void)
{
    int n = 0;

    for (int i = 0; i < prog.nbtls; i++) {
        n += prog.btls[i]->ops->progress(prog.btls[i]);
    }
    if (prog.hook != NULL) {
        n += prog.hook(prog.hook_arg);
    }
    if (rcmsg_event_pending()) {
        n += rcmsg_event_deliver();
    }
    if (__builtin_expect(hooks.n != 0, 0)) {
        n = hooks_run(n);
    }
    return n;
}

/* Arm every transport, poll once more, then sleep on the event fds. */
static void progress_sleep(void)
{
    struct pollfd fds[RCMSG_BTL_MAX];
    int nfds = 0;

    for (int i = 0; i < prog.nbtls; i++) {
        rcmsg_status_t s = prog.btls[i]->ops->arm(prog.btls[i]);
        int fd;

        if (s != RCMSG_OK) {
            return; /* work pending, or no events to wait for: poll instead */
        }
        fd = prog.btls[i]->ops->event_fd(prog.btls[i]);
        if (fd >= 0) {
            fds[nfds++] = (struct pollfd){.fd = fd, .events = POLLIN};
        }
    }
    if (rcmsg_progress() > 0) {
        return; /* a completion raced with arming */
    }
    if (poll(fds, (nfds_t)nfds, PROGRESS_SLEEP_MS) < 0 && errno != EINTR) {
        rcmsg_warn("poll on completion channels failed: %m");
    }
}

bool rcmsg_progress_idle(unsigned *idle)
{
    if (prog.config.wait_mode == RCMSG_WAIT_POLL || ++*idle <= prog.spin_count) {
        if (prog.yield) {
            sched_yield();
        }
        return false;
    }
    progress_sleep();
    *idle = 0;
    return true;
}
