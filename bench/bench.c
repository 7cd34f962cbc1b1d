/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rcmsg_bench: OSU-style micro-benchmarks, written once over bench_backend.h so that rcmsg
 * (rcmsg_bench) and MPI libraries (rcmsg_bench_mpi, rcmsg_bench_mpich) run the very same
 * measurement code.
 *
 *   mpirun -np 2 rcmsg_bench latency|bw|bibw|rate [options]
 *   mpirun -np N rcmsg_bench coll barrier|bcast|allreduce|allgather|alltoall|reduce|gather|
 *                                 scatter|reduce_scatter_block [options]
 *   mpirun -np N rcmsg_bench overlap rndv|iallreduce [options]   (bench_overlap.c; rndv: N=2)
 *
 * Output: '#' comment lines (what was measured and how), then one line per message size:
 * the size in bytes and the result (microseconds, MB/s with MB = 10^6 bytes, or messages/s).
 * A collective's size is, as OSU reports it, each rank's block for allgather, alltoall, gather
 * and scatter, and the whole vector for bcast, allreduce, reduce and reduce_scatter_block (of
 * which each rank gets size / ranks, in whole doubles). The reductions sum doubles; roots are
 * rank 0.
 *
 * Every buffer is allocated and written before timing; the timed loops allocate nothing.
 * Receive buffers are poisoned before each size and the last message received is checked
 * (first and last byte) after the timed loop, outside timing, so that a transport that does
 * not deliver cannot report fast numbers. Collectives are checked by one more call, after
 * the timed ones, on freshly poisoned buffers.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* program_invocation_short_name */
#endif
#include "bench_backend.h"
#include "bench_overlap.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h> /* __rdtsc */
#endif

#define BENCH_TAG_DATA  1
#define BENCH_TAG_ACK   2
#define BENCH_TAG_OK    3            /* rank 1's data checked: rank 0 may print */
#define BENCH_LARGE     8192         /* above this, the "large" iteration counts apply */
#define BENCH_MAX_BYTES (1ULL << 30) /* --max limit */
#define BENCH_MAX_ITERS 1000000000L
#define BENCH_MAX_WIN   4096

typedef enum {
    BENCH_LATENCY,
    BENCH_BW,
    BENCH_BIBW,
    BENCH_RATE,
    BENCH_COLL,
    BENCH_OVERLAP /* bench_overlap.c */
} bench_kind_t;

typedef enum {
    BENCH_BARRIER,
    BENCH_BCAST,
    BENCH_ALLREDUCE,
    BENCH_ALLGATHER,
    BENCH_ALLTOALL,
    BENCH_REDUCE,
    BENCH_GATHER,
    BENCH_SCATTER,
    BENCH_REDUCE_SCATTER_BLOCK
} bench_coll_t;

/* The clock, here rather than in the backends (not MPI_Wtime()), so that timing (per
 * iteration with --stat median) costs the same with every library. */
double bench_wtime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const coll_names[] = {"barrier",   "bcast",    "allreduce",
                                         "allgather", "alltoall", "reduce",
                                         "gather",    "scatter",  "reduce_scatter_block"};
#define BENCH_NCOLL (sizeof(coll_names) / sizeof(coll_names[0]))
#define BENCH_COLL_LIST                                                                            \
    "barrier, bcast, allreduce, allgather, alltoall, reduce, gather, scatter or "                  \
    "reduce_scatter_block"

/* The command line, once defaults are applied. */
typedef struct {
    bench_kind_t kind;
    bench_coll_t coll;
    bench_overlap_t overlap; /* overlap rndv|iallreduce */
    size_t min, max;
    long iters, iters_large;   /* timed iterations per size up to / above BENCH_LARGE */
    long warmup, warmup_large; /* untimed iterations before them */
    int window;
    int median;  /* --stat median: the median of per-iteration times instead of the mean */
    int samples; /* --samples: rank 0 prints every timed iteration's time as it ends */
    int span;    /* --span: coll also reports the median span over the ranks (one host) */
} bench_opts_t;

/* What every benchmark works on: buffers allocated and touched once for the largest size. */
typedef struct {
    const bench_opts_t *o;
    int rank, size;
    unsigned char *sbuf, *rbuf; /* max bytes each (times the ranks: coll_blocks()) */
    size_t buf_len;
    unsigned char ack[4];
    bench_reqs_t *reqs; /* 2 * window slots */
    double *samples;    /* per-iteration seconds (--stat median, --samples), else NULL */
    double *span;       /* --span: each timed call's start, then its end (2 x iterations) */
} bench_ctx_t;

