/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided waits on a lost holder (3 ranks, mpi_win_dead.sh; issue 43): rank 2 takes an
 * exclusive lock on rank 0's window "dead_lock", a shared lock on rank 0's window
 * "dead_shared", then the accumulate mutex of rank 0's window "dead_mutex" (an accumulate on
 * long double goes under it), and dies by SIGKILL holding all three. Rank 1 asks for the same
 * exclusive lock (and waits for it 0.5 s, until rank 2 dies), for an exclusive lock on
 * "dead_shared", then makes an accumulate that needs the same mutex: each
 * call must fail (MPI_ERRORS_RETURN) with MPI_ERR_PROC_ABORTED and a message naming the
 * window, the target and the holder, within BOUND_S seconds, not wait forever. Rank 0, the
 * target, serves them meanwhile in a receive from rank 1. Each rank prints its pid, so that
 * the script checks that none is left.
 *
 * The mutex is held only inside one accumulate, so rank 2 dies there: this program's own
 * rcmsg_acc_compare_swap stands in front of librcmsg's (the test links the shared libraries:
 * the executable's definition interposes), calls it through dlsym(RTLD_NEXT), and, once armed,
 * completes the mutex's compare-and-swap (the word at MUTEX_WORD of the window's lock window,
 * src/mpi/mpi_win.h) and dies as soon as it finds the mutex taken.
 */
#define _GNU_SOURCE
#include "../test_kill.h"

#include "mpi_test.h"

#include <dlfcn.h>
#include <rcmsg.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BOUND_S    10.0 /* sm notices a local peer's exit in ~0.1 s (docs/liveness.md) */
#define MUTEX_WORD 8    /* MPI_WIN_MUTEX_WORD */
#define TAG_LOCKED 1
#define TAG_MUTEX  7777 /* rcmsg's, on the world (sent from inside the accumulate) */
#define TAG_DONE   3

typedef rcmsg_status_t (*acs_fn_t)(const void *, const void *, void *, rcmsg_datatype_t, int,
                                   size_t, rcmsg_win_t);
static int hold_mutex; /* rank 2: its next take of an accumulate mutex is its last act */

rcmsg_status_t rcmsg_acc_compare_swap(const void *compare, const void *swap, void *result,
                                      rcmsg_datatype_t dtype, int target, size_t disp,
                                      rcmsg_win_t win)
{
    static acs_fn_t real;
    rcmsg_status_t s;
    char one = 1;

    if (real == NULL) {
        *(void **)&real = dlsym(RTLD_NEXT, "rcmsg_acc_compare_swap");
    }
    s = real(compare, swap, result, dtype, target, disp, win);
    if (hold_mutex && s == RCMSG_OK && dtype == RCMSG_INT64 && disp == MUTEX_WORD &&
        *(const int64_t *)compare == 0 && *(const int64_t *)swap == me + 1 &&
        rcmsg_win_flush(target, win) == RCMSG_OK && *(const int64_t *)result == 0) {
        printf("rank %d: holds rank %d's accumulate mutex\n", me, target);
        rcmsg_send(&one, 1, 1, TAG_MUTEX, rcmsg_comm_world());
        test_kill_self(me);
    }
    return s;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* rank 1: e, the outcome of what, failed as it must, after t seconds */
static void check_failed(const char *what, const char *window, int e, double t)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int cls = -1, len = 0;

    MPI_Error_class(e, &cls);
    if (e != MPI_SUCCESS) {
        MPI_Error_string(e, msg, &len);
    }
    printf("rank 1: %s %s (class %d) after %.2f s: %s\n", what,
           e == MPI_SUCCESS ? "succeeded" : "failed", cls, t, msg);
    CHECK(cls == MPI_ERR_PROC_ABORTED, "%s: class %d, expected MPI_ERR_PROC_ABORTED", what, cls);
    CHECK(t < BOUND_S, "%s took %.2f s (bound %.0f s)", what, t, BOUND_S);
    CHECK(strstr(msg, window) != NULL && strstr(msg, "target rank 0") != NULL &&
              strstr(msg, "held by rank 2") != NULL,
          "%s: the message does not name the window, the target and the holder", what);
}

