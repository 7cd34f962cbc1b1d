/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Level-gated logging. A message whose level is off costs one comparison: its arguments are
 * not evaluated and nothing is formatted. Each line reads
 *     [rcmsg host:rank pid] level: message
 * where rank is "?" until wireup knows it. Messages are lowercase, QP numbers in hex.
 */
#ifndef RCMSG_BASE_LOG_H
#define RCMSG_BASE_LOG_H

#include <stdarg.h>

/* X(enumerator, text): the levels in increasing verbosity (also RCMSG_LOG_LEVEL's choices). */
#define RCMSG_LOG_LEVEL_LIST(X)                                                                    \
    X(RCMSG_LOG_ERROR, "error")                                                                    \
    X(RCMSG_LOG_WARN, "warn")                                                                      \
    X(RCMSG_LOG_INFO, "info")                                                                      \
    X(RCMSG_LOG_DEBUG, "debug")                                                                    \
    X(RCMSG_LOG_TRACE, "trace")

typedef enum {
#define RCMSG_LOG_LEVEL_ENUM(id, text) id,
    RCMSG_LOG_LEVEL_LIST(RCMSG_LOG_LEVEL_ENUM)
#undef RCMSG_LOG_LEVEL_ENUM
        RCMSG_LOG_LEVEL_COUNT
} rcmsg_log_level_t;

/* The current level; read through the macros below, set by rcmsg_log_set_level(). */
extern rcmsg_log_level_t rcmsg_log_level;

void rcmsg_log_set_level(rcmsg_log_level_t level);
/* Rank (or -1 for unknown) shown on every line from now on. */
void rcmsg_log_set_rank(int rank);
const char *rcmsg_log_level_name(rcmsg_log_level_t level);

void rcmsg_log_emit(rcmsg_log_level_t level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* One line of the state dump (RCMSG_STALL_TIMEOUT, SIGUSR1): "rcmsg dump [rank R]: ..." on
 * stderr in one write, whatever the log level (the user asked for it). */
void rcmsg_log_dump(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define rcmsg_log_enabled(lvl) ((lvl) <= rcmsg_log_level)

#define rcmsg_log(lvl, ...)                                                                        \
    do {                                                                                           \
        if (__builtin_expect(rcmsg_log_enabled(lvl), 0)) {                                         \
            rcmsg_log_emit(lvl, __FILE__, __LINE__, __VA_ARGS__);                                  \
        }                                                                                          \
    } while (0)

#define rcmsg_error(...) rcmsg_log(RCMSG_LOG_ERROR, __VA_ARGS__)
#define rcmsg_warn(...)  rcmsg_log(RCMSG_LOG_WARN, __VA_ARGS__)
#define rcmsg_info(...)  rcmsg_log(RCMSG_LOG_INFO, __VA_ARGS__)
#define rcmsg_debug(...) rcmsg_log(RCMSG_LOG_DEBUG, __VA_ARGS__)
#define rcmsg_trace(...) rcmsg_log(RCMSG_LOG_TRACE, __VA_ARGS__)

#endif /* RCMSG_BASE_LOG_H */
