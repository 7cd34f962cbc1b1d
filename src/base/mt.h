/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The thread model's lock (docs/threads.md). Under RCMSG_THREAD_MULTIPLE one lock, the core
 * lock (a spinlock word: below), protects every piece of state below the public calls: the pml's
 * owners (pml_send, pml_recv, pml_match, pml_rx, pml_comm, pml_ctx, pml_handle, pml_req), btl_sm,
 * btl_self, src/progress and its hooks, the collectives' engine, the event queue and the stats
 * counters. It is the lock domain of every owner for now (MPICH's "global" granularity):
 * each owner is touched only with it held, so an owner may later get a lock of its own
 * (taken inside the core lock: lock order core -> owner) without a change of its callers.
 *
 * Who takes it: every public call (RCMSG_MT_GUARD at its top; a call made from inside
 * another, or from a callback run by progress, only counts a depth: the lock is recursive
 * per thread through rcmsg_mt_depth). Who releases it while holding it: every wait's idle
 * round (rcmsg_mt_pause, called by rcmsg_progress_idle and the MPI face's own loops), so
 * that a thread blocked in a wait never keeps the others out: several threads may wait at
 * once, each driving progress in turn, and whichever completes a request (its flag is
 * written and read under the lock) lets its waiter see it on its next turn.
 *
 * The hot path: with SINGLE, FUNNELED or SERIALIZED rcmsg_mt_on is false and a public call
 * costs one load and branch of it (no lock, no thread-local access); with MULTIPLE and one
 * thread, an uncontended exchange and store of the lock word and a thread-local counter per
 * call.
 *
 * Transports (src/btl/btl.h): their ops are called with the core lock held whenever
 * rcmsg_mt_on, so a btl needs no lock against the calls from above; it guards only the state
 * its own threads share (btl_rc's async thread: btl_rc's locks, issue 41 item 3).
 */
#ifndef RCMSG_BASE_MT_H
#define RCMSG_BASE_MT_H

#include <stdbool.h>

/* Set by rcmsg_init_thread (MULTIPLE) before anything else runs, cleared by the end of
 * rcmsg_finalize; never changes while other threads call. */
extern bool rcmsg_mt_on;
/* The core lock: a spinlock word (0 free, 1 held): taking it is one atomic exchange, letting
 * it go one release store (a pthread mutex's unlock is an atomic operation more: measured,
 * docs/threads.md); a thread that finds it held yields the CPU between attempts (never spins
 * on a core another runnable thread needs). */
extern int rcmsg_mt_lock;
/* Threads blocked taking the core lock (atomic): an idle round lets the lock go only when some
 * thread waits for it, so that one thread alone keeps the lock through its waits. */
extern int rcmsg_mt_waiters;

static inline __attribute__((always_inline)) bool rcmsg_mt_trylock(void)
{
    return __atomic_exchange_n(&rcmsg_mt_lock, 1, __ATOMIC_ACQUIRE) == 0;
}

static inline __attribute__((always_inline)) void rcmsg_mt_unlock(void)
{
    __atomic_store_n(&rcmsg_mt_lock, 0, __ATOMIC_RELEASE);
}

/* Takes the core lock when a first attempt failed, counted in rcmsg_mt_waiters meanwhile. */
void rcmsg_mt_lock_slow(void);
/* How many public calls (nested) this thread is inside while it holds the core lock. */
extern __thread unsigned rcmsg_mt_depth __attribute__((tls_model("initial-exec")));

/* 0: nothing taken (the lock is off); 1: taken. */
static inline __attribute__((always_inline)) int rcmsg_mt_enter(void)
{
    if (__builtin_expect(!rcmsg_mt_on, 1)) {
        return 0;
    }
    if (rcmsg_mt_depth++ == 0 && !rcmsg_mt_trylock()) {
        rcmsg_mt_lock_slow();
    }
    return 1;
}

/* RCMSG_ASYNC_PROGRESS=full (src/core/core_progress.c): set (atomic) by the progress thread,
 * under the core lock, before it sleeps: RCMSG_MT_KICK_WORK while work is outstanding, and
 * RCMSG_MT_KICK_ANY when nothing has been for long. A call that hands the thread work that
 * raises no event it sleeps on (a rendezvous matched by the application's receive, a
 * nonblocking collective started) then wakes it (rcmsg_mt_kick_work: one write to
 * rcmsg_mt_kick_fd); with RCMSG_MT_KICK_ANY so does any call that lets the core lock go (what
 * it posted may raise no event). 0, and never read, in the other modes. */
enum { RCMSG_MT_KICK_NONE, RCMSG_MT_KICK_WORK, RCMSG_MT_KICK_ANY };
extern int rcmsg_mt_kick_wanted;
extern int rcmsg_mt_kick_fd;
void rcmsg_mt_kick(void) __attribute__((cold));

static inline __attribute__((always_inline)) void rcmsg_mt_kick_work(void)
{
    if (__builtin_expect(__atomic_load_n(&rcmsg_mt_kick_wanted, __ATOMIC_RELAXED) != 0, 0)) {
        rcmsg_mt_kick();
    }
}

static inline __attribute__((always_inline)) void rcmsg_mt_leave(const int *taken)
{
    if (__builtin_expect(*taken != 0, 0) && --rcmsg_mt_depth == 0) {
        if (__builtin_expect(
                __atomic_load_n(&rcmsg_mt_kick_wanted, __ATOMIC_RELAXED) == RCMSG_MT_KICK_ANY, 0)) {
            rcmsg_mt_kick();
        }
        rcmsg_mt_unlock();
    }
}

/* The progress thread's entry (RCMSG_ASYNC_PROGRESS=full): takes the core lock only when no
 * other thread holds it or waits for it (the application's calls first), depth 1; false:
 * not taken. rcmsg_mt_disown lets it go. */
bool rcmsg_mt_own(void);
void rcmsg_mt_disown(void);

/* The core lock held from here to the end of the enclosing block (a public call's body). */
#define RCMSG_MT_GUARD()                                                                           \
    const int rcmsg_mt_taken_ __attribute__((cleanup(rcmsg_mt_leave), unused)) = rcmsg_mt_enter()

/* rcmsg_mt_enter and a leave, out of line (RCMSG_MT_TAIL's cold path). */
void rcmsg_mt_take(void) __attribute__((cold));
void rcmsg_mt_give(void) __attribute__((cold));

/* The body of a public call that is one expression (a call): below MULTIPLE it stays a tail
 * call with one branch before it (a guard's cleanup after the call costs ~10 instructions on
 * the hot path: callgrind, docs/threads.md); under MULTIPLE the core lock is held around it. */
#define RCMSG_MT_TAIL(expr)                                                                        \
    do {                                                                                           \
        if (__builtin_expect(rcmsg_mt_on, 0)) {                                                    \
            __typeof__(expr) rcmsg_mt_r_;                                                          \
            rcmsg_mt_take();                                                                       \
            rcmsg_mt_r_ = (expr);                                                                  \
            rcmsg_mt_give();                                                                       \
            return rcmsg_mt_r_;                                                                    \
        }                                                                                          \
        return (expr);                                                                             \
    } while (0)

/* An idle round of a wait: when this thread holds the core lock and another thread waits
 * for it, lets it go (whatever the depth), yields the CPU and takes it back; otherwise yields
 * only when yield is set. */
void rcmsg_mt_pause(bool yield);

/* The core lock let go around a system call that sleeps (poll on the completion channels):
 * returns the depth to give back to rcmsg_mt_resume; 0 when nothing was held. */
unsigned rcmsg_mt_suspend(void);
void rcmsg_mt_resume(unsigned depth);

#endif /* RCMSG_BASE_MT_H */
