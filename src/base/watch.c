/* SPDX-License-Identifier: BSD-3-Clause */
/* The watch thread: liveness while the application computes (watch.h). */
#include "config.h"

#include "watch.h"

#include "clock.h"
#include "log.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

atomic_uint rcmsg_watch_news;

typedef struct {
    int fd;             /* < 0: periodic */
    bool done;          /* not watched again (ready said so) */
    uint64_t period_us; /* fd < 0: how often ready runs */
    uint64_t next_us;
    rcmsg_watch_ready_fn_t ready;
    void *arg;
} watch_entry_t;

typedef struct {
    rcmsg_watch_take_fn_t take;
    void *arg;
} watch_take_t;

/* The registry: entries are read by the thread under `lock` (ready runs under it, so that
 * forget, which takes it, is final); takes are the application's only. */
static struct {
    pthread_mutex_t lock;
    watch_entry_t *e;
    int n, cap;
    watch_take_t *t;
    int nt, capt;
    unsigned gen; /* bumped at each change of the entries: the thread rebuilds its poll set */
    int wake_fd;  /* eventfd: a change, or stop */
    bool stop;
    bool running;
    pthread_t thread;
} w = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake_fd = -1};

static void watch_wake(void)
{
    uint64_t one = 1;

    if (w.wake_fd >= 0 && write(w.wake_fd, &one, sizeof(one)) != sizeof(one)) {
        rcmsg_warn("watch: cannot wake the watch thread: %m");
    }
}

rcmsg_status_t rcmsg_watch_add(int fd, uint64_t period_us, rcmsg_watch_ready_fn_t ready, void *arg)
{
    rcmsg_status_t s = RCMSG_OK;

    pthread_mutex_lock(&w.lock);
    if (w.n == w.cap) {
        int cap = w.cap != 0 ? 2 * w.cap : 8;
        watch_entry_t *e = realloc(w.e, sizeof(*e) * (size_t)cap);
        if (e == NULL) {
            s = RCMSG_ERR_NO_MEMORY;
        } else {
            w.e = e;
            w.cap = cap;
        }
    }
    if (s == RCMSG_OK) {
        w.e[w.n++] = (watch_entry_t){.fd = fd,
                                     .period_us = period_us,
                                     .next_us = rcmsg_clock_us() + period_us,
                                     .ready = ready,
                                     .arg = arg};
        w.gen++;
    }
    pthread_mutex_unlock(&w.lock);
    watch_wake();
    return s;
}

rcmsg_status_t rcmsg_watch_take_add(rcmsg_watch_take_fn_t take, void *arg)
{
    rcmsg_status_t s = RCMSG_OK;

    pthread_mutex_lock(&w.lock);
    if (w.nt == w.capt) {
        int cap = w.capt != 0 ? 2 * w.capt : 4;
        watch_take_t *t = realloc(w.t, sizeof(*t) * (size_t)cap);
        if (t == NULL) {
            s = RCMSG_ERR_NO_MEMORY;
        } else {
            w.t = t;
            w.capt = cap;
        }
    }
    if (s == RCMSG_OK) {
        w.t[w.nt++] = (watch_take_t){.take = take, .arg = arg};
    }
    pthread_mutex_unlock(&w.lock);
    return s;
}

void rcmsg_watch_forget(void *arg)
{
    int k = 0;

    pthread_mutex_lock(&w.lock);
    for (int i = 0; i < w.n; i++) {
        if (w.e[i].arg != arg) {
            w.e[k++] = w.e[i];
        }
    }
    w.n = k;
    w.gen++;
    k = 0;
    for (int i = 0; i < w.nt; i++) {
        if (w.t[i].arg != arg) {
            w.t[k++] = w.t[i];
        }
    }
    w.nt = k;
    if (w.n == 0 && w.nt == 0) {
        free(w.e);
        free(w.t);
        w.e = NULL;
        w.t = NULL;
        w.cap = w.capt = 0;
    }
    pthread_mutex_unlock(&w.lock);
    watch_wake();
}

void rcmsg_watch_raise(void)
{
    atomic_fetch_or_explicit(&rcmsg_watch_news, RCMSG_WATCH_NEWS, memory_order_release);
}

void rcmsg_watch_take(void)
{
    atomic_fetch_and_explicit(&rcmsg_watch_news, ~RCMSG_WATCH_NEWS, memory_order_acquire);
    for (int i = 0; i < w.nt; i++) {
        w.t[i].take(w.t[i].arg);
    }
}

int rcmsg_watch_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

/* Under the lock: the poll set (the wake fd first; idx[k] names the entry of fds[k]) and the
 * timeout of the periodic entries. */
