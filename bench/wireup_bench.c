/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wireup cost: the wall time of rcmsg_init() and of each wireup phase (PMIx init, transport
 * open, address exchange, connect), and the memory init adds: resident set growth, and the
 * device queue memory mapped from the verbs device (/dev/infiniband/uverbs*: on rxe the
 * queues of every QP, CQ and SRQ live there, so its growth with the rank count is the memory
 * per peer of a QP), gathered to rank 0.
 *
 *   mpirun -np N rcmsg_wireup_bench [--tsv] [--peers K] [--iters M] [--delay MS]
 *
 * With --peers K, the cost of connecting on first use (RCMSG_CONNECT=lazy) against eager
 * connects: K rounds right after rcmsg_init(), before any collective; in round k (1..K) each
 * rank pairs with rank XOR k (a peer it has not talked to yet), the lower rank of each pair
 * times its first 8-byte round trip to it and then M more (their median: the steady state).
 * The ranks meet in a PMIx barrier (no rcmsg traffic) before each round, and the lower rank
 * waits --delay ms (default 50) before its first ping, so that its peer, which may leave the
 * barrier later, is already waiting in its receive and the first round trip measures the
 * connection, not the barrier's skew. The QPs of this
 * process (rdma res show qp, by pid: RC QPs in RTS and in INIT) are counted after init and
 * after the rounds, with the verbs mappings after the rounds.
 *
 * Prints one line: ranks, then for each quantity the median and the maximum over ranks (the
 * round trips: over every timed pair and round), then the parts of the phases (the publish
 * and collecting fence, the address gets, the closing fence, and the PMIx_Get calls of
 * rcmsg_init: O(1) or O(N)). With --tsv, a tab-separated line (a header comment first) for
 * scripts that sweep N.
 */
#include "core/core.h"

#include <rcmsg.h>

#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum {
    Q_INIT,
    Q_PMIX,
    Q_OPEN,
    Q_EXCHANGE,
    Q_CONNECT,
    Q_RSS,
    Q_VERBS,
    Q_QP_RTS,     /* RC QPs of this process in RTS after init */
    Q_QP_INIT,    /* ... in INIT (lazy mode's pool) after init */
    Q_VERBS_POST, /* verbs mappings after the rounds */
    Q_QP_RTS_POST,
    Q_QP_INIT_POST,
    Q_COUNT
};
static const char *const qnames[Q_COUNT] = {
    "init_ms",       "pmix_ms", "open_ms", "exchange_ms",    "connect_ms",  "rss_kib",
    "verbs_map_kib", "qp_rts",  "qp_init", "verbs_post_kib", "qp_rts_post", "qp_init_post"};

/* The parts of the wireup phases, after the round trips (so that the columns before them stay
 * where scripts expect them): the publish and collecting fence, the address gets, the
 * closing fence (ms), and the PMIx_Get calls of rcmsg_init (job info and addresses). */
enum { X_FENCE, X_GETS, X_CLOSE, X_PMIX_GETS, X_COUNT };
static const char *const xnames[X_COUNT] = {"fence_ms", "gets_ms", "close_fence_ms", "pmix_gets"};

#define MAX_PEERS 64 /* --peers at most */
#define MSG_SIZE  8
#define TAG_PING  7

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* VmRSS of this process in KiB, -1 if unknown. */
static double rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double v = -1;

    if (f == NULL) {
        return -1;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            v = strtod(line + 6, NULL);
        }
    }
    fclose(f);
    return v;
}

/* KiB of this process's mappings of verbs device files (uverbs), 0 if none. */
static double verbs_map_kib(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    double kib = 0;

    if (f == NULL) {
        return -1;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long lo, hi;

        if (strstr(line, "/dev/infiniband/uverbs") != NULL &&
            sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
            kib += (double)(hi - lo) / 1024;
        }
    }
    fclose(f);
    return kib;
}

/* One line of `rdma res show qp`: counts an RC QP of process pid in RTS or INIT. */
static void qp_line(char *line, long pid, double *rts_p, double *init_p)
{
    char *save = NULL, *key, *val;
    const char *type = "", *state = "";
    long owner = -1;

    for (key = strtok_r(line, " \t\n", &save); key != NULL; key = strtok_r(NULL, " \t\n", &save)) {
        val = strtok_r(NULL, " \t\n", &save);
        if (val == NULL) {
            break;
        }
        if (strcmp(key, "type") == 0) {
            type = val;
        } else if (strcmp(key, "state") == 0) {
            state = val;
        } else if (strcmp(key, "pid") == 0) {
            owner = strtol(val, NULL, 10);
        }
    }
    if (owner == pid && strcmp(type, "RC") == 0) {
        *rts_p += strcmp(state, "RTS") == 0;
        *init_p += strcmp(state, "INIT") == 0;
    }
}

/* This process's RC QPs in RTS and in INIT, from the kernel's resource tracking (`rdma res
 * show qp`, iproute2), spawned without fork (the process holds registered memory); both -1
 * when the tool cannot run. */