static const char *prog(void)
{
    return program_invocation_short_name;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s latency|bw|bibw|rate [options]\n"
            "       %s coll barrier|bcast|allreduce|allgather|alltoall|reduce|gather|scatter|\n"
            "               reduce_scatter_block [options]\n"
            "  latency    ping-pong between ranks 0 and 1: one-way latency (half the round "
            "trip), us\n"
            "  bw         rank 0 streams windows of --window nonblocking sends to rank 1, which "
            "acks\n"
            "             each window with 4 bytes: MB/s (10^6 bytes)\n"
            "  bibw       as bw in both directions at once: MB/s of both directions together\n"
            "  rate       as bw, counted in messages/s\n"
            "  coll NAME  latency per call (us), each call timed alone with an untimed barrier "
            "between\n"
            "             calls (as OSU): the maximum over the ranks of each rank's mean; roots "
            "are rank 0;\n"
            "             the size is each rank's block for allgather, alltoall, gather and "
            "scatter,\n"
            "             the whole vector for bcast, allreduce, reduce and reduce_scatter_block "
            "(as OSU)\n"
            "  overlap rndv|iallreduce  OSU's overlap of a nonblocking operation with computation: "
            "post,\n"
            "             compute for the pure time, wait; rndv: rank 0 sends to rank 1 (2 ranks); "
            "sizes\n"
            "             1m..1m by default (iallreduce: doubles, from 8 B), 100 iterations\n"
            "options (sizes in bytes, with an optional k, m or g suffix: powers of 1024):\n"
            "  --min B, --max B   sizes from min, doubling, up to max (latency/bw/bibw: 1..4m, "
            "rate: 1..8k,\n"
            "                     coll: 8..1m; allreduce, reduce and reduce_scatter_block sum "
            "doubles\n"
            "                     and skip sizes below 8, reduce_scatter_block below 8 x "
            "ranks)\n"
            "  --iters N          timed iterations per size up to 8 KiB (latency 10000, "
            "bw/bibw/rate 100\n"
            "                     windows, coll 1000)\n"
            "  --iters-large N    timed iterations per size above 8 KiB (default: --iters / "
            "10, at least 1;\n"
            "                     bw/bibw/rate: 20 unless --iters is given)\n"
            "  --warmup N         untimed iterations before the timed ones (default: a tenth "
            "of them)\n"
            "  --window W         messages in flight for bw, bibw and rate (default 64, at most "
            "%d)\n"
            "  --stat mean|median the mean time of the timed iterations (default, as OSU), or "
            "the median\n"
            "                     of the iterations' times (each timed alone: robust to a "
            "busy host)\n"
            "  --samples          rank 0 also prints each timed iteration's time as it ends: "
            "'# sample SIZE I US'\n"
            "                     (the round trip for latency; printing is not timed)\n"
            "  --span             coll: a third column, the median over the timed calls of the "
            "span from\n"
            "                     the first rank's start to the last rank's end (us); the ranks "
            "must share\n"
            "                     one clock (one host): immune to the order in which the "
            "barrier releases them\n",
            prog(), prog(), BENCH_MAX_WIN);
}

/* ---- command line ------------------------------------------------------------------------ */

static int parse_size(const char *opt, const char *arg, size_t *size_p)
{
    char *end;
    unsigned long long v;
    unsigned shift = 0;

    errno = 0;
    v = strtoull(arg, &end, 10);
    if (end != arg && *end != '\0' && end[1] == '\0') {
        switch (*end) {
        case 'k':
        case 'K':
            shift = 10;
            end++;
            break;
        case 'm':
        case 'M':
            shift = 20;
            end++;
            break;
        case 'g':
        case 'G':
            shift = 30;
            end++;
            break;
        default:
            break;
        }
    }
    if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' ||
        v > (BENCH_MAX_BYTES >> shift)) {
        fprintf(stderr, "%s: %s wants a size in 0..1g (bytes, or with a k/m/g suffix), not '%s'\n",
                prog(), opt, arg);
        return -1;
    }
    *size_p = (size_t)(v << shift);
    return 0;
}

static int parse_long(const char *opt, const char *arg, long lo, long hi, long *v_p)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(arg, &end, 10);
    if (errno != 0 || end == arg || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "%s: %s wants an integer in %ld..%ld, not '%s'\n", prog(), opt, lo, hi,
                arg);
        return -1;
    }
    *v_p = v;
    return 0;
}

static int parse_command(int nargs, char **args, bench_opts_t *o)
{
    static const char *const p2p[] = {"latency", "bw", "bibw", "rate"};

    if (nargs < 1) {
        fprintf(stderr, "%s: which benchmark? (latency, bw, bibw, rate or coll NAME)\n", prog());
        return -1;
    }
    for (int i = 0; i < 4; i++) {
        if (strcmp(args[0], p2p[i]) == 0) {
            o->kind = (bench_kind_t)i;
            if (nargs > 1) {
                fprintf(stderr, "%s: unexpected argument '%s' after '%s'\n", prog(), args[1],
                        args[0]);
                return -1;
            }
            return 0;
        }
    }
    if (strcmp(args[0], "overlap") == 0) {
        o->kind = BENCH_OVERLAP;
        if (nargs == 2 && (strcmp(args[1], "rndv") == 0 || strcmp(args[1], "iallreduce") == 0)) {
            o->overlap = args[1][0] == 'r' ? BENCH_OVERLAP_RNDV : BENCH_OVERLAP_IALLREDUCE;
            return 0;
        }
        fprintf(stderr, "%s: overlap wants one name: rndv or iallreduce\n", prog());
        return -1;
    }
    if (strcmp(args[0], "coll") != 0) {
        fprintf(stderr, "%s: unknown benchmark '%s' (latency, bw, bibw, rate or coll NAME)\n",
                prog(), args[0]);
        return -1;
    }
    if (nargs != 2) {
        fprintf(stderr, "%s: coll wants one name: " BENCH_COLL_LIST "\n", prog());
        return -1;
    }
    o->kind = BENCH_COLL;
    for (size_t i = 0; i < BENCH_NCOLL; i++) {
        if (strcmp(args[1], coll_names[i]) == 0) {
            o->coll = (bench_coll_t)i;
            return 0;
        }
    }
    fprintf(stderr, "%s: unknown collective '%s' (" BENCH_COLL_LIST ")\n", prog(), args[1]);
    return -1;
}