static int watch_poll_set(struct pollfd *fds, int *idx, int cap, int *timeout_ms)
{
    uint64_t now = rcmsg_clock_us(), soonest = UINT64_MAX;
    int k = 1;

    fds[0] = (struct pollfd){.fd = w.wake_fd, .events = POLLIN};
    for (int i = 0; i < w.n && k < cap; i++) {
        if (w.e[i].done) {
            continue;
        }
        if (w.e[i].fd >= 0) {
            fds[k] = (struct pollfd){.fd = w.e[i].fd, .events = POLLIN};
            idx[k++] = i;
        } else if (w.e[i].next_us < soonest) {
            soonest = w.e[i].next_us;
        }
    }
    *timeout_ms = soonest == UINT64_MAX ? -1
                  : soonest <= now      ? 0
                                        : (int)((soonest - now + 999) / 1000);
    return k;
}

/* Under the lock: ready() of the entries whose fd woke the thread, and of the periodic ones
 * due; true when one found something. */
static bool watch_dispatch(const struct pollfd *fds, const int *idx, int nfds)
{
    uint64_t now = rcmsg_clock_us();
    bool found = false;
    int r;

    for (int k = 1; k < nfds; k++) {
        if (fds[k].revents != 0) {
            r = w.e[idx[k]].ready(w.e[idx[k]].arg);
            found |= (r & RCMSG_WATCH_FOUND) != 0;
            w.e[idx[k]].done |= (r & RCMSG_WATCH_DONE) != 0 || (fds[k].revents & POLLNVAL) != 0;
        }
    }
    for (int i = 0; i < w.n; i++) {
        if (w.e[i].fd < 0 && !w.e[i].done && w.e[i].next_us <= now) {
            w.e[i].next_us = now + w.e[i].period_us;
            r = w.e[i].ready(w.e[i].arg);
            found |= (r & RCMSG_WATCH_FOUND) != 0;
            w.e[i].done |= (r & RCMSG_WATCH_DONE) != 0;
        }
    }
    return found;
}

/* fds watched at most (the wake fd included): more local peers than that are looked at in the
 * application's waits only */
#define WATCH_MAX_FDS 1024

static void *watch_main(void *unused)
{
    static struct pollfd fds[WATCH_MAX_FDS];
    static int idx[WATCH_MAX_FDS];
    int nfds, timeout;
    unsigned gen;

    (void)unused;
    for (;;) {
        pthread_mutex_lock(&w.lock);
        if (w.stop) {
            pthread_mutex_unlock(&w.lock);
            return NULL;
        }
        gen = w.gen;
        nfds = watch_poll_set(fds, idx, WATCH_MAX_FDS, &timeout);
        pthread_mutex_unlock(&w.lock);
        if (poll(fds, (nfds_t)nfds, timeout) < 0 && errno != EINTR) {
            rcmsg_error("watch: poll failed: %m; liveness is looked at in waits only from now");
            return NULL;
        }
        if (fds[0].revents != 0) {
            uint64_t v;
            if (read(w.wake_fd, &v, sizeof(v)) < 0) {
                /* (non-blocking) another wake took it */
            }
        }
        pthread_mutex_lock(&w.lock);
        if (gen == w.gen && watch_dispatch(fds, idx, nfds)) {
            rcmsg_watch_raise();
        }
        pthread_mutex_unlock(&w.lock);
    }
}

rcmsg_status_t rcmsg_watch_start(const char *what)
{
    int err;

    if (w.running) {
        return RCMSG_OK;
    }
    w.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (w.wake_fd < 0) {
        rcmsg_error("cannot start the watch thread (%s): eventfd: %m", what);
        return RCMSG_ERR_IO;
    }
    w.stop = false;
    err = pthread_create(&w.thread, NULL, watch_main, NULL);
    if (err != 0) {
        rcmsg_error("cannot start the watch thread (%s), which notices a lost local peer or "
                    "launcher while the application computes: pthread_create: %s; set "
                    "RCMSG_ASYNC_PROGRESS=no to run without it (losses are then noticed in waits "
                    "only)",
                    what, strerror(err));
        close(w.wake_fd);
        w.wake_fd = -1;
        return RCMSG_ERR_IO;
    }
    w.running = true;
    return RCMSG_OK;
}

void rcmsg_watch_stop(void)
{
    if (!w.running) {
        return;
    }
    pthread_mutex_lock(&w.lock);
    w.stop = true;
    pthread_mutex_unlock(&w.lock);
    watch_wake();
    pthread_join(w.thread, NULL);
    close(w.wake_fd);
    w.wake_fd = -1;
    w.running = false;
    atomic_store(&rcmsg_watch_news, 0);
}

bool rcmsg_watch_running(void)
{
    return w.running;
}
