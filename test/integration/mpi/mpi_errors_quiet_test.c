/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Errors only a collective's exchange finds (its ranks passing different counts), under
 * MPI_ERRORS_RETURN: returned, and the program's stderr stays its own (MPICH's errors/coll
 * *length tests count any output). Each rank's stderr is caught in a file around the calls:
 *  - a handler other than MPI_ERRORS_ARE_FATAL set: Bcast, Ibcast and Reduce with counts
 *    that differ between the root and the others fail where the mismatch is seen, with an
 *    error class, and write nothing on stderr;
 *  - Allgather, Alltoall and their nonblocking forms where one rank's send block is shorter or
 *    longer than the receive blocks: that rank fails with MPI_ERR_TRUNCATE (the nonblocking
 *    forms at the wait), none hangs nor reads or writes past a buffer, nothing on stderr;
 *  - per communicator, as the handler: with ERRORS_RETURN on a duplicate only, a mismatched
 *    rcmsg_bcast on rcmsg's world (COMM_WORLD, ERRORS_ARE_FATAL) is still logged, naming the
 *    call, the rank and the sizes; rcmsg_comm_log_errors (rcmsg.h) turns it off and on.
 */
#include "mpi_test.h"

#include <rcmsg.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define LONG 10 /* ints the non-roots expect; the root sends 1 */

static int saved_fd = -1;
static FILE *caught;

/* stderr goes to a temporary file until uncatch() */
static void catch_stderr(void)
{
    fflush(stderr);
    caught = tmpfile();
    CHECK(caught != NULL, "tmpfile failed");
    saved_fd = dup(STDERR_FILENO);
    CHECK(saved_fd >= 0 && dup2(fileno(caught), STDERR_FILENO) >= 0, "dup2 failed");
}

/* stderr back; what was written meanwhile in text (at most len - 1 bytes) */
static void uncatch_stderr(char *text, size_t len)
{
    size_t n;

    fflush(stderr);
    dup2(saved_fd, STDERR_FILENO);
    close(saved_fd);
    rewind(caught);
    n = fread(text, 1, len - 1, caught);
    text[n] = '\0';
    fclose(caught);
}

/* (setting a handler would turn the runtime's lines off again: the duplicates inherit) */

/* a Bcast from 0 where the root sends 1 int and the others expect LONG, on its own duplicate
 * (what the mismatch leaves behind goes with it); the class this rank got */
static int bcast_mismatch(bool nonblocking)
{
    int buf[LONG] = {7}, cls = MPI_SUCCESS, err;
    MPI_Comm comm;
    MPI_Request req;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm)); /* with COMM_WORLD's handler, ERRORS_RETURN */
    if (nonblocking) {
        err = MPI_Ibcast(buf, me == 0 ? 1 : LONG, MPI_INT, 0, comm, &req);
        if (err == MPI_SUCCESS) {
            err = MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    } else {
        err = MPI_Bcast(buf, me == 0 ? 1 : LONG, MPI_INT, 0, comm);
    }
    MPI_Error_class(err, &cls);
    MPI_Comm_free(&comm);
    return cls;
}

/* a Reduce to 0 where the root reduces LONG ints and the others 1 */
static int reduce_mismatch(void)
{
    int in[LONG] = {1}, out[LONG], cls = MPI_SUCCESS;
    MPI_Comm comm;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm)); /* with COMM_WORLD's handler, ERRORS_RETURN */
    MPI_Error_class(MPI_Reduce(in, out, me == 0 ? LONG : 1, MPI_INT, MPI_SUM, 0, comm), &cls);
    MPI_Comm_free(&comm);
    return cls;
}

static void test_quiet(void)
{
    char text[4096];
    int b, ib, r;

    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    catch_stderr();
    b = bcast_mismatch(false);
    ib = bcast_mismatch(true);
    r = reduce_mismatch();
    uncatch_stderr(text, sizeof(text));
    /* the non-roots of the bcasts see a short message; the root of the reduce short ones */
    if (me != 0) {
        CHECK(b != MPI_SUCCESS, "Bcast with mismatched counts returned MPI_SUCCESS");
        CHECK(ib != MPI_SUCCESS, "Ibcast with mismatched counts returned MPI_SUCCESS");
    } else {
        CHECK(r != MPI_SUCCESS, "Reduce with mismatched counts returned MPI_SUCCESS at the root");
    }
    CHECK(text[0] == '\0', "stderr under MPI_ERRORS_RETURN: \"%s\"", text);
}

/* An allgather or alltoall (which % 4: blocking, alltoall, nonblocking, nonblocking alltoall)
 * of rlen bytes per block where rank 0's send block is slen bytes, on a duplicate of the world
 * (each rank's buffers exactly what its counts say, so that distcheck's AddressSanitizer build
 * stops at a byte read or written past them): the class this rank got */