static void rank2(MPI_Win wl, MPI_Win ws, MPI_Win wm)
{
    long double v = 1.0L;
    int one = 1;

    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wl));
    MPI_Send(&one, 1, MPI_INT, 1, TAG_LOCKED, MPI_COMM_WORLD);
    printf("rank 2: holds rank 0's exclusive lock\n");
    fflush(stdout);
    usleep(500000); /* rank 1 waits for the lock meanwhile */
    OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, ws));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, wm));
    hold_mutex = 1;
    MPI_Accumulate(&v, 1, MPI_LONG_DOUBLE, 0, 0, 1, MPI_LONG_DOUBLE, MPI_SUM, wm);
    CHECK(0, "%s", "the accumulate mutex was never taken (its compare-and-swap not interposed?)");
}

static void rank1(MPI_Win wl, MPI_Win ws, MPI_Win wm)
{
    long double v = 1.0L;
    int one = 1, e;
    char c;
    double t0;

    MPI_Recv(&one, 1, MPI_INT, 2, TAG_LOCKED, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    t0 = now_s(); /* rank 2 lives on for 0.5 s */
    e = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wl);
    check_failed("Win_lock", "\"dead_lock\"", e, now_s() - t0);
    rcmsg_recv(&c, 1, 2, TAG_MUTEX, rcmsg_comm_world(), NULL); /* sent before it died */
    t0 = now_s();
    e = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, ws);
    check_failed("Win_lock (shared holder)", "\"dead_shared\"", e, now_s() - t0);
    OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, wm));
    t0 = now_s();
    e = MPI_Accumulate(&v, 1, MPI_LONG_DOUBLE, 0, 0, 1, MPI_LONG_DOUBLE, MPI_SUM, wm);
    check_failed("Accumulate", "\"dead_mutex\"", e, now_s() - t0);
    OK(MPI_Win_unlock(0, wm));
    /* synchronous: rank 0 has it before this rank exits (_exit: an eager message may still
     * be on its way) */
    MPI_Ssend(&one, 1, MPI_INT, 0, TAG_DONE, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Win wl, ws, wm;
    int *il, *is;
    long double *lm;
    int one;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 3) {
        if (me == 0) {
            printf("SKIP: mpi_win_dead_test runs at 3 ranks (%d here)\n", np);
        }
        MPI_Finalize();
        return 77;
    }
    printf("rank %d: pid %ld\n", me, (long)getpid());
    fflush(stdout);
    OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &il, &wl));
    OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &is, &ws));
    OK(MPI_Win_allocate(sizeof(long double), sizeof(long double), MPI_INFO_NULL, MPI_COMM_WORLD,
                        &lm, &wm));
    MPI_Win_set_errhandler(wl, MPI_ERRORS_RETURN);
    MPI_Win_set_errhandler(ws, MPI_ERRORS_RETURN);
    MPI_Win_set_errhandler(wm, MPI_ERRORS_RETURN);
    MPI_Win_set_name(ws, "dead_shared");
    MPI_Win_set_name(wl, "dead_lock");
    MPI_Win_set_name(wm, "dead_mutex");
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 2) {
        rank2(wl, ws, wm);
    } else if (me == 1) {
        rank1(wl, ws, wm);
    } else {
        MPI_Recv(&one, 1, MPI_INT, 1, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* stays until rank 1 is gone (its Ssend's answer must reach it): nothing comes */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        CHECK(MPI_Recv(&one, 1, MPI_INT, 1, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
                  MPI_SUCCESS,
              "%s", "a message after rank 1's last");
    }
    (void)phase;      /* no barrier once a rank is gone */
    _exit(summary()); /* the windows cannot be freed with a member gone */
}
