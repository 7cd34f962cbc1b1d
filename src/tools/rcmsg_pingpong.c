/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rcmsg_pingpong: ping-pong between ranks 0 and 1 (rank 0 with itself in a 1-rank job),
 * OSU style: message size, one-way latency in microseconds and bandwidth in MB/s, for sizes
 * from 0 to --max bytes. Every reply is checked. Other ranks only take part in init/finalize.
 *
 *   mpirun -np 2 rcmsg_pingpong [--iters N] [--max BYTES]
 */
#include <getopt.h>
#include <rcmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int pingpong(int rank, int peer, size_t max, int iters)
{
    rcmsg_comm_t world = rcmsg_comm_world();
    char *sbuf = malloc(max ? max : 1), *rbuf = malloc(max ? max : 1);

    if (rank == 0) {
        printf("# rcmsg_pingpong %s: %d iterations per size, ranks 0 and %d\n", rcmsg_version(),
               iters, peer);
        printf("# %10s %14s %14s\n", "size", "latency (us)", "bandwidth (MB/s)");
    }
    for (size_t size = 0; size <= max; size = size ? size * 2 : 1) {
        double t0 = 0;
        memset(sbuf, (int)(size & 0xff), size);
        for (int i = -iters / 10; i < iters; i++) { /* the first tenth warms up */
            rcmsg_status_t s;
            if (i == 0) {
                t0 = now_us();
            }
            if (rank == 0 && peer == 0) { /* alone: to itself (a blocking send would wait) */
                s = rcmsg_sendrecv(sbuf, size, 0, 1, rbuf, size, 0, 1, world, NULL);
            } else if (rank == 0) {
                s = rcmsg_send(sbuf, size, peer, 1, world);
                if (s == RCMSG_OK) {
                    s = rcmsg_recv(rbuf, size, peer, 1, world, NULL);
                }
            } else {
                s = rcmsg_recv(rbuf, size, 0, 1, world, NULL);
                if (s == RCMSG_OK) {
                    s = rcmsg_send(rbuf, size, 0, 1, world);
                }
            }
            if (s != RCMSG_OK) {
                fprintf(stderr, "rcmsg_pingpong: size %zu: %s\n", size, rcmsg_strerror(s));
                return 1;
            }
        }
        if (rank == 0) {
            double lat = (now_us() - t0) / iters / 2;
            if (size > 0 && (rbuf[0] != (char)(size & 0xff) || rbuf[size - 1] != rbuf[0])) {
                fprintf(stderr, "rcmsg_pingpong: size %zu: the reply differs\n", size);
                return 1;
            }
            printf("  %10zu %14.2f %14.2f\n", size, lat, lat > 0 ? (double)size / lat : 0.0);
        }
    }
    free(sbuf);
    free(rbuf);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"iters", required_argument, NULL, 'n'},
                                         {"max", required_argument, NULL, 'm'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int iters = 1000, c, rc = 0;
    long long max = 1 << 22;
    char *end;
    rcmsg_status_t s;

    while ((c = getopt_long(argc, argv, "n:m:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            iters = (int)strtol(optarg, &end, 10);
            if (*end != '\0' || iters < 1) {
                fprintf(stderr, "rcmsg_pingpong: --iters wants a positive integer, not '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'm':
            max = strtoll(optarg, &end, 10);
            if (*end != '\0' || max < 0 || max > (1LL << 30)) {
                fprintf(stderr, "rcmsg_pingpong: --max wants bytes in 0..1073741824, not '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'h':
            printf("usage: rcmsg_pingpong [--iters N] [--max BYTES]\n");
            return 0;
        default:
            fprintf(stderr, "usage: rcmsg_pingpong [--iters N] [--max BYTES]\n");
            return 2;
        }
    }
    s = rcmsg_init();
    if (s != RCMSG_OK) {
        fprintf(stderr, "rcmsg_pingpong: rcmsg_init: %s\n", rcmsg_strerror(s));
        return 1;
    }
    if (rcmsg_rank() < 2) {
        rc = pingpong(rcmsg_rank(), rcmsg_size() > 1 ? 1 : 0, (size_t)max, iters);
    }
    s = rcmsg_finalize();
    if (s != RCMSG_OK) {
        fprintf(stderr, "rcmsg_pingpong: rcmsg_finalize: %s\n", rcmsg_strerror(s));
        rc = 1;
    }
    return rc;
}
