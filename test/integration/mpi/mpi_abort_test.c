/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The abort of a job whose other ranks compute without calling MPI: "mpi_abort_test abort
 * CODE" makes the last rank call MPI_Abort(MPI_COMM_WORLD, CODE), "mpi_abort_test fatal" makes
 * it call MPI_Send to an invalid rank under MPI_ERRORS_ARE_FATAL, "mpi_abort_test stuck CODE"
 * makes it call MPI_Abort with its stdout a full pipe nobody reads and output left in its
 * stdio buffer (the abort's flush would block for ever). Every rank first prints
 * "rank R: pid P" and meets the others in a barrier; the others then spin for 60 s (no MPI
 * call, so nothing of rcmsg notices the lost rank) and print "rank R: survived" if nobody
 * ended them. The scripts (mpi_abort_host.sh, mpi_abort_srun.sh) check the statuses, the time
 * and that no process is left.
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Fills stdout (a pipe nobody reads) and leaves output in its stdio buffer. */
static void stdout_fill(int me)
{
    char block[4096] = {0};
    int fl = fcntl(1, F_GETFL);

    fcntl(1, F_SETFL, fl | O_NONBLOCK);
    while (write(1, block, sizeof(block)) > 0 || errno == EINTR) {
    }
    fprintf(stderr, "rank %d: stdout is full (%s)\n", me, strerror(errno));
    fcntl(1, F_SETFL, fl);
    printf("this stays in the stdio buffer\n");
}

int main(int argc, char **argv)
{
    int me, np, x = 0;
    double t0;
    volatile double sink = 0;

    if (argc < 2 || (strcmp(argv[1], "abort") != 0 && strcmp(argv[1], "fatal") != 0 &&
                     strcmp(argv[1], "stuck") != 0)) {
        fprintf(stderr, "usage: %s abort CODE | fatal | stuck CODE\n", argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    printf("rank %d: pid %d\n", me, (int)getpid());
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == np - 1) {
        usleep(200000); /* the others are computing by now */
        if (strcmp(argv[1], "stuck") == 0) {
            stdout_fill(me);
        }
        if (strcmp(argv[1], "fatal") != 0) {
            MPI_Abort(MPI_COMM_WORLD, argc > 2 ? atoi(argv[2]) : 1);
        } else {
            MPI_Send(&x, 1, MPI_INT, np + 5, 0, MPI_COMM_WORLD);
        }
        printf("FAIL: rank %d: the %s returned\n", me, argv[1]);
        return 2;
    }
    for (t0 = MPI_Wtime(); MPI_Wtime() - t0 < 60;) {
        sink += 1;
    }
    printf("rank %d: survived\n", me);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
