/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rcmsg_recovery_bench: what a broken rc connection costs the application (issue 15).
 *
 *   mpirun -np 2 rcmsg_recovery_bench [--errors N] [--kind reset|fatal] [--between K]
 *                                     [--sizes B,B,...] [--window W] [--timeout S]
 *
 * Rank 0 streams messages to rank 1 (W in flight, sizes cycled from --sizes), and after every
 * K messages posted it breaks its QP to rank 1 with a test hook: rcmsg_rc_btl_force_error
 * (--kind reset: the QP is reset and reconnected) or rcmsg_rc_btl_force_fatal (--kind fatal:
 * as IBV_EVENT_QP_FATAL, the QP is destroyed and re-created). Before each break it waits until
 * the previous recovery counted (rcmsg_rc_btl_recoveries), so the N recoveries are apart.
 * Rank 1 stamps every receive as it completes (CLOCK_MONOTONIC: both ranks are on one node,
 * so the stamps of the two ranks compare) and checks each message's sequence number and last
 * byte. At the end rank 0 sends its break times to rank 1, which prints, per break, the
 * longest gap between two consecutive receive completions from the last one before the break
 * to the last one before the next break ("stall"), and the gaps of the whole run as the
 * typical gap. Rank 0 prints, per break, the time until its recovery counter moved.
 *
 * Output: '#' comments, then lines "stall I US" (rank 1), "counted I US" and "hook I US" (rank
 * 0: the time the test hook's call took, its ibv_modify_qp to ERR included), and the summaries
 * "summary stall|counted|hook|gap median US p90 US max US n N" and "recoveries rank R N".
 * --errors 0 measures the undisturbed stream (any transport: it needs no rc). Exit 77 (SKIP)
 * when errors are asked for and there is no rc transport to rank 1.
 */
#include "config.h"

#include "btl_rc/rc_btl.h"
#include "core/core.h"
#include "progress/progress.h"

#include <errno.h>
#include <getopt.h>
#include <rcmsg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RB_TAG_DATA  1
#define RB_TAG_TIMES 2
#define RB_MAX_SIZES 16
#define RB_MAX_WIN   256

typedef struct {
    long errors, between, window;
    int fatal;
    double timeout;
    size_t sizes[RB_MAX_SIZES];
    int nsizes;
    size_t max;
} rb_opts_t;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rcmsg_recovery_bench [--errors N] [--kind reset|fatal] [--between K]\n"
            "                            [--sizes B,B,...] [--window W] [--timeout S]\n"
            "  --errors N   breaks of rank 0's qp to rank 1 (default 50; 0: no break)\n"
            "  --kind K     reset (rcmsg_rc_btl_force_error, default) or fatal\n"
            "               (rcmsg_rc_btl_force_fatal: the qp is re-created)\n"
            "  --between K  messages posted between two breaks (default 400)\n"
            "  --sizes L    message sizes in bytes, cycled (default 1024; at least 8)\n"
            "  --window W   messages in flight (default 16, at most %d)\n"
            "  --timeout S  give up after S seconds (default 600)\n",
            RB_MAX_WIN);
}

static int parse_sizes(const char *arg, rb_opts_t *o)
{
    const char *p = arg;

    o->nsizes = 0;
    o->max = 0;
    while (*p != '\0') {
        char *end;
        unsigned long long v;

        errno = 0;
        v = strtoull(p, &end, 10);
        if (end == p || errno != 0 || v < 8 || v > (1ull << 26) || o->nsizes == RB_MAX_SIZES ||
            (*end != ',' && *end != '\0')) {
            fprintf(stderr,
                    "rcmsg_recovery_bench: --sizes '%s': want up to %d sizes of 8 B to 64 MiB, "
                    "comma-separated\n",
                    arg, RB_MAX_SIZES);
            return -1;
        }
        o->sizes[o->nsizes++] = (size_t)v;
        o->max = (size_t)v > o->max ? (size_t)v : o->max;
        p = *end == ',' ? end + 1 : end;
    }
    return o->nsizes > 0 ? 0 : -1;
}

static int parse_long(const char *opt, const char *arg, long lo, long hi, long *v_p)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(arg, &end, 10);
    if (end == arg || *end != '\0' || errno != 0 || v < lo || v > hi) {
        fprintf(stderr, "rcmsg_recovery_bench: %s '%s': want an integer in %ld..%ld\n", opt, arg,
                lo, hi);
        return -1;
    }
    *v_p = v;
    return 0;
}