static void qp_count(double *rts_p, double *init_p)
{
    char *argv[] = {"rdma", "res", "show", "qp", NULL}, line[512];
    posix_spawn_file_actions_t fa;
    int fd[2], st;
    pid_t child;
    FILE *f;

    *rts_p = *init_p = -1;
    if (pipe(fd) != 0) {
        return;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1, 0);
    st = posix_spawnp(&child, "rdma", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    f = fdopen(fd[0], "r");
    if (st != 0 || f == NULL) {
        f != NULL ? fclose(f) : close(fd[0]);
        return;
    }
    *rts_p = *init_p = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        qp_line(line, (long)getpid(), rts_p, init_p);
    }
    fclose(f);
    if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        *rts_p = *init_p = -1;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* One 8-byte round trip to peer (ping first when active), in us; < 0 on failure. */
static double round_trip(int peer, int active)
{
    char buf[MSG_SIZE] = {0};
    rcmsg_comm_t world = rcmsg_comm_world();
    double t0 = now_ms();
    rcmsg_status_t st;

    if (active) {
        st = rcmsg_send(buf, sizeof(buf), peer, TAG_PING, world);
        if (st == RCMSG_OK) {
            st = rcmsg_recv(buf, sizeof(buf), peer, TAG_PING, world, NULL);
        }
    } else {
        st = rcmsg_recv(buf, sizeof(buf), peer, TAG_PING, world, NULL);
        if (st == RCMSG_OK) {
            st = rcmsg_send(buf, sizeof(buf), peer, TAG_PING, world);
        }
    }
    if (st != RCMSG_OK) {
        fprintf(stderr, "rcmsg_wireup_bench: round trip with rank %d: %s\n", peer,
                rcmsg_strerror(st));
        return -1;
    }
    return (now_ms() - t0) * 1e3;
}

/* The rounds of --peers: first[k] and steady[k] (us) for the rounds where this rank is the
 * lower of its pair, NAN where it is not timed. 0, or -1 on failure. */
static int first_use_rounds(int peers, int iters, int delay_ms, double *first, double *steady)
{
    int rank = rcmsg_rank(), size = rcmsg_size();
    double *t = malloc(sizeof(double) * (size_t)(iters > 0 ? iters : 1));

    if (t == NULL) {
        return -1;
    }
    for (int k = 1; k <= peers; k++) {
        int peer = rank ^ k, active = rank < peer;

        first[k - 1] = steady[k - 1] = NAN;
        if (rcmsg_wireup_barrier(rcmsg_core_wireup()) != RCMSG_OK) {
            fprintf(stderr, "rcmsg_wireup_bench: barrier before round %d failed\n", k);
            free(t);
            return -1;
        }
        if (peer >= size) {
            continue;
        }
        if (active && delay_ms > 0) {
            struct timespec d = {delay_ms / 1000, (long)(delay_ms % 1000) * 1000000};

            nanosleep(&d, NULL);
        }
        for (int i = -1; i < iters; i++) {
            double us = round_trip(peer, active);

            if (us < 0) {
                free(t);
                return -1;
            }
            *(i < 0 ? &first[k - 1] : &t[i]) = us;
        }
        if (!active) {
            first[k - 1] = NAN; /* the passive side's time includes its wait for the ping */
        } else if (iters > 0) {
            qsort(t, (size_t)iters, sizeof(double), cmp_double);
            steady[k - 1] = t[iters / 2];
        }
    }
    free(t);
    return 0;
}

/* "median max" of the n values of col that are numbers ("- -" when none). */
static void print_stat(double *col, int n, int tsv, const char *name)
{
    int m = 0;

    for (int i = 0; i < n; i++) {
        if (!isnan(col[i])) {
            col[m++] = col[i];
        }
    }
    qsort(col, (size_t)m, sizeof(double), cmp_double);
    if (m == 0) {
        printf(tsv ? "\t-\t-" : " %s -;", name);
    } else if (tsv) {
        printf("\t%.1f\t%.1f", col[m / 2], col[m - 1]);
    } else {
        printf(" %s median %.1f max %.1f;", name, col[m / 2], col[m - 1]);
    }
}

/* Rank 0: all[r * stride + ...] holds rank r's Q_COUNT quantities, then its first and steady
 * round trips of each of the peers rounds. */
static void report(const double *all, int size, int stride, int peers, int tsv)
{
    double *col = malloc(sizeof(double) * (size_t)size * (size_t)(peers > 0 ? peers : 1));

    if (col == NULL) {
        fprintf(stderr, "rcmsg_wireup_bench: out of memory\n");
        return;
    }
    if (tsv) {
        printf("# ranks");
        for (int k = 0; k < Q_COUNT; k++) {
            printf("\t%s_median\t%s_max", qnames[k], qnames[k]);
        }
        printf("\tfirst_rtt_us_median\tfirst_rtt_us_max\tsteady_rtt_us_median\tsteady_rtt_us_max");
        for (int k = 0; k < X_COUNT; k++) {
            printf("\t%s_median\t%s_max", xnames[k], xnames[k]);
        }
        printf("\n%d", size);
    } else {
        printf("%d ranks:", size);
    }
    for (int k = 0; k < Q_COUNT; k++) {
        for (int r = 0; r < size; r++) {
            col[r] = all[r * stride + k];
        }
        print_stat(col, size, tsv, qnames[k]);
    }
    for (int which = 0; which < 2; which++) {
        int n = 0;

        for (int r = 0; r < size; r++) {
            for (int k = 0; k < peers; k++) {
                col[n++] = all[r * stride + Q_COUNT + which * peers + k];
            }
        }
        print_stat(col, n, tsv, which == 0 ? "first_rtt_us" : "steady_rtt_us");
    }
    for (int k = 0; k < X_COUNT; k++) {
        for (int r = 0; r < size; r++) {
            col[r] = all[r * stride + Q_COUNT + 2 * peers + k];
        }
        print_stat(col, size, tsv, xnames[k]);
    }
    printf("\n");
    free(col);
}

static int parse_args(int argc, char **argv, int *tsv_p, int *peers_p, int *iters_p, int *delay_p)
{
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        long v = 0;

        if (strcmp(argv[i], "--tsv") == 0) {
            *tsv_p = 1;
            continue;
        }
        if (i + 1 < argc) {
            v = strtol(argv[i + 1], &end, 10);
        }
        if (end == NULL || *end != '\0' || end == argv[i + 1] || v < 0) {
            return -1;
        }
        if (strcmp(argv[i], "--peers") == 0 && v <= MAX_PEERS) {
            *peers_p = (int)v;
        } else if (strcmp(argv[i], "--iters") == 0 && v <= 1000000) {
            *iters_p = (int)v;
        } else if (strcmp(argv[i], "--delay") == 0 && v <= 60000) {
            *delay_p = (int)v;
        } else {
            return -1;
        }
        i++;
    }
    return 0;
}

