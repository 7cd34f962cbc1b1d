/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rcmsg_bench overlap rndv|iallreduce (bench/bench_overlap.c): how much of a nonblocking
 * transfer or collective proceeds while the application computes, as OSU's nonblocking
 * collective benchmarks measure it.
 */
#ifndef BENCH_OVERLAP_H
#define BENCH_OVERLAP_H

#include <stddef.h>

typedef enum { BENCH_OVERLAP_RNDV, BENCH_OVERLAP_IALLREDUCE } bench_overlap_t;

typedef struct {
    bench_overlap_t what;
    size_t min, max; /* sizes from min, doubling, up to max */
    long iters, warmup;
    int median; /* --stat median: each time the median of the iterations', not their mean */
    const char *prog;
} bench_overlap_opts_t;

/* Runs every size and prints one line each (rank 0); 0 on success, 1 after an error (the job
 * is aborted then), 2 for a job of the wrong size. */
int bench_overlap_run(const bench_overlap_opts_t *o);

#endif /* BENCH_OVERLAP_H */
