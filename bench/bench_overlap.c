/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rcmsg_bench overlap (bench_overlap.h), the method of OSU's nonblocking collective benchmarks
 * (osu_iallreduce and its siblings, osu_util's statistics):
 * 1. pure: each iteration (after an untimed barrier) posts the operation and waits for it at
 *    once; pure is the mean time;
 * 2. overlapped: each iteration posts it, computes for pure seconds with no library call (a
 *    busy loop: its measured time is compute), then waits; overall is the mean time of the
 *    iteration;
 * 3. overlap = max(0, 100 - 100 * (overall - compute) / pure), with overall, compute and pure
 *    each the mean over the ranks (OSU averages over the ranks too).
 * With --stat median each rank takes the median of its iterations instead of their mean (not
 * OSU's: robust to a host whose other jobs preempt single iterations).
 * 100%: the operation moved entirely while the application computed; 0%: none of it did.
 * rndv: rank 0 sends size bytes to rank 1 (a rendezvous message above the eager limit), on 2
 * ranks; iallreduce: the sum of size / 8 doubles over every rank. The data of the last
 * iteration is checked (the receive's first and last byte; every sum).
 */
#include "bench_overlap.h"

#include "bench_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OVERLAP_TAG 4

typedef struct {
    const bench_overlap_opts_t *o;
    int rank, size;
    unsigned char *sbuf, *rbuf;
    bench_reqs_t *reqs;
    double sink;        /* the compute loop's result, kept */
    double *tot, *comp; /* --stat median: each timed iteration's times */
} ov_t;

static int ov_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* The mean, or with --stat median the median, of n times. */
static double ov_stat(const ov_t *v, double *t, long n, double sum)
{
    if (!v->o->median) {
        return sum / (double)n;
    }
    qsort(t, (size_t)n, sizeof(double), ov_cmp);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* Posts the operation of size bytes; *n: the slots to wait for. */
static int ov_post(ov_t *v, size_t size, size_t *n)
{
    *n = 0;
    if (v->o->what == BENCH_OVERLAP_IALLREDUCE) {
        *n = 1;
        return bench_iallreduce_sum((const double *)v->sbuf, (double *)v->rbuf, size / 8, v->reqs,
                                    0);
    }
    if (v->rank > 1) {
        return 0;
    }
    *n = 1;
    return v->rank == 0 ? bench_isend(v->sbuf, size, 1, OVERLAP_TAG, v->reqs, 0)
                        : bench_irecv(v->rbuf, size, 0, OVERLAP_TAG, v->reqs, 0);
}

/* Computes for secs seconds with no library call; returns the time it took. */
static double ov_compute(ov_t *v, double secs)
{
    double t0 = bench_wtime(), t, x = v->sink;

    do {
        for (int i = 0; i < 200; i++) {
            x = x * 1.0000001 + 1e-9;
        }
        t = bench_wtime() - t0;
    } while (t < secs);
    v->sink = x;
    return t;
}

/* Mean times of one size: without compute (*pure), and with compute for busy seconds (busy > 0:
 * *overall and *compute). */
static int ov_loop(ov_t *v, size_t size, double busy, double *total, double *compute)
{
    size_t n;

    *total = *compute = 0;
    for (long i = -v->o->warmup; i < v->o->iters; i++) {
        double t0, c = 0;

        if (bench_barrier() != 0) {
            return -1;
        }
        t0 = bench_wtime();
        if (ov_post(v, size, &n) != 0) {
            return -1;
        }
        if (busy > 0) {
            c = ov_compute(v, busy);
        }
        if (bench_waitall(v->reqs, n) != 0) {
            return -1;
        }
        if (i >= 0) {
            v->tot[i] = bench_wtime() - t0;
            v->comp[i] = c;
            *total += v->tot[i];
            *compute += c;
        }
    }
    *total = ov_stat(v, v->tot, v->o->iters, *total);
    *compute = ov_stat(v, v->comp, v->o->iters, *compute);
    return 0;
}

/* The last iteration's data, checked. */
static int ov_check(const ov_t *v, size_t size)
{
    if (v->o->what == BENCH_OVERLAP_IALLREDUCE) {
        const double *r = (const double *)v->rbuf;
        double want = (double)v->size * (v->size + 1) / 2;

        for (size_t i = 0; i < size / 8; i++) {
            if (r[i] != want) {
                fprintf(stderr, "%s: rank %d: iallreduce of %zu bytes: element %zu is %g, not %g\n",
                        v->o->prog, v->rank, size, i, r[i], want);
                return -1;
            }
        }
        return 0;
    }
    if (v->rank == 1 && (v->rbuf[0] != 0xa5 || v->rbuf[size - 1] != 0xa5)) {
        fprintf(stderr, "%s: rank 1: message of %zu bytes: wrong data\n", v->o->prog, size);
        return -1;
    }
    return 0;
}

/* Fills the send buffer, poisons the receive buffer. */
static void ov_fill(ov_t *v, size_t size)
{
    if (v->o->what == BENCH_OVERLAP_IALLREDUCE) {
        for (size_t i = 0; i < size / 8; i++) {
            ((double *)v->sbuf)[i] = v->rank + 1;
        }
    } else {
        memset(v->sbuf, 0xa5, size);
    }
    memset(v->rbuf, 0x5a, size);
}

static int ov_size(ov_t *v, size_t size)
{
    double pure, overall, compute, dummy, mine[3], sum[3], overlap;

    ov_fill(v, size);
    if (ov_loop(v, size, 0, &pure, &dummy) != 0 || bench_allreduce_sum(&pure, sum, 1) != 0) {
        return -1;
    }
    pure = sum[0] / v->size; /* every rank computes as long: the mean pure time */
    ov_fill(v, size);
    if (ov_loop(v, size, pure, &overall, &compute) != 0 || ov_check(v, size) != 0) {
        return -1;
    }
    mine[0] = overall;
    mine[1] = compute;
    mine[2] = pure;
    if (bench_allreduce_sum(mine, sum, 3) != 0) {
        return -1;
    }
    overall = sum[0] / v->size;
    compute = sum[1] / v->size;
    overlap = 100 - 100 * (overall - compute) / pure;
    if (v->rank == 0) {
        printf("%-12zu %12.2f %12.2f %12.2f %10.1f\n", size, overall * 1e6, compute * 1e6,
               pure * 1e6, overlap < 0 ? 0 : overlap);
        fflush(stdout);
    }
    return 0;
}

static void ov_header(const ov_t *v)
{
    const bench_overlap_opts_t *o = v->o;

    printf("# %s overlap %s (%s), np %d: post, compute for the pure time, wait (OSU's method)\n",
           o->prog, o->what == BENCH_OVERLAP_RNDV ? "rndv" : "iallreduce", bench_library(),
           v->size);
    printf("# %ld iterations per size after %ld untimed ones; each rank's %s, averaged over the "
           "ranks\n",
           o->iters, o->warmup, o->median ? "median" : "mean");
    printf("# overlap %% = max(0, 100 - 100 x (overall - compute) / pure)\n");
    printf("# %-10s %12s %12s %12s %10s\n", "size (B)", "overall(us)", "compute(us)", "pure(us)",
           "overlap(%)");
    fflush(stdout);
}

int bench_overlap_run(const bench_overlap_opts_t *o)
{
    ov_t v = {.o = o, .rank = bench_rank(), .size = bench_size()};
    int rc = 0;

    if (o->what == BENCH_OVERLAP_RNDV && v.size != 2) {
        if (v.rank == 0) {
            fprintf(stderr, "%s: overlap rndv runs on 2 ranks; the job has %d\n", o->prog, v.size);
        }
        return 2;
    }
    v.sbuf = calloc(o->max > 8 ? o->max : 8, 1);
    v.rbuf = calloc(o->max > 8 ? o->max : 8, 1);
    v.reqs = bench_reqs_new(1);
    v.tot = calloc((size_t)o->iters, sizeof(double));
    v.comp = calloc((size_t)o->iters, sizeof(double));
    if (v.sbuf == NULL || v.rbuf == NULL || v.reqs == NULL || v.tot == NULL || v.comp == NULL) {
        fprintf(stderr, "%s: rank %d: cannot allocate 2 x %zu bytes\n", o->prog, v.rank, o->max);
        bench_abort(1);
    }
    if (v.rank == 0) {
        ov_header(&v);
    }
    for (size_t size = o->min; size <= o->max && rc == 0; size *= 2) {
        if (ov_size(&v, size) != 0) {
            bench_abort(1);
        }
    }
    free(v.sbuf);
    free(v.rbuf);
    free(v.tot);
    free(v.comp);
    bench_reqs_free(v.reqs);
    return rc;
}
