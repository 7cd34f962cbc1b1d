/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Liveness: a rank dies by SIGKILL in the middle of a collective, and every survivor must
 * learn it within a bound, whatever it was waiting for (public API only).
 *
 *   liveness_test [ITERS]   ranks run ITERS 8 KiB allreduces; the last rank kills itself
 *                           in the middle; each survivor prints
 *                           "rank R: allreduce returned S after T s" and "rank R: finalized"
 */
#include <rcmsg.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 50, rank, size, i;
    double in[1024], out[1024], t0 = 0;
    rcmsg_status_t s = RCMSG_OK;

    setvbuf(stdout, NULL, _IOLBF, 0);
    s = rcmsg_init();
    if (s != RCMSG_OK) {
        printf("rcmsg_init: %s\n", rcmsg_strerror(s));
        return s == RCMSG_ERR_NO_DEVICE ? 77 : 1;
    }
    rank = rcmsg_rank();
    size = rcmsg_size();
    if (size < 2) {
        printf("SKIP: needs at least 2 ranks\n");
        rcmsg_finalize();
        return 77;
    }
    for (i = 0; i < 1024; i++) {
        in[i] = rank + i;
    }
    for (i = 0; i < iters && s == RCMSG_OK; i++) {
        if (i == iters / 2 && rank == size - 1) {
            printf("rank %d: killing itself with SIGKILL\n", rank);
            raise(SIGKILL);
        }
        t0 = now_s();
        s = rcmsg_allreduce(in, out, 1024, RCMSG_DOUBLE, RCMSG_SUM, rcmsg_comm_world());
    }
    printf("rank %d: allreduce %d returned %s after %.1f s\n", rank, i - 1, rcmsg_status_name(s),
           now_s() - t0);
    s = rcmsg_finalize();
    printf("rank %d: finalized (%s)\n", rank, rcmsg_status_name(s));
    return 0;
}
