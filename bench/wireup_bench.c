/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wireup cost: the wall time of rcmsg_init() and of each wireup phase (PMIx init, transport
 * open, address exchange, connect), and the memory init adds: resident set growth, and the
 * device queue memory mapped from the verbs device (/dev/infiniband/uverbs*: on rxe the
 * queues of every QP, CQ and SRQ live there, so its growth with the rank count is the memory
 * per peer of a QP), gathered to rank 0.
 *
 *   mpirun -np N rcmsg_wireup_bench [--tsv]
 *
 * Prints one line: ranks, then for each quantity the median and the maximum over ranks.
 * With --tsv, a tab-separated line (a header comment first) for scripts that sweep N.
 */
#include "core/core.h"

#include <rcmsg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { Q_INIT, Q_PMIX, Q_OPEN, Q_EXCHANGE, Q_CONNECT, Q_RSS, Q_VERBS, Q_COUNT };
static const char *const qnames[Q_COUNT] = {"init_ms",    "pmix_ms", "open_ms",      "exchange_ms",
                                            "connect_ms", "rss_kib", "verbs_map_kib"};

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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    double q[Q_COUNT], rss0 = rss_kib(), t0, *all = NULL;
    int tsv = argc > 1 && strcmp(argv[1], "--tsv") == 0, rank, size;
    rcmsg_wireup_t *w;

    if (argc > 2 || (argc == 2 && !tsv)) {
        fprintf(stderr, "usage: rcmsg_wireup_bench [--tsv]\n");
        return 2;
    }
    t0 = now_ms();
    if (rcmsg_init() != RCMSG_OK) {
        fprintf(stderr, "rcmsg_wireup_bench: rcmsg_init failed\n");
        return 1;
    }
    q[Q_INIT] = now_ms() - t0;
    q[Q_RSS] = rss_kib() - rss0;
    q[Q_VERBS] = verbs_map_kib();
    w = rcmsg_core_wireup();
    for (int i = 0; i < 4; i++) {
        q[Q_PMIX + i] = w->phase_ms[i];
    }
    rank = rcmsg_rank();
    size = rcmsg_size();
    if (rank == 0) {
        all = malloc(sizeof(q) * (size_t)size);
        if (all == NULL) {
            fprintf(stderr, "rcmsg_wireup_bench: out of memory\n");
            return 1;
        }
    }
    if (rcmsg_gather(q, all, Q_COUNT, RCMSG_DOUBLE, 0, rcmsg_comm_world()) != RCMSG_OK) {
        fprintf(stderr, "rcmsg_wireup_bench: gather failed\n");
        return 1;
    }
    if (rank == 0) {
        double *col = malloc(sizeof(double) * (size_t)size);

        if (tsv) {
            printf("# ranks");
            for (int k = 0; k < Q_COUNT; k++) {
                printf("\t%s_median\t%s_max", qnames[k], qnames[k]);
            }
            printf("\n%d", size);
        } else {
            printf("%d ranks:", size);
        }
        for (int k = 0; k < Q_COUNT && col != NULL; k++) {
            for (int r = 0; r < size; r++) {
                col[r] = all[r * Q_COUNT + k];
            }
            qsort(col, (size_t)size, sizeof(double), cmp_double);
            if (tsv) {
                printf("\t%.1f\t%.1f", col[size / 2], col[size - 1]);
            } else {
                printf(" %s median %.1f max %.1f;", qnames[k], col[size / 2], col[size - 1]);
            }
        }
        printf("\n");
        free(col);
        free(all);
    }
    rcmsg_finalize();
    return 0;
}