/* Fills in the defaults of the options not given. */
static void apply_defaults(bench_opts_t *o, int have_min, int have_max, int have_large,
                           int have_warmup)
{
    long iters_default = o->kind == BENCH_LATENCY ? 10000 : o->kind == BENCH_COLL ? 1000 : 100;

    if (!have_min) {
        o->min = o->kind == BENCH_OVERLAP ? (1u << 20) : o->kind == BENCH_COLL ? 8 : 1;
    }
    if (!have_max) {
        o->max = o->kind == BENCH_COLL || o->kind == BENCH_OVERLAP ? (1u << 20)
                 : o->kind == BENCH_RATE                           ? 8192
                                                                   : (4u << 20);
    }
    if (o->kind == BENCH_OVERLAP && !have_large) {
        o->iters_large = o->iters != 0 ? o->iters : iters_default; /* one count for every size */
        have_large = 1;
    }
    if (o->iters == 0) {
        o->iters = iters_default;
        if (!have_large && o->kind != BENCH_LATENCY && o->kind != BENCH_COLL) {
            o->iters_large = 20; /* as OSU's bandwidth tests */
            have_large = 1;
        }
    }
    if (!have_large) {
        o->iters_large = o->iters / 10 > 0 ? o->iters / 10 : 1;
    }
    if (!have_warmup) {
        o->warmup = o->iters / 10;
        o->warmup_large = o->iters_large / 10 > 0 ? o->iters_large / 10 : 1;
    } else {
        o->warmup_large = o->warmup;
    }
}

