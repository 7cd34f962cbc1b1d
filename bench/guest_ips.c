/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How many instructions a second the CPU runs, for turning an instruction count (callgrind)
 * into time: bench/msg_cost.sh runs it in the Soft-RoCE guest, natively (timed) and under
 * callgrind (counted), so that a gap in instructions per round trip between two libraries
 * can be compared with the gap in their round trips. Two loops: one in registers only, one
 * of loads and stores to a 32 KiB array (message handling is mostly the latter; an emulated
 * CPU runs it more slowly).
 *
 *   rcmsg_guest_ips [N]    (N iterations of each loop, default 20,000,000)
 *
 * Prints "alu SECONDS mem SECONDS" and a checksum that keeps the loops from being optimised
 * away.
 */
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
    char *end = NULL;
    long n = argc > 1 ? strtol(argv[1], &end, 10) : 20000000;
    long x;
    double t0, t1, t2;

    if (argc > 2 || (argc > 1 && (*end != '\0' || n < 1))) {
        fprintf(stderr, "usage: rcmsg_guest_ips [ITERATIONS >= 1]\n");
        return 2;
    }
    t0 = now();
    x = ips_alu(n, 1);
    t1 = now();
    x = ips_mem(n, x);
    t2 = now();
    printf("alu %.6f mem %.6f (checksum %ld)\n", t1 - t0, t2 - t1, x);
    return 0;
}