/* Fills q (the quantities after init), measured from t0 and rss0, and x (the parts). */
static void after_init(double *q, double *x, double t0, double rss0)
{
    rcmsg_wireup_t *w = rcmsg_core_wireup();

    q[Q_INIT] = now_ms() - t0;
    q[Q_RSS] = rss_kib() - rss0;
    q[Q_VERBS] = verbs_map_kib();
    for (int i = 0; i < 4; i++) {
        q[Q_PMIX + i] = w->phase_ms[i];
    }
    qp_count(&q[Q_QP_RTS], &q[Q_QP_INIT]);
    x[X_FENCE] = w->phase_ms[5];
    x[X_GETS] = w->phase_ms[6];
    x[X_CLOSE] = w->phase_ms[7];
    x[X_PMIX_GETS] = w->pmix_gets;
}

int main(int argc, char **argv)
{
    double *q, rss0 = rss_kib(), t0, *all = NULL;
    int tsv = 0, peers = 0, iters = 100, delay = 50, rank, size, stride;

    if (parse_args(argc, argv, &tsv, &peers, &iters, &delay) != 0) {
        fprintf(stderr,
                "usage: rcmsg_wireup_bench [--tsv] [--peers K (0-%d)] [--iters M] [--delay MS]\n",
                MAX_PEERS);
        return 2;
    }
    stride = Q_COUNT + 2 * peers + X_COUNT;
    q = malloc(sizeof(double) * (size_t)stride);
    t0 = now_ms();
    if (q == NULL || rcmsg_init() != RCMSG_OK) {
        fprintf(stderr, "rcmsg_wireup_bench: rcmsg_init failed\n");
        return 1;
    }
    after_init(q, q + Q_COUNT + 2 * peers, t0, rss0);
    if (first_use_rounds(peers, iters, delay, q + Q_COUNT, q + Q_COUNT + peers) != 0) {
        return 1;
    }
    q[Q_VERBS_POST] = verbs_map_kib();
    qp_count(&q[Q_QP_RTS_POST], &q[Q_QP_INIT_POST]);
    rank = rcmsg_rank();
    size = rcmsg_size();
    if (rank == 0) {
        all = malloc(sizeof(double) * (size_t)stride * (size_t)size);
        if (all == NULL) {
            fprintf(stderr, "rcmsg_wireup_bench: out of memory\n");
            return 1;
        }
    }
    if (rcmsg_gather(q, all, (size_t)stride, RCMSG_DOUBLE, 0, rcmsg_comm_world()) != RCMSG_OK) {
        fprintf(stderr, "rcmsg_wireup_bench: gather failed\n");
        return 1;
    }
    if (rank == 0) {
        report(all, size, stride, peers, tsv);
        free(all);
    }
    free(q);
    rcmsg_finalize();
    return 0;
}
