/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging: one line per message, written with a single write() so ranks do not interleave. */
#include "config.h"

#include "compiler.h"
#include "log.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

rcmsg_log_level_t rcmsg_log_level = RCMSG_LOG_WARN;

static int log_rank = -1;
static char log_host[64];

static const char *const log_level_names[] = {
#define RCMSG_LOG_LEVEL_TEXT(id, text) [id] = text,
    RCMSG_LOG_LEVEL_LIST(RCMSG_LOG_LEVEL_TEXT)
#undef RCMSG_LOG_LEVEL_TEXT
};
RCMSG_ASSERT_COVERS(log_level_names, RCMSG_LOG_LEVEL_COUNT);

void rcmsg_log_set_level(rcmsg_log_level_t level)
{
    rcmsg_log_level = level;
}

void rcmsg_log_set_rank(int rank)
{
    log_rank = rank;
    if (log_host[0] == '\0' && gethostname(log_host, sizeof(log_host) - 1) != 0) {
        strcpy(log_host, "?"); /* here, before rcmsg's threads start (they log too) */
    }
}

const char *rcmsg_log_level_name(rcmsg_log_level_t level)
{
    if (level < 0 || level >= RCMSG_LOG_LEVEL_COUNT) {
        return "?";
    }
    return log_level_names[level];
}

void rcmsg_log_emit(rcmsg_log_level_t level, const char *file, int line, const char *fmt, ...)
{
    char buf[1024];
    char rank[16] = "?";
    va_list ap;
    int n;

    if (log_host[0] == '\0' && gethostname(log_host, sizeof(log_host) - 1) != 0) {
        strcpy(log_host, "?");
    }
    if (log_rank >= 0) {
        snprintf(rank, sizeof(rank), "%d", log_rank);
    }
    n = snprintf(buf, sizeof(buf), "[rcmsg %s:%s %d] %s: ", log_host, rank, (int)getpid(),
                 log_level_names[level]);
    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof(buf) - 1) {
        n = (int)sizeof(buf) - 2;
    }
    if (level >= RCMSG_LOG_DEBUG) { /* where, and when (the wall clock: ranks' lines align) */
        struct timespec ts;
        struct tm tm;

        clock_gettime(CLOCK_REALTIME, &ts);
        localtime_r(&ts.tv_sec, &tm);
        n += snprintf(buf + n, sizeof(buf) - (size_t)n, " (%s:%d, %02d:%02d:%02d.%06ld)", file,
                      line, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000);
        if (n >= (int)sizeof(buf) - 1) {
            n = (int)sizeof(buf) - 2;
        }
    }
    buf[n++] = '\n';
    if (write(STDERR_FILENO, buf, (size_t)n) < 0) {
        /* nowhere left to report it */
    }
}

void rcmsg_log_dump(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    int n = snprintf(buf, sizeof(buf), "rcmsg dump [rank %d]: ", log_rank);

    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof(buf) - 1) {
        n = (int)sizeof(buf) - 2;
    }
    buf[n++] = '\n';
    if (write(STDERR_FILENO, buf, (size_t)n) < 0) {
        /* nowhere left to report it */
    }
}
