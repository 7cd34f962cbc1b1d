/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_log_to_file(ENV): when the environment variable ENV names a directory, the process's
 * standard error (rcmsg's log) goes to ENV/PID.log from now on, so that a script can read each
 * rank's log lines whole (mpirun's forwarding may splice one rank's line into another's). A
 * directory that cannot be written prints "FAIL: ..." and exits 1.
 */
#ifndef RCMSG_TEST_LOG_H
#define RCMSG_TEST_LOG_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void test_log_to_file(const char *env)
{
    const char *dir = getenv(env);
    char path[4096];
    int fd;

    if (dir == NULL) {
        return;
    }
    snprintf(path, sizeof(path), "%s/%d.log", dir, (int)getpid());
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) {
        printf("FAIL: cannot write the log to %s: %s\n", path, strerror(errno));
        exit(1);
    }
    close(fd);
}

#endif /* RCMSG_TEST_LOG_H */
