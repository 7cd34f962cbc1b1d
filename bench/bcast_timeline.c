/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-rank timeline of "barrier; bcast; ..." on ONE host (issue 18): every rank stamps
 * CLOCK_MONOTONIC, which the processes of one host share, just after the barrier and just
 * after the bcast; rank 0 gathers the stamps and prints, per rank, the medians over the calls
 * of its bcast time, of its barrier exit relative to the root's (rank 0) and of its bcast exit
 * relative to the root's barrier exit (when it had the data, counted from the root's start);
 * then the median span of a call (the last rank's bcast exit - the first rank's barrier exit).
 * Not built by make; with rcmsg, Open MPI or MPICH:
 *   gcc -O2 -DUSE_RCMSG -Iinclude bench/bcast_timeline.c -Lbuild/.libs -lrcmsg \
 *       -Wl,-rpath,$PWD/build/.libs -o bcast_timeline_rcmsg
 *   mpicc.openmpi -O2 bench/bcast_timeline.c -o bcast_timeline_ompi   (mpicc.mpich: MPICH)
 *   mpirun -np 2 --bind-to core -x RCMSG_TRANSPORTS=self,sm ./bcast_timeline_rcmsg [BYTES [CALLS]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef USE_RCMSG
#include <rcmsg.h>
#define BARRIER()       rcmsg_barrier(rcmsg_comm_world())
#define BCAST(b, n)     rcmsg_bcast(b, (size_t)(n), RCMSG_UINT8, 0, rcmsg_comm_world())
#define GATHER(s, r, n) rcmsg_gather(s, r, (size_t)(n), RCMSG_UINT8, 0, rcmsg_comm_world())
#else
#include <mpi.h>
#define BARRIER()       MPI_Barrier(MPI_COMM_WORLD)
#define BCAST(b, n)     MPI_Bcast(b, n, MPI_BYTE, 0, MPI_COMM_WORLD)
#define GATHER(s, r, n) MPI_Gather(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, MPI_COMM_WORLD)
#endif

#define MAX_CALLS 20000
#define MAX_RANKS 16
#define MAX_BYTES (1 << 20)

static double now_us(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp);
    return v[n / 2];
}

static double t0[MAX_CALLS], t1[MAX_CALLS], all0[MAX_CALLS * MAX_RANKS],
    all1[MAX_CALLS * MAX_RANKS], d[MAX_CALLS];
static char buf[MAX_BYTES];

int main(int argc, char **argv)
{
    int rank, size, len = argc > 1 ? atoi(argv[1]) : 8,
                    calls = argc > 2 ? atoi(argv[2]) : MAX_CALLS;

#ifdef USE_RCMSG
    if (rcmsg_init() != RCMSG_OK) {
        return 1;
    }
    rank = rcmsg_rank();
    size = rcmsg_size();
#else
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
    if (size > MAX_RANKS || len < 0 || len > MAX_BYTES || calls < 1 || calls > MAX_CALLS) {
        fprintf(stderr, "bcast_timeline: at most %d ranks, %d bytes, %d calls\n", MAX_RANKS,
                MAX_BYTES, MAX_CALLS);
        return 2;
    }
    for (int i = 0; i < calls / 10; i++) { /* warmup */
        BARRIER();
        BCAST(buf, len);
    }
    for (int i = 0; i < calls; i++) {
        BARRIER();
        t0[i] = now_us();
        BCAST(buf, len);
        t1[i] = now_us();
    }
    GATHER(t0, all0, (int)sizeof(t0));
    GATHER(t1, all1, (int)sizeof(t1));
    for (int r = 0; r < size && rank == 0; r++) {
        double *s0 = all0 + (size_t)r * MAX_CALLS, *s1 = all1 + (size_t)r * MAX_CALLS, bc, sk, got;

        for (int i = 0; i < calls; i++) {
            d[i] = s1[i] - s0[i];
        }
        bc = median(d, calls);
        for (int i = 0; i < calls; i++) {
            d[i] = s0[i] - all0[i];
        }
        sk = median(d, calls);
        for (int i = 0; i < calls; i++) {
            d[i] = s1[i] - all0[i];
        }
        got = median(d, calls);
        printf("rank %d: bcast %.3f us, barrier exit - root's %.3f us, bcast exit - root's "
               "barrier exit %.3f us\n",
               r, bc, sk, got);
    }
    if (rank == 0) {
        for (int i = 0; i < calls; i++) {
            double first = all0[i], last = all1[i];

            for (int r = 1; r < size; r++) {
                first = all0[(size_t)r * MAX_CALLS + i] < first ? all0[(size_t)r * MAX_CALLS + i]
                                                                : first;
                last =
                    all1[(size_t)r * MAX_CALLS + i] > last ? all1[(size_t)r * MAX_CALLS + i] : last;
            }
            d[i] = last - first;
        }
        printf("span %.3f us\n", median(d, calls));
    }
#ifdef USE_RCMSG
    rcmsg_finalize();
#else
    MPI_Finalize();
#endif
    return 0;
}
