/* SPDX-License-Identifier: BSD-3-Clause */
/* The one clock of the library: monotonic microseconds (vDSO, no system call). */
#ifndef RCMSG_BASE_CLOCK_H
#define RCMSG_BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t rcmsg_clock_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

#endif /* RCMSG_BASE_CLOCK_H */
