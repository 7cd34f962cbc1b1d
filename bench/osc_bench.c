/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided latency and bandwidth, in plain MPI (built by rcmsg-mpicc and by Open MPI's mpicc:
 * bench/osc_compare.sh runs both side by side). 2 ranks; rank 0 is the origin, rank 1 the
 * target, inside MPI_Barrier meanwhile (so that a library that needs the target's progress
 * gets it). A passive epoch (MPI_Win_lock_all) on an MPI_Win_allocate window:
 *   put_lat, get_lat SIZE   one MPI_Put / MPI_Get then MPI_Win_flush: us per operation
 *   put_bw, get_bw SIZE     WINDOW operations then one flush: MB/s
 *   fadd_lat, cas_lat 8     MPI_Fetch_and_op (SUM, int64) / MPI_Compare_and_swap + flush: us
 * Each line: "KIND SIZE VALUE" with VALUE the median of --reps timed batches. --create: the
 * window is MPI_Win_create over malloc'd memory instead (Open MPI then cannot use its osc sm,
 * which maps MPI_Win_allocate's memory into every rank of a node).
 *   osc_bench [--sizes "8 64 ..."] [--iters N] [--reps N] [--create]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 16
#define WINSZ  (4u << 20)

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* kind: 0 put, 1 get, 2 fetch-and-add, 3 compare-and-swap; per: ops between flushes */
static double batch(MPI_Win win, char *buf, int kind, int size, int iters, int per)
{
    int64_t one = 1, old, cmp = 0;
    double t0 = MPI_Wtime();

    for (int i = 0; i < iters; i++) {
        for (int k = 0; k < per; k++) {
            MPI_Aint disp = (MPI_Aint)(((size_t)k * (size_t)size) % (WINSZ - (size_t)size));
            if (kind == 0) {
                MPI_Put(buf, size, MPI_BYTE, 1, disp, size, MPI_BYTE, win);
            } else if (kind == 1) {
                MPI_Get(buf, size, MPI_BYTE, 1, disp, size, MPI_BYTE, win);
            } else if (kind == 2) {
                MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, 0, MPI_SUM, win);
            } else {
                MPI_Compare_and_swap(&one, &cmp, &old, MPI_INT64_T, 1, 0, win);
            }
        }
        MPI_Win_flush(1, win);
    }
    return MPI_Wtime() - t0;
}

static void run(MPI_Win win, char *buf, const char *name, int kind, int size, int iters, int per,
                int reps, int bw)
{
    double *t = calloc((size_t)reps, sizeof(double));

    batch(win, buf, kind, size, iters / 10 + 1, per); /* warm up (registrations, connects) */
    for (int r = 0; r < reps; r++) {
        t[r] = batch(win, buf, kind, size, iters, per);
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_d);
    if (bw) {
        printf("%s %d %.1f\n", name, size, (double)size * iters * per / t[reps / 2] / 1e6);
    } else {
        printf("%s %d %.2f\n", name, size, t[reps / 2] / (iters * per) * 1e6);
    }
    fflush(stdout);
    free(t);
}

int main(int argc, char **argv)
{
    const char *sizes = "8 64 1024 8192 65536 1048576";
    int iters = 1000, reps = 5, me, np, create = 0;
    char *buf, *mem;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--create") == 0) {
            create = 1;
            continue;
        }
        if (i + 1 >= argc) {
            break;
        }
        if (strcmp(argv[i], "--sizes") == 0) {
            sizes = argv[i + 1];
        } else if (strcmp(argv[i], "--iters") == 0) {
            iters = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--reps") == 0) {
            reps = atoi(argv[i + 1]);
        }
        i++;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2) {
        if (me == 0) {
            fprintf(stderr, "osc_bench: run with 2 ranks\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    buf = calloc(1, WINSZ);
    if (create) {
        mem = calloc(1, WINSZ);
        MPI_Win_create(mem, WINSZ, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate(WINSZ, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    }
    MPI_Win_lock_all(0, win);
    if (me == 0) {
        char list[256], *save = NULL;
        snprintf(list, sizeof(list), "%s", sizes);
        for (char *s = strtok_r(list, " ", &save); s != NULL; s = strtok_r(NULL, " ", &save)) {
            int size = atoi(s), it = size >= 65536 ? iters / 20 + 1 : iters;
            run(win, buf, "put_lat", 0, size, it, 1, reps, 0);
            run(win, buf, "get_lat", 1, size, it, 1, reps, 0);
            run(win, buf, "put_bw", 0, size, it / 4 + 1, WINDOW, reps, 1);
            run(win, buf, "get_bw", 1, size, it / 4 + 1, WINDOW, reps, 1);
        }
        run(win, buf, "fadd_lat", 2, 8, iters, 1, reps, 0);
        run(win, buf, "cas_lat", 3, 8, iters, 1, reps, 0);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    if (create) {
        free(mem);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
