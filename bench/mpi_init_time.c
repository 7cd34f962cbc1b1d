/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Init's wall time in each rank (from just before the call to its return), gathered to
 * rank 0, which prints a tab-separated line after a header comment:
 *
 *   # ranks  init_ms_median  init_ms_max
 *
 * Built by Open MPI's mpicc (bench/rcmsg_mpi_init_time_mpi) to set Open MPI + UCX's MPI_Init
 * beside rcmsg_init (bench/rcmsg_wireup_bench) in bench/init_compare.sh.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    double t0 = now_ms(), ms, *all = NULL;
    int rank, size;

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "mpi_init_time: MPI_Init failed\n");
        return 1;
    }
    ms = now_ms() - t0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0 && (all = malloc(sizeof(double) * (size_t)size)) == NULL) {
        fprintf(stderr, "mpi_init_time: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(&ms, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        qsort(all, (size_t)size, sizeof(double), cmp_double);
        printf("# ranks\tinit_ms_median\tinit_ms_max\n%d\t%.1f\t%.1f\n", size, all[size / 2],
               all[size - 1]);
        free(all);
    }
    MPI_Finalize();
    return 0;
}
