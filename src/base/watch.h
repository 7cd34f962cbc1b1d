/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The watch thread (watch.c owns it; issue 41 item 3): what must be noticed while the
 * application computes, with no rcmsg call, when no transport's own thread can (a local peer's
 * death, the launcher's loss). It runs with RCMSG_ASYNC_PROGRESS=control (and full), started
 * by wireup once the transports are open, stopped before they close.
 *
 * Owners register, before or after the start, a file descriptor that becomes readable when
 * something happened (a pidfd of a local peer or of the launcher, an eventfd written by PMIx's
 * event handlers), or a period for a check without one (a kernel without pidfd_open). The
 * thread sleeps in poll() on them (idle it costs nothing) and calls the owner's ready() on its
 * own thread: ready may only read what never changes after the registration, use its owner's
 * atomics and log (with the time of the event, the bound being kept); it returns
 * RCMSG_WATCH_FOUND when it found something to act on, with RCMSG_WATCH_DONE when its fd is
 * not to be watched again (a pidfd stays readable).
 *
 * Acting on it is the application's: the thread raises RCMSG_WATCH_NEWS in rcmsg_watch_news,
 * which the application's next call sees at once (the pml's check at the start of every call
 * that starts an operation, and every progress round of a wait or test); it then runs every
 * take() registered (its own context; the core lock held under RCMSG_THREAD_MULTIPLE), which
 * fails what the loss ends (the owners' usual paths: pml_fail.c, sm_peer_fail). So the thread
 * never calls up into the layers above nor touches their state. A transport thread with news
 * of its own (btl_rc's, a peer it failed) raises it the same way (rcmsg_watch_raise).
 */
#ifndef RCMSG_BASE_WATCH_H
#define RCMSG_BASE_WATCH_H

#include <rcmsg.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define RCMSG_WATCH_NEWS 1u /* something to take: the application runs the takes */
#define RCMSG_WATCH_STOP 2u /* the job is over (the launcher is gone): set by the pml, kept */

/* 0 while nothing is pending: read (relaxed) at the start of every call and progress round. */
extern atomic_uint rcmsg_watch_news;

#define RCMSG_WATCH_QUIET 0 /* ready(): nothing */
#define RCMSG_WATCH_FOUND 1 /* ready(): news for the application */
#define RCMSG_WATCH_DONE  2 /* ready(): do not watch this fd again */

typedef int (*rcmsg_watch_ready_fn_t)(void *arg);
typedef void (*rcmsg_watch_take_fn_t)(void *arg);

/* ready(arg) on the thread when fd is readable (fd >= 0), or every period_us (fd < 0). The
 * owner keeps fd, and closes it only after rcmsg_watch_forget(arg). RCMSG_ERR_NO_MEMORY. */
rcmsg_status_t rcmsg_watch_add(int fd, uint64_t period_us, rcmsg_watch_ready_fn_t ready, void *arg);
/* take(arg) in the application's context at each news (cheap, and harmless when it finds
 * nothing: every take runs at every news). */
rcmsg_status_t rcmsg_watch_take_add(rcmsg_watch_take_fn_t take, void *arg);
/* Drops every registration of arg (the watch and the takes): after it, ready(arg) and
 * take(arg) are never called again. */
void rcmsg_watch_forget(void *arg);

/* Starts the thread (what, the setting that asked for it, names it in the message when it
 * cannot start: RCMSG_ERR_IO, logged); a no-op when running. */
rcmsg_status_t rcmsg_watch_start(const char *what);
/* Stops and joins it; registrations stay until forgotten. */
void rcmsg_watch_stop(void);
bool rcmsg_watch_running(void);

/* From any thread: raise the news (the application's next call runs the takes). */
void rcmsg_watch_raise(void);
/* The application: clears RCMSG_WATCH_NEWS and runs the takes. */
void rcmsg_watch_take(void);

/* pidfd_open(2): an fd readable once pid has exited; -1 (errno set) where the kernel has none. */
int rcmsg_watch_pidfd(pid_t pid);

#endif /* RCMSG_BASE_WATCH_H */