static int all_mismatch(int which, int slen, int rlen)
{
    int scount = me == 0 ? slen : rlen, cls = MPI_SUCCESS, err;
    char *sbuf = calloc((size_t)scount * (size_t)np + 1, 1);
    char *rbuf = calloc((size_t)rlen * (size_t)np + 1, 1);
    MPI_Comm comm;
    MPI_Request req;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    switch (which % 4) {
    case 0:
        err = MPI_Allgather(sbuf, scount, MPI_BYTE, rbuf, rlen, MPI_BYTE, comm);
        break;
    case 1:
        err = MPI_Alltoall(sbuf, scount, MPI_BYTE, rbuf, rlen, MPI_BYTE, comm);
        break;
    case 2:
        err = MPI_Iallgather(sbuf, scount, MPI_BYTE, rbuf, rlen, MPI_BYTE, comm, &req);
        break;
    default:
        err = MPI_Ialltoall(sbuf, scount, MPI_BYTE, rbuf, rlen, MPI_BYTE, comm, &req);
        break;
    }
    if (which % 4 >= 2 && err == MPI_SUCCESS) {
        err = MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Error_class(err, &cls);
    MPI_Comm_free(&comm);
    free(sbuf);
    free(rbuf);
    return cls;
}

/* Rank 0's send block shorter (4 bytes against 40; and just under the counts where rcmsg's
 * algorithm changes: 256 against 257 for an alltoall, 65535 against 65536 for an allgather,
 * where a rank running another algorithm than the others would hang them) or longer (80) than
 * every receive block: rank 0 fails with MPI_ERR_TRUNCATE (the nonblocking forms at the wait),
 * no rank hangs, none reads or writes past a buffer; the others cannot see it */
static void test_all_short(void)
{
    static const char *const names[] = {"Allgather", "Alltoall", "Iallgather", "Ialltoall"};
    static const int lens[][2] = {{4, 40}, {80, 40}, {256, 257}, {65535, 65536}};
    char text[4096];

    catch_stderr();
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
        for (int w = 0; w < 4; w++) {
            int cls = all_mismatch(w, lens[l][0], lens[l][1]);

            CHECK(me != 0 || cls == MPI_ERR_TRUNCATE,
                  "%s, rank 0 sending %d bytes of %d-byte blocks: class %d, not MPI_ERR_TRUNCATE",
                  names[w], lens[l][0], lens[l][1], cls);
        }
    }
    uncatch_stderr(text, sizeof(text));
    CHECK(text[0] == '\0', "stderr under MPI_ERRORS_RETURN: \"%s\"", text);
}

/* a mismatched rcmsg_bcast on rcmsg's world (rcmsg.h: a status, no MPI handler) while stderr is
 * caught: whether the runtime's line came, on the ranks that see the mismatch */
static bool native_mismatch_logged(void)
{
    int32_t buf[LONG] = {0};
    char text[4096];
    rcmsg_status_t s;

    catch_stderr();
    s = rcmsg_bcast(buf, me == 0 ? 1 : LONG, RCMSG_INT32, 0, rcmsg_comm_world());
    uncatch_stderr(text, sizeof(text));
    if (me != 0) {
        CHECK(s != RCMSG_OK, "rcmsg_bcast with mismatched counts returned RCMSG_OK");
    }
    return strstr(text, "error: bcast: rank ") != NULL &&
           strstr(text, " bytes where 40 were expected") != NULL;
}

/* The runtime's line follows the handler of the communicator it is found on: a duplicate with
 * ERRORS_RETURN leaves COMM_WORLD's (ERRORS_ARE_FATAL) line; rcmsg_comm_log_errors sets it */
static void test_per_comm(void)
{
    MPI_Comm dup;
    bool logged;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    logged = native_mismatch_logged();
    CHECK(me == 0 || logged, "COMM_WORLD under ERRORS_ARE_FATAL: the runtime's line is missing");
    CHECK(rcmsg_comm_log_errors(rcmsg_comm_world(), 0) == RCMSG_OK, "rcmsg_comm_log_errors");
    logged = native_mismatch_logged();
    CHECK(!logged, "rcmsg_comm_log_errors(world, 0): the runtime's line came");
    CHECK(rcmsg_comm_log_errors(rcmsg_comm_world(), 1) == RCMSG_OK, "rcmsg_comm_log_errors");
    logged = native_mismatch_logged();
    CHECK(me == 0 || logged, "rcmsg_comm_log_errors(world, 1): the runtime's line is missing");
    CHECK(rcmsg_comm_log_errors(NULL, 0) == RCMSG_ERR_INVALID_PARAM, "a NULL communicator");
    OK(MPI_Comm_free(&dup));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2) {
        printf("SKIP: needs 2 ranks or more (a mismatch between ranks)\n");
        MPI_Finalize();
        return 77;
    }
    phases_expected = 3;
    test_per_comm();
    phase("the runtime's line per communicator: COMM_WORLD's kept beside a quiet duplicate");
    test_quiet();
    phase("mismatched Bcast, Ibcast, Reduce under ERRORS_RETURN: error classes, nothing on stderr");
    test_all_short();
    phase("Allgather, Alltoall and their I forms, a send block of another size: that rank errs");
    MPI_Finalize();
    return summary();
}