static int parse_args(int argc, char **argv, rb_opts_t *o)
{
    static const struct option longs[] = {{"errors", 1, NULL, 'e'},  {"kind", 1, NULL, 'k'},
                                          {"between", 1, NULL, 'b'}, {"sizes", 1, NULL, 's'},
                                          {"window", 1, NULL, 'w'},  {"timeout", 1, NULL, 't'},
                                          {"help", 0, NULL, 'h'},    {NULL, 0, NULL, 0}};
    long t = 600;
    int c;

    *o = (rb_opts_t){.errors = 50, .between = 400, .window = 16, .nsizes = 1};
    o->sizes[0] = o->max = 1024;
    while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        int bad = 0;

        switch (c) {
        case 'e':
            bad = parse_long("--errors", optarg, 0, 100000, &o->errors);
            break;
        case 'b':
            bad = parse_long("--between", optarg, 1, 10000000, &o->between);
            break;
        case 'w':
            bad = parse_long("--window", optarg, 1, RB_MAX_WIN, &o->window);
            break;
        case 't':
            bad = parse_long("--timeout", optarg, 1, 86400, &t);
            break;
        case 's':
            bad = parse_sizes(optarg, o);
            break;
        case 'k':
            o->fatal = strcmp(optarg, "fatal") == 0;
            if (!o->fatal && strcmp(optarg, "reset") != 0) {
                fprintf(stderr, "rcmsg_recovery_bench: --kind '%s': want reset or fatal\n", optarg);
                bad = 1;
            }
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return -1;
        }
        if (bad) {
            return -1;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "rcmsg_recovery_bench: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    o->timeout = (double)t;
    return 0;
}

/* ---- statistics ------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Sorts v (seconds) and prints its median, 90th percentile and maximum in microseconds. */
static void summary(const char *what, double *v, long n)
{
    if (n == 0) {
        printf("summary %s none\n", what);
        return;
    }
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    printf("summary %s median %.2f p90 %.2f max %.2f n %ld\n", what, v[n / 2] * 1e6,
           v[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1] * 1e6, v[n - 1] * 1e6, n);
}

/* ---- the two ranks --------------------------------------------------------------------- */

static size_t size_of(const rb_opts_t *o, long j)
{
    return o->sizes[j % o->nsizes];
}

static int failed(rcmsg_status_t s, const char *what, long j)
{
    if (s == RCMSG_OK) {
        return 0;
    }
    printf("FAIL rank %d: %s (message %ld): %s (%s)\n", rcmsg_rank(), what, j, rcmsg_strerror(s),
           rcmsg_status_name(s));
    return 1;
}

/* Breaks rank 0's qp to rank 1, once the connection is up again after the previous break. */
static int force(const rb_opts_t *o, rcmsg_btl_t *rc, double *t_p, double *hook_p)
{
    for (;;) {
        rcmsg_status_t s;

        *t_p = now_s();
        s = o->fatal ? rcmsg_rc_btl_force_fatal(rc, 1) : rcmsg_rc_btl_force_error(rc, 1);
        *hook_p = now_s() - *t_p;
        if (s != RCMSG_ERR_STATE) {
            return failed(s, o->fatal ? "rcmsg_rc_btl_force_fatal" : "rcmsg_rc_btl_force_error",
                          -1);
        }
        rcmsg_progress();
    }
}

static int sender(const rb_opts_t *o, rcmsg_btl_t *rc, unsigned char *bufs, double *t_force)
{
    long total = o->between * (o->errors + 1), posted = 0, done = 0, forced = 0;
    rcmsg_request_t reqs[RB_MAX_WIN];
    double *counted = calloc((size_t)o->errors + 1, sizeof(double));
    double *hook = calloc((size_t)o->errors + 1, sizeof(double));
    double deadline = now_s() + o->timeout;

    if (counted == NULL || hook == NULL) {
        printf("FAIL rank 0: out of memory for %ld time stamps\n", o->errors);
        return 1;
    }
    for (long i = 0; i < o->window; i++) {
        reqs[i] = RCMSG_REQUEST_NULL;
    }
    while (done < total) {
        long slot = done % o->window;
        int flag = 0, hold;

        if (forced > 0 && counted[forced - 1] == 0 &&
            rcmsg_rc_btl_recoveries(rc, 1) >= (uint64_t)forced) {
            counted[forced - 1] = now_s() - t_force[forced - 1];
        }
        hold = forced < o->errors && posted == o->between * (forced + 1);
        if (hold && rcmsg_rc_btl_recoveries(rc, 1) >= (uint64_t)forced) {
            if (force(o, rc, &t_force[forced], &hook[forced])) {
                return 1;
            }
            forced++;
            hold = 0;
        }
        if (!hold && posted < total && posted - done < o->window) {
            unsigned char *b = bufs + (size_t)(posted % o->window) * o->max;
            size_t len = size_of(o, posted);
            uint32_t seq = (uint32_t)posted;

            memcpy(b, &seq, sizeof(seq)); /* sizes >= 8: the last byte is apart */
            b[len - 1] = (unsigned char)(posted * 7 + 1);
            if (failed(rcmsg_isend(b, len, 1, RB_TAG_DATA, rcmsg_comm_world(),
                                   &reqs[posted % o->window]),
                       "rcmsg_isend", posted)) {
                return 1;
            }
            posted++;
            continue;
        }
        if (done == posted) {
            rcmsg_progress(); /* held before a break: nothing in flight */
        } else if (failed(rcmsg_test(&reqs[slot], &flag, NULL), "rcmsg_test", done)) {
            return 1;
        }
        done += flag;
        if (now_s() > deadline) {
            printf("FAIL rank 0: %ld of %ld messages sent after %.0f s (%ld breaks, %llu "
                   "recoveries counted)\n",
                   done, total, o->timeout, forced,
                   (unsigned long long)rcmsg_rc_btl_recoveries(rc, 1));
            return 1;
        }
    }
    /* the last recovery may count after the last send completed */
    while (forced > 0 && rcmsg_rc_btl_recoveries(rc, 1) < (uint64_t)forced && now_s() < deadline) {
        rcmsg_progress();
    }
    for (long i = 0; i < forced; i++) {
        if (counted[i] == 0) {
            counted[i] = now_s() - t_force[i];
        }
        printf("counted %ld %.1f\n", i, counted[i] * 1e6);
        printf("hook %ld %.1f\n", i, hook[i] * 1e6);
    }
    summary("counted", counted, forced);
    summary("hook", hook, forced);
    free(counted);
    free(hook);
    return failed(rcmsg_send(t_force, (size_t)o->errors * sizeof(double), 1, RB_TAG_TIMES,
                             rcmsg_comm_world()),
                  "rcmsg_send", -1);
}

static int check(const rb_opts_t *o, const unsigned char *b, long j)
{
    uint32_t seq;
    size_t len = size_of(o, j);

    memcpy(&seq, b, sizeof(seq));
    if (seq != (uint32_t)j || b[len - 1] != (unsigned char)(j * 7 + 1)) {
        printf("FAIL rank 1: message %ld: got sequence %u, last byte 0x%02x (want 0x%02x)\n", j,
               seq, b[len - 1], (unsigned char)(j * 7 + 1));
        return 1;
    }
    return 0;
}

static int receive_all(const rb_opts_t *o, unsigned char *bufs, double *t_recv)
{
    long total = o->between * (o->errors + 1), posted = 0, done = 0;
    rcmsg_request_t reqs[RB_MAX_WIN];
    double deadline = now_s() + o->timeout;

    while (done < total) {
        long slot = done % o->window;
        int flag = 0;

        if (posted < total && posted - done < o->window) {
            unsigned char *b = bufs + (size_t)(posted % o->window) * o->max;

            if (failed(rcmsg_irecv(b, o->max, 0, RB_TAG_DATA, rcmsg_comm_world(),
                                   &reqs[posted % o->window]),
                       "rcmsg_irecv", posted)) {
                return 1;
            }
            posted++;
            continue;
        }
        if (failed(rcmsg_test(&reqs[slot], &flag, NULL), "rcmsg_test", done)) {
            return 1;
        }
        if (flag) {
            t_recv[done] = now_s();
            if (check(o, bufs + (size_t)slot * o->max, done)) {
                return 1;
            }
            done++;
        } else if (now_s() > deadline) {
            printf("FAIL rank 1: %ld of %ld messages received after %.0f s\n", done, total,
                   o->timeout);
            return 1;
        }
    }
    return 0;
}

/* Per break: the longest gap between consecutive receives from the last receive before the
 * break to the last one before the next break. */
static void stalls(const rb_opts_t *o, const double *t_recv, const double *t_force)
{
    long total = o->between * (o->errors + 1), k = 1;
    double *stall = calloc((size_t)o->errors + 1, sizeof(double));
    double *gap = malloc((size_t)total * sizeof(double));

    if (stall == NULL || gap == NULL) {
        printf("FAIL rank 1: out of memory for %ld gaps\n", total);
        free(stall);
        free(gap);
        return;
    }

    for (long i = 0; i < o->errors; i++) {
        double end = i + 1 < o->errors ? t_force[i + 1] : t_recv[total - 1] + 1;

        while (k < total && t_recv[k] <= t_force[i]) {
            k++;
        }
        for (; k < total && t_recv[k - 1] < end; k++) {
            double g = t_recv[k] - t_recv[k - 1];

            stall[i] = g > stall[i] ? g : stall[i];
        }
        printf("stall %ld %.1f\n", i, stall[i] * 1e6);
    }
    for (long j = 1; j < total; j++) {
        gap[j - 1] = t_recv[j] - t_recv[j - 1];
    }
    summary("stall", stall, o->errors);
    summary("gap", gap, total - 1);
    free(stall);
    free(gap);
}

static int receiver(const rb_opts_t *o, unsigned char *bufs)
{
    long total = o->between * (o->errors + 1);
    double *t_recv = malloc((size_t)total * sizeof(double));
    double *t_force = calloc((size_t)o->errors + 1, sizeof(double));
    int rc = 1;

    if (t_recv == NULL || t_force == NULL) {
        printf("FAIL rank 1: out of memory for %ld time stamps\n", total);
    } else if (receive_all(o, bufs, t_recv) == 0 &&
               !failed(rcmsg_recv(t_force, (size_t)o->errors * sizeof(double), 0, RB_TAG_TIMES,
                                  rcmsg_comm_world(), NULL),
                       "rcmsg_recv", -1)) {
        printf("# %ld messages received in order and intact\n", total);
        stalls(o, t_recv, t_force);
        rc = 0;
    }
    free(t_recv);
    free(t_force);
    return rc;
}

int main(int argc, char **argv)
{
    rb_opts_t o;
    rcmsg_btl_t *rc = NULL;
    unsigned char *bufs;
    double *t_force;
    int rank, ret;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (parse_args(argc, argv, &o) != 0) {
        return 2;
    }
    if (failed(rcmsg_init(), "rcmsg_init", -1)) {
        return 1;
    }
    rank = rcmsg_rank();
    if (rcmsg_size() != 2) {
        printf("FAIL: run on 2 ranks (got %d)\n", rcmsg_size());
        rcmsg_finalize();
        return 2;
    }
    if (o.errors > 0) {
        rc = rcmsg_wireup_btl(rcmsg_core_wireup(), "rc");
    }
    if (o.errors > 0 && rc == NULL) {
        if (rank == 0) {
            printf("SKIP: --errors needs the rc transport between the two ranks "
                   "(RCMSG_TRANSPORTS=rc,self on an RDMA device)\n");
        }
        rcmsg_finalize();
        return 77;
    }
    bufs = calloc((size_t)o.window, o.max);
    t_force = calloc((size_t)o.errors + 1, sizeof(double));
    if (bufs == NULL || t_force == NULL) {
        printf("FAIL: out of memory for %ld buffers of %zu bytes\n", o.window, o.max);
        return 1;
    }
    if (rank == 0) {
        printf("# %ld breaks (%s) of rank 0's qp to rank 1, every %ld messages; sizes", o.errors,
               o.fatal ? "fatal: qp re-created" : "reset", o.between);
        for (int i = 0; i < o.nsizes; i++) {
            printf(" %zu", o.sizes[i]);
        }
        printf("; window %ld\n", o.window);
    }
    ret = rank == 0 ? sender(&o, rc, bufs, t_force) : receiver(&o, bufs);
    if (rc != NULL) {
        printf("recoveries rank %d %llu\n", rank,
               (unsigned long long)rcmsg_rc_btl_recoveries(rc, 1 - rank));
    }
    if (failed(rcmsg_finalize(), "rcmsg_finalize", -1)) {
        ret = 1;
    }
    free(bufs);
    free(t_force);
    return ret;
}
