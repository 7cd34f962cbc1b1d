/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one clock of the library: monotonic microseconds, and deadlines on it. A deadline is a
 * point of that clock; rcmsg_deadline_in() saturates instead of wrapping, so a huge timeout is
 * a deadline that never passes.
 *
 * rcmsg_clock_us() reads the vDSO without a system call where the kernel's clocksource allows
 * it (a TSC on bare metal, kvm-clock); elsewhere (an emulated guest, some VMs) every read is a
 * system call. rcmsg_clock_coarse_us() reads the same clock as of the kernel's last tick (1-10
 * ms behind, never ahead) and never makes a system call: polling loops gate their periodic
 * checks (timers, liveness) with it and read the precise clock only when one is due.
 */
#ifndef RCMSG_BASE_CLOCK_H
#define RCMSG_BASE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Microseconds of clock `id` (CLOCK_MONOTONIC or its coarse reading). */
static inline uint64_t rcmsg_clock_read_us(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static inline uint64_t rcmsg_clock_us(void)
{
    return rcmsg_clock_read_us(CLOCK_MONOTONIC);
}

static inline uint64_t rcmsg_clock_coarse_us(void)
{
#ifdef CLOCK_MONOTONIC_COARSE
    return rcmsg_clock_read_us(CLOCK_MONOTONIC_COARSE);
#else
    return rcmsg_clock_us();
#endif
}

typedef struct {
    uint64_t at_us; /* the clock's time at which it passes (precise or coarse reading) */
} rcmsg_deadline_t;

/* The deadline at clock time at_us. */
static inline rcmsg_deadline_t rcmsg_deadline_at(uint64_t at_us)
{
    return (rcmsg_deadline_t){.at_us = at_us};
}

/* a + b microseconds, UINT64_MAX instead of wrapping: for sums of durations that a user's
 * TIME value (any size up to ~UINT64_MAX us) takes part in. */
static inline uint64_t rcmsg_time_add_us(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* The deadline `us` microseconds after `now_us` (UINT64_MAX when the sum would wrap). */
static inline rcmsg_deadline_t rcmsg_deadline_after(uint64_t now_us, uint64_t us)
{
    return rcmsg_deadline_at(rcmsg_time_add_us(now_us, us));
}

/* The deadline `us` microseconds from now. */
static inline rcmsg_deadline_t rcmsg_deadline_in(uint64_t us)
{
    return rcmsg_deadline_after(rcmsg_clock_us(), us);
}

/* Whether the deadline is reached at clock time now_us. */
static inline bool rcmsg_deadline_passed_at(rcmsg_deadline_t d, uint64_t now_us)
{
    return now_us >= d.at_us;
}

/* Whether the deadline is reached now. */
static inline bool rcmsg_deadline_passed(rcmsg_deadline_t d)
{
    return rcmsg_deadline_passed_at(d, rcmsg_clock_us());
}

/* Microseconds from now_us until the deadline (0 once passed). */
static inline uint64_t rcmsg_deadline_left_us_at(rcmsg_deadline_t d, uint64_t now_us)
{
    return d.at_us > now_us ? d.at_us - now_us : 0;
}

static inline uint64_t rcmsg_deadline_left_us(rcmsg_deadline_t d)
{
    return rcmsg_deadline_left_us_at(d, rcmsg_clock_us());
}

/* Milliseconds from now_us until the deadline, rounded up (a wait of that long does not wake
 * early), at most INT32_MAX (a poll() timeout); 0 once passed. */
static inline int32_t rcmsg_deadline_left_ms_at(rcmsg_deadline_t d, uint64_t now_us)
{
    uint64_t us = rcmsg_deadline_left_us_at(d, now_us), ms = us / 1000 + (us % 1000 != 0);

    return ms > INT32_MAX ? INT32_MAX : (int32_t)ms;
}

static inline int32_t rcmsg_deadline_left_ms(rcmsg_deadline_t d)
{
    return rcmsg_deadline_left_ms_at(d, rcmsg_clock_us());
}

/* The earlier of two deadlines. */
static inline rcmsg_deadline_t rcmsg_deadline_min(rcmsg_deadline_t a, rcmsg_deadline_t b)
{
    return a.at_us <= b.at_us ? a : b;
}

/* The deadline as an absolute CLOCK_MONOTONIC time (pthread_cond_timedwait with a condition
 * variable set to that clock). */
static inline struct timespec rcmsg_deadline_timespec(rcmsg_deadline_t d)
{
    return (struct timespec){.tv_sec = (time_t)(d.at_us / 1000000),
                             .tv_nsec = (long)(d.at_us % 1000000) * 1000};
}

#endif /* RCMSG_BASE_CLOCK_H */