/* 0: run; 1: done (help); -1: bad arguments. */
static int parse_args(int argc, char **argv, bench_opts_t *o)
{
    static const struct option opts[] = {
        {"min", required_argument, NULL, 'a'},
        {"max", required_argument, NULL, 'b'},
        {"iters", required_argument, NULL, 'n'},
        {"iters-large", required_argument, NULL, 'l'},
        {"warmup", required_argument, NULL, 'w'},
        {"window", required_argument, NULL, 'W'},
        {"stat", required_argument, NULL, 's'},
        {"samples", no_argument, NULL, 'S'},
        {"span", no_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c, have_min = 0, have_max = 0, have_large = 0, have_warmup = 0;
    long v;

    memset(o, 0, sizeof(*o));
    o->window = 64;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int err = 0;
        switch (c) {
        case 'a':
            err = parse_size("--min", optarg, &o->min);
            have_min = 1;
            break;
        case 'b':
            err = parse_size("--max", optarg, &o->max);
            have_max = 1;
            break;
        case 'n':
            err = parse_long("--iters", optarg, 1, BENCH_MAX_ITERS, &o->iters);
            break;
        case 'l':
            err = parse_long("--iters-large", optarg, 1, BENCH_MAX_ITERS, &o->iters_large);
            have_large = 1;
            break;
        case 'w':
            err = parse_long("--warmup", optarg, 0, BENCH_MAX_ITERS, &o->warmup);
            have_warmup = 1;
            break;
        case 'W':
            err = parse_long("--window", optarg, 1, BENCH_MAX_WIN, &v);
            o->window = (int)v;
            break;
        case 's':
            if (strcmp(optarg, "mean") != 0 && strcmp(optarg, "median") != 0) {
                fprintf(stderr, "%s: --stat wants mean or median, not '%s'\n", prog(), optarg);
                err = -1;
            }
            o->median = strcmp(optarg, "median") == 0;
            break;
        case 'S':
            o->samples = 1;
            break;
        case 'P':
            o->span = 1;
            break;
        case 'h':
            usage(stdout);
            return 1;
        case ':':
            fprintf(stderr, "%s: %s wants a value\n", prog(), argv[optind - 1]);
            return -1;
        default:
            fprintf(stderr, "%s: unknown option '%s'\n", prog(), argv[optind - 1]);
            return -1;
        }
        if (err != 0) {
            return -1;
        }
    }
    if (parse_command(argc - optind, argv + optind, o) != 0) {
        return -1;
    }
    apply_defaults(o, have_min, have_max, have_large, have_warmup);
    if (o->min > o->max) {
        fprintf(stderr, "%s: --min (%zu) is above --max (%zu)\n", prog(), o->min, o->max);
        return -1;
    }
    if (o->kind == BENCH_OVERLAP && o->min < (o->overlap == BENCH_OVERLAP_RNDV ? 1u : 8u)) {
        fprintf(stderr, "%s: overlap wants --min of at least %u bytes\n", prog(),
                o->overlap == BENCH_OVERLAP_RNDV ? 1u : 8u);
        return -1;
    }
    return 0;
}

/* ---- helpers ----------------------------------------------------------------------------- */

/* The byte that message (size, who) carries; its complement is the poison. */
static unsigned char pattern(size_t size, int who)
{
    return (unsigned char)(0x5a ^ size ^ (size >> 8) ^ (size >> 16) ^ (size >> 24) ^
                           ((unsigned)who * 0x3b));
}

static size_t next_size(size_t size)
{
    return size == 0 ? 1 : size * 2;
}

static int is_large(size_t size)
{
    return size > BENCH_LARGE;
}

static long iters_of(const bench_opts_t *o, size_t size)
{
    return is_large(size) ? o->iters_large : o->iters;
}

static long warmup_of(const bench_opts_t *o, size_t size)
{
    return is_large(size) ? o->warmup_large : o->warmup;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Seconds per iteration of a timed loop of iters iterations that took total seconds: the
 * mean, or with --stat median the median of the per-iteration times in x->samples. With
 * --samples the mean is that of the samples (the total would count the printing too). */
static double per_iter(bench_ctx_t *x, double total, long iters)
{
    size_t n = (size_t)iters;

    if (!x->o->median) {
        if (x->o->samples) {
            total = 0;
            for (size_t i = 0; i < n; i++) {
                total += x->samples[i];
            }
        }
        return total / (double)iters;
    }
    qsort(x->samples, n, sizeof(double), cmp_double);
    return n % 2 ? x->samples[n / 2] : (x->samples[n / 2 - 1] + x->samples[n / 2]) / 2;
}

/* --samples: rank 0 prints one iteration's time at once (a run cut short still leaves its
 * times). */
static void print_sample(const bench_ctx_t *x, size_t size, long i, double seconds)
{
    if (x->o->samples && x->rank == 0) {
        printf("# sample %zu %ld %.2f\n", size, i, seconds * 1e6);
        fflush(stdout);
    }
}

/* The stamps that end the iterations of a point-to-point loop: the TSC on x86 (one
 * instruction, as perftest's get_cycles()), else and with --samples the clock's nanoseconds
 * (--samples prints each iteration's time as it ends, which costs more than the clock).
 * clock_gettime() is a system call where the kernel's clocksource has no vDSO path, as in the
 * Soft-RoCE guest once its watchdog moves it to the HPET: 10-20 us on rank 0's critical path
 * every round trip, which perftest does not pay. */
static inline uint64_t stamp_now(const bench_ctx_t *x)
{
#if defined(__x86_64__) || defined(__i386__)
    if (!x->o->samples) {
        return __rdtsc();
    }
#endif
    (void)x;
    return (uint64_t)(bench_wtime() * 1e9);
}

/* A timed loop: the clock and the stamp at its start, the stamp at its last iteration's end. */
typedef struct {
    double t0;
    uint64_t c0, prev;
} loop_clock_t;

static void loop_start(const bench_ctx_t *x, loop_clock_t *lc)
{
    lc->t0 = bench_wtime();
    lc->c0 = lc->prev = stamp_now(x);
}

/* After iteration i of a timed loop: its time into x->samples (--stat median, --samples), in
 * stamps until loop_end; with --samples it is printed, and the next iteration starts after the
 * print. */
static inline void sample(bench_ctx_t *x, long i, size_t size, loop_clock_t *lc)
{
    if (x->samples != NULL && i >= 0) {
        uint64_t now = stamp_now(x);
        x->samples[i] = (double)(now - lc->prev);
        if (x->o->samples) {
            print_sample(x, size, i, x->samples[i] * 1e-9);
            now = stamp_now(x);
        }
        lc->prev = now;
    }
}

/* Seconds per iteration of the loop lc timed (per_iter), its samples turned into seconds by
 * the clock's measure of the whole loop (c stamps in t seconds), so that they add up to it. */
static double loop_end(bench_ctx_t *x, const loop_clock_t *lc, long iters)
{
    uint64_t c = stamp_now(x) - lc->c0;
    double t = bench_wtime() - lc->t0, scale = c > 0 ? t / (double)c : 0;

    for (long i = 0; x->samples != NULL && i < iters; i++) {
        x->samples[i] *= scale;
    }
    return per_iter(x, t, iters);
}

/* Both ends of a block hold the expected byte. */
static int check_block(const unsigned char *buf, size_t len, unsigned char want, const char *what,
                       size_t size, int rank)
{
    if (len == 0 || (buf[0] == want && buf[len - 1] == want)) {
        return 0;
    }
    fprintf(stderr,
            "%s: rank %d: %s of %zu bytes: wrong data (first byte 0x%02x, last 0x%02x, "
            "expected 0x%02x)\n",
            prog(), rank, what, size, buf[0], buf[len - 1], want);
    return -1;
}

static void fail(void)
{
    bench_abort(1);
}

static void print_header(const bench_ctx_t *x, const char *what, const char *unit)
{
    const bench_opts_t *o = x->o;
    static const char *const kind_names[] = {"latency", "bw", "bibw", "rate", "coll"};
    int coll = o->kind == BENCH_COLL;

    printf("# %s %s%s%s (%s), np %d: %s\n", prog(), kind_names[o->kind], coll ? " " : "",
           coll ? coll_names[o->coll] : "", bench_library(), x->size, what);
    if (o->kind == BENCH_COLL && o->coll == BENCH_BARRIER) {
        printf("# %ld iterations after %ld untimed ones\n", o->iters, o->warmup);
    } else {
        printf("# iterations per size: %ld up to %d bytes, %ld above (untimed warmup: %ld, %ld)",
               o->iters, BENCH_LARGE, o->iters_large, o->warmup, o->warmup_large);
        if (o->kind == BENCH_BW || o->kind == BENCH_BIBW || o->kind == BENCH_RATE) {
            printf("; window %d", o->window);
        }
        printf("\n");
    }
    printf("# statistic: %s\n", o->median ? "the median of the timed iterations, each timed alone"
                                          : "the mean over the timed iterations");
    printf("# %-10s %16s\n", "size (B)", unit);
    fflush(stdout);
}

static void print_result(size_t size, double value)
{
    printf("%-12zu %16.2f\n", size, value);
    fflush(stdout);
}

/* ---- point to point: ranks 0 and 1 --------------------------------------------------------- */

/* Half the round trip of a blocking ping-pong, in microseconds. */
static double run_latency(bench_ctx_t *x, size_t size, long iters, long warmup)
{
    int peer = 1 - x->rank;
    loop_clock_t lc = {0};

    for (long i = -warmup; i < iters; i++) {
        if (i == 0) {
            loop_start(x, &lc);
        }
        if (x->rank == 0) {
            if (bench_send(x->sbuf, size, peer, BENCH_TAG_DATA) != 0 ||
                bench_recv(x->rbuf, size, peer, BENCH_TAG_DATA) != 0) {
                fail();
            }
        } else {
            if (bench_recv(x->rbuf, size, peer, BENCH_TAG_DATA) != 0 ||
                bench_send(x->sbuf, size, peer, BENCH_TAG_DATA) != 0) {
                fail();
            }
        }
        sample(x, i, size, &lc);
    }
    return loop_end(x, &lc, iters) * 1e6 / 2;
}

/* One window from rank 0 to rank 1 (both directions for bibw), then rank 1's ack (not bibw). */
static void window_once(bench_ctx_t *x, size_t size, int both)
{
    size_t w = (size_t)x->o->window, n = 0;
    int peer = 1 - x->rank;

    if (both || x->rank == 1) {
        for (size_t j = 0; j < w; j++, n++) {
            if (bench_irecv(x->rbuf, size, peer, BENCH_TAG_DATA, x->reqs, n) != 0) {
                fail();
            }
        }
    }
    if (both || x->rank == 0) {
        for (size_t j = 0; j < w; j++, n++) {
            if (bench_isend(x->sbuf, size, peer, BENCH_TAG_DATA, x->reqs, n) != 0) {
                fail();
            }
        }
    }
    if (bench_waitall(x->reqs, n) != 0) {
        fail();
    }
    if (both) {
        return;
    }
    if (x->rank == 0 ? bench_recv(x->ack, sizeof(x->ack), peer, BENCH_TAG_ACK)
                     : bench_send(x->ack, sizeof(x->ack), peer, BENCH_TAG_ACK)) {
        fail();
    }
}

/* Seconds per window, as rank 0 sees them. */
static double run_windows(bench_ctx_t *x, size_t size, long iters, long warmup, int both)
{
    loop_clock_t lc = {0};

    for (long i = -warmup; i < iters; i++) {
        if (i == 0) {
            loop_start(x, &lc);
        }
        window_once(x, size, both);
        sample(x, i, size, &lc);
    }
    return loop_end(x, &lc, iters);
}

static int run_p2p(bench_ctx_t *x)
{
    const bench_opts_t *o = x->o;
    int active = x->rank < 2, both = o->kind == BENCH_BIBW;
    int peer = 1 - x->rank;

    if (x->rank == 0) {
        static const char *const what[] = {
            "ping-pong between ranks 0 and 1, one-way latency = half the round trip",
            "rank 0 streams windows of nonblocking sends to rank 1, a 4-byte ack per window",
            "ranks 0 and 1 send windows of nonblocking messages to each other at once (bytes "
            "of both directions)",
            "rank 0 streams windows of nonblocking sends to rank 1, a 4-byte ack per window"};
        static const char *const unit[] = {"latency (us)", "MB/s (10^6 B)", "MB/s (10^6 B)",
                                           "messages/s"};
        print_header(x, what[o->kind], unit[o->kind]);
    }
    for (size_t size = o->min; size <= o->max; size = next_size(size)) {
        long iters = iters_of(o, size), warmup = warmup_of(o, size);
        double t = 0, value = 0;
        int receives = both || x->rank == 1 || o->kind == BENCH_LATENCY;

        if (active) {
            memset(x->sbuf, pattern(size, x->rank), size);
            memset(x->rbuf, pattern(size, peer) ^ 0xff, size);
        }
        if (bench_barrier() != 0) {
            fail();
        }
        if (!active) {
            continue;
        }
        if (o->kind == BENCH_LATENCY) {
            value = run_latency(x, size, iters, warmup);
        } else {
            t = run_windows(x, size, iters, warmup, both);
            double msgs = (double)o->window * (both ? 2 : 1);
            value = o->kind == BENCH_RATE ? msgs / t : msgs * (double)size / t / 1e6;
        }
        if (receives && check_block(x->rbuf, size, pattern(size, peer), "last message received",
                                    size, x->rank) != 0) {
            fail();
        }
        /* no line is printed for data that rank 1 found wrong: it aborts instead of saying ok */
        if (x->rank == 1 ? bench_send(x->ack, sizeof(x->ack), 0, BENCH_TAG_OK)
                         : bench_recv(x->ack, sizeof(x->ack), 1, BENCH_TAG_OK)) {
            fail();
        }
        if (x->rank == 0) {
            print_result(size, value);
        }
    }
    return 0;
}

/* ---- collectives ------------------------------------------------------------------------- */

/* The reductions sum doubles: sizes below one double (one per rank for reduce_scatter_block,
 * whose size is the whole vector) are skipped. */
static size_t coll_min_size(const bench_ctx_t *x)
{
    switch (x->o->coll) {
    case BENCH_ALLREDUCE:
    case BENCH_REDUCE:
        return sizeof(double);
    case BENCH_REDUCE_SCATTER_BLOCK:
        return sizeof(double) * (size_t)x->size;
    default:
        return 0;
    }
}

/* reduce_scatter_block: the doubles each rank gets of a vector of size bytes. */
static size_t rsb_count(const bench_ctx_t *x, size_t size)
{
    return size / sizeof(double) / (size_t)x->size;
}

/* The buffers hold this many blocks of the largest size: one per rank where the size is each
 * rank's block (both buffers, though gather's input and scatter's output are one block); for
 * reduce_scatter_block the size is the whole input already. */
static size_t coll_blocks(const bench_opts_t *o, int nranks)
{
    if (o->kind != BENCH_COLL) {
        return 1;
    }
    switch (o->coll) {
    case BENCH_ALLGATHER:
    case BENCH_ALLTOALL:
    case BENCH_GATHER:
    case BENCH_SCATTER:
        return (size_t)nranks;
    default:
        return 1;
    }
}

static int coll_call(bench_ctx_t *x, size_t size)
{
    switch (x->o->coll) {
    case BENCH_BARRIER:
        return bench_barrier();
    case BENCH_BCAST:
        return bench_bcast(x->rbuf, size, 0);
    case BENCH_ALLREDUCE:
        return bench_allreduce_sum((const double *)x->sbuf, (double *)x->rbuf,
                                   size / sizeof(double));
    case BENCH_ALLGATHER:
        return bench_allgather(x->sbuf, x->rbuf, size);
    case BENCH_ALLTOALL:
        return bench_alltoall(x->sbuf, x->rbuf, size);
    case BENCH_REDUCE:
        return bench_reduce_sum((const double *)x->sbuf, (double *)x->rbuf, size / sizeof(double),
                                0);
    case BENCH_GATHER:
        return bench_gather(x->sbuf, x->rbuf, size, 0);
    case BENCH_SCATTER:
        return bench_scatter(x->sbuf, x->rbuf, size, 0);
    case BENCH_REDUCE_SCATTER_BLOCK:
        return bench_reduce_scatter_block_sum((const double *)x->sbuf, (double *)x->rbuf,
                                              rsb_count(x, size));
    }
    return -1;
}

/* Sets the input of a collective of size bytes and poisons its output. */
static void coll_fill(bench_ctx_t *x, size_t size)
{
    size_t n = (size_t)x->size;

    switch (x->o->coll) {
    case BENCH_BARRIER:
        break;
    case BENCH_BCAST:
        memset(x->rbuf, x->rank == 0 ? pattern(size, 0) : pattern(size, 0) ^ 0xff, size);
        break;
    case BENCH_ALLREDUCE:
    case BENCH_REDUCE:
        for (size_t i = 0; i < size / sizeof(double); i++) {
            ((double *)x->sbuf)[i] = (double)(x->rank + 1);
            ((double *)x->rbuf)[i] = -1.0;
        }
        break;
    case BENCH_REDUCE_SCATTER_BLOCK: { /* element of block j from rank r: (r + 1) * (j + 1) */
        size_t count = rsb_count(x, size);
        for (size_t j = 0; j < n; j++) {
            for (size_t i = 0; i < count; i++) {
                ((double *)x->sbuf)[j * count + i] = (double)(x->rank + 1) * (double)(j + 1);
            }
        }
        for (size_t i = 0; i < count; i++) {
            ((double *)x->rbuf)[i] = -1.0;
        }
        break;
    }
    case BENCH_ALLGATHER:
    case BENCH_GATHER: /* the root's output (checked there only) */
        memset(x->sbuf, pattern(size, x->rank), size);
        for (size_t i = 0; i < n; i++) {
            memset(x->rbuf + i * size, pattern(size, (int)i) ^ 0xff, size);
        }
        break;
    case BENCH_ALLTOALL: /* block j from rank i carries pattern(size, i * n + j) */
        for (size_t j = 0; j < n; j++) {
            memset(x->sbuf + j * size, pattern(size, (int)(x->rank * n + j)), size);
            memset(x->rbuf + j * size, pattern(size, (int)(j * n + x->rank)) ^ 0xff, size);
        }
        break;
    case BENCH_SCATTER: /* block j of the root's input carries pattern(size, j); the others'
                         * input is poison, so that a rank must not take its block from there */
        for (size_t j = 0; j < n; j++) {
            memset(x->sbuf + j * size, pattern(size, (int)j) ^ (x->rank == 0 ? 0 : 0xff), size);
        }
        memset(x->rbuf, pattern(size, x->rank) ^ 0xff, size);
        break;
    }
}

/* The first and last of count doubles at r are want. */
static int check_sum(const double *r, size_t count, double want, const char *what, size_t size,
                     int rank)
{
    if (r[0] == want && r[count - 1] == want) {
        return 0;
    }
    fprintf(stderr, "%s: rank %d: %s of %zu bytes: %g and %g, expected %g\n", prog(), rank, what,
            size, r[0], r[count - 1], want);
    return -1;
}

static int coll_check(bench_ctx_t *x, size_t size)
{
    size_t n = (size_t)x->size;
    int err = 0;

    switch (x->o->coll) {
    case BENCH_BARRIER:
        break;
    case BENCH_BCAST:
        err = check_block(x->rbuf, size, pattern(size, 0), "bcast", size, x->rank);
        break;
    case BENCH_ALLREDUCE:
    case BENCH_REDUCE: /* the root's result only */
        if (x->o->coll == BENCH_ALLREDUCE || x->rank == 0) {
            err = check_sum((const double *)x->rbuf, size / sizeof(double),
                            (double)n * (double)(n + 1) / 2, coll_names[x->o->coll], size, x->rank);
        }
        break;
    case BENCH_REDUCE_SCATTER_BLOCK:
        err = check_sum((const double *)x->rbuf, rsb_count(x, size),
                        (double)(x->rank + 1) * (double)n * (double)(n + 1) / 2,
                        "reduce_scatter_block", size, x->rank);
        break;
    case BENCH_ALLGATHER:
    case BENCH_GATHER: { /* gather: the root's result only */
        int mine = x->o->coll == BENCH_ALLGATHER || x->rank == 0;
        for (size_t i = 0; mine && i < n && err == 0; i++) {
            err = check_block(x->rbuf + i * size, size, pattern(size, (int)i),
                              x->o->coll == BENCH_GATHER ? "gather block" : "allgather block", size,
                              x->rank);
        }
        break;
    }
    case BENCH_SCATTER:
        err = check_block(x->rbuf, size, pattern(size, x->rank), "scatter block", size, x->rank);
        break;
    case BENCH_ALLTOALL:
        for (size_t i = 0; i < n && err == 0; i++) {
            err = check_block(x->rbuf + i * size, size, pattern(size, (int)(i * n + x->rank)),
                              "alltoall block", size, x->rank);
        }
        break;
    }
    return err;
}

/* One call of the collective, timed alone; then (but for the barrier benchmark itself) an
 * untimed barrier, as OSU does, so that no rank runs ahead into the next call. */
static double coll_once(bench_ctx_t *x, size_t size, double *start_p)
{
    double t1 = bench_wtime(), dt;

    *start_p = t1;
    if (coll_call(x, size) != 0) {
        fail();
    }
    dt = bench_wtime() - t1;
    if (x->o->coll != BENCH_BARRIER && bench_barrier() != 0) {
        fail();
    }
    return dt;
}

/* --span: the median over the iters timed calls of (the last rank's end - the first rank's
 * start), in us, from every rank's x->span (valid on rank 0). */
static double coll_span(bench_ctx_t *x, long iters)
{
    size_t n = 2 * (size_t)iters;
    double *all = malloc(n * (size_t)x->size * sizeof(double)), span = 0;

    if (all == NULL || bench_allgather(x->span, all, n * sizeof(double)) != 0) {
        fprintf(stderr, "%s: rank %d: --span: cannot gather %zu times\n", prog(), x->rank, n);
        fail();
    }
    for (long i = 0; i < iters && x->rank == 0; i++) {
        double first = all[2 * i], last = all[2 * i + 1];

        for (int r = 1; r < x->size; r++) {
            first = all[(size_t)r * n + 2 * (size_t)i] < first ? all[(size_t)r * n + 2 * (size_t)i]
                                                               : first;
            last = all[(size_t)r * n + 2 * (size_t)i + 1] > last
                       ? all[(size_t)r * n + 2 * (size_t)i + 1]
                       : last;
        }
        all[i] = (last - first) * 1e6; /* rank 0's own entries 0..2i+1 are read already */
    }
    if (x->rank == 0) {
        qsort(all, (size_t)iters, sizeof(double), cmp_double);
        span = iters % 2 ? all[iters / 2] : (all[iters / 2 - 1] + all[iters / 2]) / 2;
    }
    free(all);
    return span;
}

/* Microseconds per call: the maximum over the ranks of each rank's mean (or median). */
static double coll_time(bench_ctx_t *x, size_t size, long iters, long warmup, double *times)
{
    double total = 0, mean, max = 0, start;

    for (long i = 0; i < warmup; i++) {
        coll_once(x, size, &start);
    }
    if (bench_barrier() != 0) {
        fail();
    }
    for (long i = 0; i < iters; i++) {
        double dt = coll_once(x, size, &start);
        total += dt;
        if (x->span != NULL) {
            x->span[2 * i] = start;
            x->span[2 * i + 1] = start + dt;
        }
        if (x->samples != NULL) {
            x->samples[i] = dt;
            print_sample(x, size, i, dt);
        }
    }
    mean = per_iter(x, total, iters) * 1e6;
    if (bench_allgather(&mean, times, sizeof(mean)) != 0) {
        fail();
    }
    for (int r = 0; r < x->size; r++) {
        max = times[r] > max ? times[r] : max;
    }
    return max;
}

static int run_coll(bench_ctx_t *x)
{
    const bench_opts_t *o = x->o;
    double *times = malloc((size_t)x->size * sizeof(double));
    size_t min = o->min, max = o->max;

    if (times == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog());
        fail();
    }
    if (x->rank == 0) {
        char what[200];
        snprintf(what, sizeof(what),
                 "each call timed alone%s; latency = the maximum over the ranks of each rank's %s",
                 o->coll == BENCH_BARRIER ? "" : ", an untimed barrier between calls",
                 o->median ? "median" : "mean");
        print_header(x, what, "latency (us)");
        if (o->span) {
            printf("# third column: span (us), the median over the calls of the last rank's end "
                   "- the first rank's start (CLOCK_MONOTONIC: ranks on one host)\n");
        }
        if (min < coll_min_size(x)) {
            printf("# %s sums doubles: sizes below %zu bytes skipped\n", coll_names[o->coll],
                   coll_min_size(x));
        }
        if (o->coll == BENCH_REDUCE_SCATTER_BLOCK) {
            printf("# size: the whole vector (as OSU); each rank gets size / %d bytes, rounded "
                   "down to whole doubles\n",
                   x->size);
        }
    }
    if (o->coll == BENCH_BARRIER) {
        min = max = 0; /* one line, size 0 */
    }
    for (size_t size = min; size <= max; size = next_size(size)) {
        if (size < coll_min_size(x)) {
            continue;
        }
        coll_fill(x, size);
        double lat = coll_time(x, size, iters_of(o, size), warmup_of(o, size), times);
        double span = x->span != NULL ? coll_span(x, iters_of(o, size)) : 0;
        coll_fill(x, size); /* the check: one more call on fresh data */
        if (coll_call(x, size) != 0 || coll_check(x, size) != 0) {
            fail();
        }
        if (bench_barrier() != 0) { /* every rank checked its result before rank 0 prints */
            fail();
        }
        if (x->rank == 0 && x->span != NULL) {
            printf("%-12zu %16.2f %16.2f\n", size, lat, span);
            fflush(stdout);
        } else if (x->rank == 0) {
            print_result(size, lat);
        }
        if (o->coll == BENCH_BARRIER) {
            break;
        }
    }
    free(times);
    return 0;
}

/* ---- main -------------------------------------------------------------------------------- */

static unsigned char *buffer_new(size_t len)
{
    void *p = NULL;

    if (posix_memalign(&p, 4096, len ? len : 1) != 0) {
        return NULL;
    }
    memset(p, 0, len ? len : 1); /* touch every page before timing */
    return p;
}

static int ctx_init(bench_ctx_t *x, const bench_opts_t *o)
{
    size_t blocks;

    memset(x, 0, sizeof(*x));
    x->o = o;
    x->rank = bench_rank();
    x->size = bench_size();
    blocks = coll_blocks(o, x->size);
    if (o->max > SIZE_MAX / blocks) {
        fprintf(stderr, "%s: %zu bytes x %zu ranks overflow\n", prog(), o->max, blocks);
        return -1;
    }
    x->buf_len = o->max * blocks;
    x->sbuf = buffer_new(x->buf_len);
    x->rbuf = buffer_new(x->buf_len);
    x->reqs = bench_reqs_new(2 * (size_t)o->window);
    if (o->median || o->samples) {
        long n = o->iters > o->iters_large ? o->iters : o->iters_large;
        x->samples = calloc((size_t)n, sizeof(double));
        if (x->samples == NULL) {
            fprintf(stderr,
                    "%s: rank %d: cannot allocate %ld samples for --stat median or --samples\n",
                    prog(), x->rank, n);
            return -1;
        }
    }
    if (o->span && o->kind == BENCH_COLL) {
        long n = o->iters > o->iters_large ? o->iters : o->iters_large;
        x->span = calloc(2 * (size_t)n, sizeof(double));
        if (x->span == NULL) {
            fprintf(stderr, "%s: rank %d: cannot allocate %ld times for --span\n", prog(), x->rank,
                    2 * n);
            return -1;
        }
    }
    if (x->sbuf == NULL || x->rbuf == NULL || x->reqs == NULL) {
        fprintf(stderr, "%s: rank %d: cannot allocate 2 x %zu bytes of buffers\n", prog(), x->rank,
                x->buf_len);
        return -1;
    }
    return 0;
}

static void ctx_fini(bench_ctx_t *x)
{
    free(x->sbuf);
    free(x->rbuf);
    bench_reqs_free(x->reqs);
    free(x->samples);
    free(x->span);
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_ctx_t x;
    int rc;

    rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        if (rc < 0) {
            fprintf(stderr, "%s: try '%s --help'\n", prog(), prog());
        }
        return rc < 0 ? 2 : 0;
    }
    if (bench_init(&argc, &argv) != 0) {
        return 1;
    }
    if (o.kind != BENCH_COLL && bench_size() < 2) {
        if (bench_rank() == 0) {
            fprintf(stderr, "%s: this benchmark needs 2 ranks (0 and 1); the job has %d\n", prog(),
                    bench_size());
        }
        bench_finalize();
        return 2;
    }
    if (o.kind == BENCH_OVERLAP) {
        bench_overlap_opts_t ov = {o.overlap,      o.min,    o.max, o.iters_large,
                                   o.warmup_large, o.median, prog()};

        rc = bench_overlap_run(&ov);
        return bench_finalize() != 0 ? 1 : rc;
    }
    if (ctx_init(&x, &o) != 0) {
        fail();
    }
    rc = o.kind == BENCH_COLL ? run_coll(&x) : run_p2p(&x);
    ctx_fini(&x);
    if (bench_finalize() != 0) {
        rc = 1;
    }
    return rc;
}
