/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CHECK(cond, fmt, ...): a failed check counts in the including program's `failures` and prints
 * "FAIL rank R line L: ..." (the program's `rank`), without stopping the program.
 */
#ifndef RCMSG_TEST_CHECK_H
#define RCMSG_TEST_CHECK_H

#include <stdio.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            printf("FAIL rank %d line %d: ", rank, __LINE__);                                      \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            fflush(stdout);                                                                        \
        }                                                                                          \
    } while (0)

#endif /* RCMSG_TEST_CHECK_H */
