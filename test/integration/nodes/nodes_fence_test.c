/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rcmsg_finalize's closing barrier spans the nodes (test/integration/nodes/nodes_fence.sh):
 * after a barrier, the ranks of the host named by argv[1] sleep SECONDS (argv[2]) before they
 * finalize; every other rank's rcmsg_finalize must last about as long, since no rank tears its
 * connections down while a peer may still use them. (Under Slurm a launcher fence without data
 * collection returned at once on the other node: src/wireup/wireup_launcher.h.)
 *
 *   nodes_fence_test SLEEPER_HOST SECONDS
 *
 * Prints "rank R: host H, finalize took T s" and "rank R: 0 failure(s)"; a rank of another
 * host whose finalize took less than SECONDS - 1 s fails ("FAIL rank R ...", exit 1).
 */
#include "../test_check.h"

#include <rcmsg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    int failures = 0, rank = -1, secs = argc == 3 ? atoi(argv[2]) : 0;
    char host[64] = "?";
    rcmsg_status_t s;
    bool sleeper;
    double t0, took;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (secs < 2 || secs > 60) {
        printf("FAIL: usage: nodes_fence_test SLEEPER_HOST SECONDS (2 to 60)\n");
        return 2;
    }
    if (rcmsg_init() != RCMSG_OK) {
        printf("FAIL: rcmsg_init failed\n");
        return 1;
    }
    rank = rcmsg_rank();
    gethostname(host, sizeof(host));
    sleeper = strcmp(host, argv[1]) == 0;
    s = rcmsg_barrier(rcmsg_comm_world());
    CHECK(s == RCMSG_OK, "rcmsg_barrier: %s", rcmsg_strerror(s));
    if (sleeper) {
        sleep((unsigned)secs);
    }
    t0 = now_s();
    s = rcmsg_finalize();
    took = now_s() - t0;
    CHECK(s == RCMSG_OK, "rcmsg_finalize: %s", rcmsg_strerror(s));
    CHECK(sleeper || took >= secs - 1,
          "finalize took %.2f s while the ranks of %s slept %d s: "
          "its closing barrier did not wait for them",
          took, argv[1], secs);
    printf("rank %d: host %s, finalize took %.2f s\n", rank, host, took);
    printf("rank %d: %d failure(s)\n", rank, failures);
    return failures != 0;
}
