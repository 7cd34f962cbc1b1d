/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How many instructions a second the CPU runs, for turning an instruction count (callgrind)
 * into time: bench/msg_cost.sh runs it in the Soft-RoCE guest, natively (timed) and under
 * callgrind (counted), so that a gap in instructions per round trip between two libraries
 * can be compared with the gap in their round trips. Two loops: one in registers only, one
 * of loads and stores to a 32 KiB array (message handling is mostly the latter; an emulated
 * CPU runs it more slowly), and rcmsg's own code: an 8-byte rcmsg_send and rcmsg_recv to
 * this rank (btl_self), calls, branches and all, which an emulator runs slower still.
 *
 *   rcmsg_guest_ips [N]           (N iterations of each loop, default 20,000,000)
 *   mpirun -np 1 rcmsg_guest_ips --self [N]   (N send-receive pairs, default 200,000)
 *
 * Prints "alu SECONDS mem SECONDS", or "self SECONDS", and a checksum that keeps the loops
 * from being optimised away.
 */
#include <rcmsg.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long cells[4096];

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* callgrind counts each loop's instructions apart (msg_cost.sh: --toggle-collect) */
__attribute__((noinline)) static long ips_alu(long n, long x)
{
    for (long i = 0; i < n; i++) {
        x = x * 3 + i;
        x ^= x >> 7;
    }
    return x;
}

__attribute__((noinline)) static long ips_mem(long n, long x)
{
    for (long i = 0; i < n; i++) {
        cells[i & 4095] += x;
        x = cells[(i * 7) & 4095] ^ i;
    }
    return x;
}

/* n 8-byte messages sent to this rank and received (callgrind counts ips_self) */
__attribute__((noinline)) static long ips_self(long n)
{
    rcmsg_comm_t world = rcmsg_comm_world();
    long sum = 0;

    for (long i = 0; i < n; i++) {
        long v = i, got = 0;
        if (rcmsg_send(&v, sizeof(v), 0, 7, world) != RCMSG_OK ||
            rcmsg_recv(&got, sizeof(got), 0, 7, world, NULL) != RCMSG_OK) {
            fprintf(stderr, "rcmsg_guest_ips: a send or receive to self failed\n");
            exit(1);
        }
        sum += got;
    }
    return sum;
}

static int self_main(long n)
{
    double t0;
    long x;

    if (rcmsg_init() != RCMSG_OK) {
        fprintf(stderr, "rcmsg_guest_ips: rcmsg_init failed (run it under mpirun -np 1)\n");
        return 1;
    }
    (void)ips_self(1000); /* warm-up */
    t0 = now();
    x = ips_self(n);
    printf("self %.6f (checksum %ld)\n", now() - t0, x);
    return rcmsg_finalize() == RCMSG_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    bool self = argc > 1 && strcmp(argv[1], "--self") == 0;
    long n = argc > 1 + self ? strtol(argv[1 + self], &end, 10) : self ? 200000 : 20000000;
    long x;
    double t0, t1, t2;

    if (argc > 2 + self || (argc > 1 + self && (*end != '\0' || n < 1))) {
        fprintf(stderr, "usage: rcmsg_guest_ips [--self] [ITERATIONS >= 1]\n");
        return 2;
    }
    if (self) {
        return self_main(n);
    }
    t0 = now();
    x = ips_alu(n, 1);
    t1 = now();
    x = ips_mem(n, x);
    t2 = now();
    printf("alu %.6f mem %.6f (checksum %ld)\n", t1 - t0, t2 - t1, x);
    return 0;
}
