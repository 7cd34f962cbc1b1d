/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Finalize with requests pending (issue 38 item 11), on any number of ranks (right: the
 * next rank, left: the previous one, yourself as a singleton).
 * "return": with MPI_ERRORS_RETURN on MPI_COMM_WORLD, MPI_Finalize refuses an unmatched
 * receive and an unwaited send with MPI_ERR_PENDING naming them; the library is still usable
 * (a barrier, a ring exchange), the program cancels the receive, completes the send and
 * calls MPI_Finalize again, which succeeds.
 * "fatal": with the default handler, MPI_Finalize is called with an unmatched receive, a
 * started persistent receive, a small send nobody receives and a 64 KiB (rendezvous) send the
 * right rank receives only after a second, and a 64 KiB send nobody receives: it warns once
 * naming them, cancels the receives, lets the late send complete, cancels the unreceived one
 * after its wait and returns MPI_SUCCESS (the script checks the warning, the status and the
 * time).
 */
#include "mpi_test.h"

#include <stdlib.h>
#include <unistd.h>

#define BIG (64 * 1024)

static int right, left;

static void finalize_return(void)
{
    int out = me, in = -1, sum = 0, cls = -1, flag = 0, len;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Request reqs[2];
    MPI_Status st;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    OK(MPI_Irecv(&in, 1, MPI_INT, left, 77, MPI_COMM_WORLD, &reqs[0])); /* never sent */
    OK(MPI_Isend(&out, 1, MPI_INT, right, 78, MPI_COMM_WORLD, &reqs[1]));
    {
        int code = MPI_Finalize();

        MPI_Error_class(code, &cls);
        MPI_Error_string(code, text, &len);
    }
    CHECK(cls == MPI_ERR_PENDING, "MPI_Finalize with requests pending: class %d", cls);
    CHECK(strstr(text, "2 request(s) not completed") != NULL &&
              strstr(text, "a receive from rank") != NULL && strstr(text, "tag 77") != NULL &&
              strstr(text, "a send to rank") != NULL,
          "the refusal does not name the requests: '%s'", text);
    OK(MPI_Finalized(&flag));
    CHECK(flag == 0, "finalized after a refused MPI_Finalize");
    /* still usable: a collective and point-to-point */
    OK(MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == np * (np - 1) / 2, "allreduce after the refusal: %d", sum);
    OK(MPI_Recv(&in, 1, MPI_INT, left, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in == left, "the message sent before the refusal: %d", in);
    OK(MPI_Cancel(&reqs[0]));
    OK(MPI_Wait(&reqs[0], &st));
    OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1, "the receive was not cancelled");
    OK(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD); /* every rank's message to its right was received */
    phase("MPI_Finalize refused with MPI_ERR_PENDING, the library still usable");
    OK(MPI_Finalize());
    OK(MPI_Finalized(&flag));
    CHECK(flag == 1, "not finalized after the second MPI_Finalize");
}

static void finalize_fatal(void)
{
    static char big_out[BIG], big_in[BIG], lost_out[BIG];
    int out = me, in = -1, pin = -1, flag = 0;
    MPI_Request r1, r2, r3, r4, pr;

    OK(MPI_Irecv(&in, 1, MPI_INT, left, 77, MPI_COMM_WORLD, &r1));   /* never sent */
    OK(MPI_Isend(&out, 1, MPI_INT, right, 78, MPI_COMM_WORLD, &r2)); /* never received */
    OK(MPI_Recv_init(&pin, 1, MPI_INT, left, 80, MPI_COMM_WORLD, &pr));
    OK(MPI_Start(&pr)); /* never sent */
    if (me == np - 1) { /* rank 0 receives it 2 s later, while this rank is in MPI_Finalize */
        OK(MPI_Isend(big_out, BIG, MPI_CHAR, 0, 79, MPI_COMM_WORLD, &r3));
    }
    OK(MPI_Isend(lost_out, BIG, MPI_CHAR, right, 81, MPI_COMM_WORLD, &r4)); /* never received */
    if (me == 0) {
        sleep(np > 1 ? 2 : 0);
        OK(MPI_Recv(big_in, BIG, MPI_CHAR, np - 1, 79, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    OK(MPI_Finalize());
    OK(MPI_Finalized(&flag));
    CHECK(flag == 1, "not finalized");
    if (me == 0) {
        printf("ok: requests left pending at MPI_Finalize under ERRORS_ARE_FATAL\n");
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "return") != 0 && strcmp(argv[1], "fatal") != 0)) {
        fprintf(stderr, "usage: %s return|fatal\n", argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    right = (me + 1) % np;
    left = (me + np - 1) % np;
    if (strcmp(argv[1], "return") == 0) {
        finalize_return();
    } else {
        finalize_fatal();
    }
    return summary();
}
