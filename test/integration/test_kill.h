/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_kill_self(me): rank me says so, then dies by SIGKILL. With TEST_KILL_HOLD=S in the
 * environment a child forked first holds the process's descriptors (its launcher connection
 * among them) for S seconds: Slurm's PMIx plugin cancels the whole step about 1 s after a
 * task's PMIx connection drops, and a loaded machine may need longer than that for the
 * survivors to do what a test checks. The rank itself is gone at once (its pid with it), and
 * so are its RDMA resources: the child drops its copies of the verbs descriptors and mappings
 * first, so that the dead rank's QPs vanish (a peer's RC retries run out) while the launcher
 * connection stays.
 */
#ifndef RCMSG_TEST_KILL_H
#define RCMSG_TEST_KILL_H

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* In the holding child: unmaps and closes what refers to /dev/infiniband (the last references
 * to the verbs context once the parent is dead, which then destroys its QPs). */
static inline void test_kill_drop_rdma(void)
{
    unsigned long lo[64], hi[64];
    int n = 0;
    char line[512], path[300], target[256];
    FILE *f = fopen("/proc/self/maps", "r");
    DIR *d;
    struct dirent *e;

    while (f != NULL && n < 64 && fgets(line, sizeof(line), f) != NULL) {
        if (strstr(line, "/dev/infiniband/") != NULL &&
            sscanf(line, "%lx-%lx", &lo[n], &hi[n]) == 2) {
            n++;
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    for (int i = 0; i < n; i++) {
        munmap((void *)lo[i], hi[i] - lo[i]);
    }
    d = opendir("/proc/self/fd");
    while (d != NULL && (e = readdir(d)) != NULL) {
        ssize_t len;

        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        len = readlink(path, target, sizeof(target) - 1);
        if (len <= 0) {
            continue;
        }
        target[len] = '\0';
        if (strncmp(target, "/dev/infiniband/", 16) == 0) {
            close(atoi(e->d_name));
        }
    }
    if (d != NULL) {
        closedir(d);
    }
}

static inline void test_kill_self(int me)
{
    const char *hold = getenv("TEST_KILL_HOLD");

    printf("rank %d: killing itself with SIGKILL\n", me);
    fflush(stdout);
    if (hold != NULL && atoi(hold) > 0 && fork() == 0) {
        test_kill_drop_rdma();
        sleep((unsigned)atoi(hold));
        _exit(0);
    }
    raise(SIGKILL);
}

#endif /* RCMSG_TEST_KILL_H */
