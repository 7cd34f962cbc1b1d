/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI point-to-point and requests over rcmsg, data checked, on any number of ranks (1: every
 * message goes to self). Each rank talks to its ring neighbours right = rank + 1 and
 * left = rank - 1.
 */
#include "mpi_test.h"

#include <stdlib.h>
#include <unistd.h>

#define BIG (1 << 20) /* bytes: travels by rendezvous */

static int left, right;

static void fill(int *buf, int n, int seed)
{
    for (int i = 0; i < n; i++) {
        buf[i] = seed * 100003 + i;
    }
}

static int check_data(const int *buf, int n, int seed)
{
    for (int i = 0; i < n; i++) {
        if (buf[i] != seed * 100003 + i) {
            return i;
        }
    }
    return -1;
}

static void check_status(const MPI_Status *st, int source, int tag, int count, const char *what)
{
    int c = -1, e = -1;

    MPI_Get_count(st, MPI_INT, &c);
    MPI_Get_elements(st, MPI_INT, &e);
    CHECK(st->MPI_SOURCE == source && st->MPI_TAG == tag && c == count && e == count,
          "%s: source %d tag %d count %d elements %d, expected %d %d %d", what, st->MPI_SOURCE,
          st->MPI_TAG, c, e, source, tag, count);
}

/* Send/Recv, Isend/Irecv, small (eager) and large (rendezvous), and Get_count */
static void test_basic(void)
{
    int n = BIG / (int)sizeof(int);
    int *out = malloc(BIG), *in = malloc(BIG);
    MPI_Request req;
    MPI_Status st;

    for (int len = 1; len <= n; len *= 64) {
        fill(out, len, me);
        memset(in, 0, (size_t)len * sizeof(int));
        OK(MPI_Irecv(in, len, MPI_INT, left, 5, MPI_COMM_WORLD, &req));
        OK(MPI_Send(out, len, MPI_INT, right, 5, MPI_COMM_WORLD));
        OK(MPI_Wait(&req, &st));
        CHECK(req == MPI_REQUEST_NULL, "request not MPI_REQUEST_NULL after Wait");
        CHECK(check_data(in, len, left) < 0, "Send/Irecv of %d ints: data", len);
        check_status(&st, left, 5, len, "Irecv");

        fill(out, len, me + 7);
        OK(MPI_Isend(out, len, MPI_INT, right, 6, MPI_COMM_WORLD, &req));
        OK(MPI_Recv(in, n, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(check_data(in, len, left + 7) < 0, "Isend/Recv of %d ints: data", len);
        check_status(&st, left, 6, len, "Recv(ANY_SOURCE, ANY_TAG)");
    }
    /* a count that is not a whole number of the type */
    OK(MPI_Isend(out, 5, MPI_CHAR, right, 7, MPI_COMM_WORLD, &req));
    OK(MPI_Recv(in, 8, MPI_CHAR, left, 7, MPI_COMM_WORLD, &st));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    {
        int c;
        MPI_Get_count(&st, MPI_INT, &c);
        CHECK(c == MPI_UNDEFINED, "Get_count of 5 bytes as MPI_INT: %d", c);
        MPI_Get_count(&st, MPI_CHAR, &c);
        CHECK(c == 5, "Get_count of 5 bytes as MPI_CHAR: %d", c);
    }
    free(out);
    free(in);
}

/* Ssend completes only once matched: the receiver posts its receive only after a "go" that
 * this rank sends after seeing its Issend incomplete */
static void test_ssend(void)
{
    int v = me, got = -1, go = 1, flag = 0;
    MPI_Request sreq, greq;

    OK(MPI_Issend(&v, 1, MPI_INT, right, 10, MPI_COMM_WORLD, &sreq));
    for (int i = 0; i < 50; i++) {
        OK(MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "Issend completed before the receiver matched it");
        if (flag) {
            break;
        }
        usleep(100);
    }
    OK(MPI_Isend(&go, 1, MPI_INT, right, 11, MPI_COMM_WORLD, &greq));
    OK(MPI_Recv(&go, 1, MPI_INT, left, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Recv(&got, 1, MPI_INT, left, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (!flag) {
        OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    }
    OK(MPI_Wait(&greq, MPI_STATUS_IGNORE));
    CHECK(got == left, "Issend data %d", got);

    /* blocking Ssend and Rsend (the receive is posted before, as Rsend requires) */
    MPI_Request rreq;
    OK(MPI_Irecv(&got, 1, MPI_INT, left, 12, MPI_COMM_WORLD, &rreq));
    if (np == 1) {
        OK(MPI_Issend(&v, 1, MPI_INT, right, 12, MPI_COMM_WORLD, &sreq));
        OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    } else {
        OK(MPI_Ssend(&v, 1, MPI_INT, right, 12, MPI_COMM_WORLD));
    }
    OK(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    CHECK(got == left, "Ssend data %d", got);
    OK(MPI_Irecv(&got, 1, MPI_INT, left, 13, MPI_COMM_WORLD, &rreq));
    test_barrier(MPI_COMM_WORLD);
    OK(MPI_Rsend(&v, 1, MPI_INT, right, 13, MPI_COMM_WORLD));
    OK(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    CHECK(got == left, "Rsend data %d", got);
    OK(MPI_Irecv(&got, 1, MPI_INT, left, 14, MPI_COMM_WORLD, &rreq));
    test_barrier(MPI_COMM_WORLD);
    OK(MPI_Irsend(&v, 1, MPI_INT, right, 14, MPI_COMM_WORLD, &sreq));
    OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    CHECK(got == left, "Irsend data %d", got);
}

/* Bsend, Ibsend, Bsend_init through an attached buffer; too big is MPI_ERR_BUFFER */
static void test_bsend(void)
{
    int small = 100, bigints = 64 * 1024; /* 256 KiB: rendezvous from the buffer */
    int size = 3 * (small * (int)sizeof(int) + MPI_BSEND_OVERHEAD) + bigints * (int)sizeof(int) +
               MPI_BSEND_OVERHEAD;
    char *buf = malloc((size_t)size);
    int *out = malloc((size_t)bigints * sizeof(int)), *in = malloc((size_t)bigints * sizeof(int));
    void *det;
    int detsize, flag;
    MPI_Request req;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    FAILS(MPI_Bsend(out, 1, MPI_INT, right, 20, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    OK(MPI_Buffer_attach(buf, size));
    FAILS(MPI_Buffer_attach(buf, size), MPI_ERR_BUFFER);
    fill(out, bigints, me);
    OK(MPI_Bsend(out, small, MPI_INT, right, 20, MPI_COMM_WORLD));
    OK(MPI_Ibsend(out + 1, small, MPI_INT, right, 21, MPI_COMM_WORLD, &req));
    OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    CHECK(flag, "Ibsend not complete at once (the data is in the attached buffer)");
    OK(MPI_Bsend(out, bigints, MPI_INT, right, 22, MPI_COMM_WORLD));
    /* more than the whole buffer: never fits */
    FAILS(MPI_Bsend(out, size, MPI_CHAR, right, 23, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    memset(out, 0, (size_t)bigints * sizeof(int)); /* the buffered copies are what travels */
    OK(MPI_Recv(in, small, MPI_INT, left, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(check_data(in, small, left) < 0, "Bsend data");
    OK(MPI_Recv(in, small, MPI_INT, left, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[0] == left * 100003 + 1, "Ibsend data %d", in[0]);
    OK(MPI_Recv(in, bigints, MPI_INT, left, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(check_data(in, bigints, left) < 0, "Bsend of 256 KiB data");
    /* persistent buffered sends reuse the space as they complete */
    fill(out, small, me);
    OK(MPI_Bsend_init(out, small, MPI_INT, right, 24, MPI_COMM_WORLD, &req));
    for (int i = 0; i < 10; i++) {
        OK(MPI_Start(&req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        OK(MPI_Recv(in, small, MPI_INT, left, 24, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(check_data(in, small, left) < 0, "Bsend_init data, start %d", i);
    }
    OK(MPI_Request_free(&req));
    OK(MPI_Buffer_detach(&det, &detsize));
    CHECK(det == buf && detsize == size, "Buffer_detach gave %p %d", det, detsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(buf);
    free(out);
    free(in);
}

/* Probe and Iprobe tell the source, tag and size before the receive */
static void test_probe(void)
{
    int out[37], in[37], flag = 0, c;
    MPI_Request req;
    MPI_Status st;

    fill(out, 37, me);
    OK(MPI_Isend(out, 37, MPI_INT, right, 30, MPI_COMM_WORLD, &req));
    OK(MPI_Probe(MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, &st));
    check_status(&st, left, 30, 37, "Probe");
    OK(MPI_Get_count(&st, MPI_INT, &c));
    OK(MPI_Recv(in, c, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(check_data(in, 37, left) < 0, "data after Probe");
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));

    OK(MPI_Iprobe(left, 31, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "Iprobe found a message nobody sent");
    test_barrier(MPI_COMM_WORLD); /* every rank has probed before any sends */
    OK(MPI_Isend(out, 3, MPI_INT, right, 31, MPI_COMM_WORLD, &req));
    while (!flag) {
        OK(MPI_Iprobe(left, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    }
    check_status(&st, left, 31, 3, "Iprobe");
    OK(MPI_Recv(in, 3, MPI_INT, left, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
}

/* A matched probe takes the message out of matching: a later receive that would match it
 * gets the next one */
static void test_mprobe(void)
{
    int *a = malloc(BIG), *b = malloc(BIG), *in = malloc(BIG), n = BIG / (int)sizeof(int);
    int flag = 0;
    MPI_Request reqs[2], rreq;
    MPI_Message msg;
    MPI_Status st;

    fill(a, 10, me);
    fill(b, n, me + 1);
    OK(MPI_Isend(a, 10, MPI_INT, right, 40, MPI_COMM_WORLD, &reqs[0]));
    OK(MPI_Isend(b, n, MPI_INT, right, 41, MPI_COMM_WORLD, &reqs[1]));
    OK(MPI_Mprobe(left, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
    check_status(&st, left, 40, 10, "Mprobe");
    CHECK(msg != MPI_MESSAGE_NULL, "Mprobe gave MPI_MESSAGE_NULL");
    /* the probed message (tag 40) is no longer there to match: this gets tag 41 */
    OK(MPI_Recv(in, n, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    check_status(&st, left, 41, n, "Recv after Mprobe");
    CHECK(check_data(in, n, left + 1) < 0, "data of the message after the Mprobe'd one");
    memset(in, 0, 40);
    OK(MPI_Mrecv(in, 10, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL, "Mrecv left the message handle");
    check_status(&st, left, 40, 10, "Mrecv");
    CHECK(check_data(in, 10, left) < 0, "Mrecv data");
    OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));

    /* Improbe + Imrecv of a large message */
    OK(MPI_Isend(b, n, MPI_INT, right, 42, MPI_COMM_WORLD, &reqs[0]));
    while (!flag) {
        OK(MPI_Improbe(MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &flag, &msg, &st));
    }
    check_status(&st, left, 42, n, "Improbe");
    memset(in, 0, BIG);
    OK(MPI_Imrecv(in, n, MPI_INT, &msg, &rreq));
    OK(MPI_Wait(&rreq, &st));
    check_status(&st, left, 42, n, "Imrecv");
    CHECK(check_data(in, n, left + 1) < 0, "Imrecv data");
    OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
    free(a);
    free(b);
    free(in);
}

/* Sendrecv along the ring, Sendrecv_replace against the flow */
static void test_sendrecv(void)
{
    int out[64], in[64];
    MPI_Status st;

    fill(out, 64, me);
    OK(MPI_Sendrecv(out, 64, MPI_INT, right, 50, in, 64, MPI_INT, left, 50, MPI_COMM_WORLD, &st));
    check_status(&st, left, 50, 64, "Sendrecv");
    CHECK(check_data(in, 64, left) < 0, "Sendrecv data");
    fill(in, 64, me);
    OK(MPI_Sendrecv_replace(in, 64, MPI_INT, left, 51, right, 51, MPI_COMM_WORLD, &st));
    check_status(&st, right, 51, 64, "Sendrecv_replace");
    CHECK(check_data(in, 64, right) < 0, "Sendrecv_replace data");
}

/* Waitany, Waitsome, Testany, Testsome, Testall on a set of receives; NULL entries skipped */
static void test_multi(void)
{
    enum { K = 6 };
    int in[K], out[K], idx, count, done = 0, indices[K], flag;
    MPI_Request rr[K + 1], sr[K];
    MPI_Status sts[K + 1], st;

    for (int i = 0; i < K; i++) {
        out[i] = me * 10 + i;
        in[i] = -1;
        OK(MPI_Irecv(&in[i], 1, MPI_INT, left, 60 + i, MPI_COMM_WORLD, &rr[i]));
    }
    rr[K] = MPI_REQUEST_NULL;
    /* nothing sent yet: Testall is false and completes none; Testany/Testsome find none */
    OK(MPI_Testall(K + 1, rr, &flag, sts));
    CHECK(!flag, "Testall true with nothing sent");
    OK(MPI_Testany(K + 1, rr, &idx, &flag, &st));
    CHECK(!flag && idx == MPI_UNDEFINED, "Testany flag %d index %d", flag, idx);
    OK(MPI_Testsome(K + 1, rr, &count, indices, sts));
    CHECK(count == 0, "Testsome outcount %d", count);
    test_barrier(MPI_COMM_WORLD);
    for (int i = K - 1; i >= 0; i--) {
        OK(MPI_Isend(&out[i], 1, MPI_INT, right, 60 + i, MPI_COMM_WORLD, &sr[i]));
    }
    OK(MPI_Waitany(K + 1, rr, &idx, &st));
    CHECK(idx >= 0 && idx < K && rr[idx] == MPI_REQUEST_NULL && in[idx] == left * 10 + idx,
          "Waitany index %d", idx);
    CHECK(st.MPI_TAG == 60 + idx, "Waitany status tag %d", st.MPI_TAG);
    done = 1;
    while (done < K) {
        OK(MPI_Waitsome(K + 1, rr, &count, indices, sts));
        CHECK(count >= 1, "Waitsome outcount %d", count);
        for (int j = 0; j < count; j++) {
            int i = indices[j];
            CHECK(rr[i] == MPI_REQUEST_NULL && in[i] == left * 10 + i && sts[j].MPI_TAG == 60 + i,
                  "Waitsome index %d tag %d", i, sts[j].MPI_TAG);
        }
        done += count;
    }
    OK(MPI_Waitsome(K + 1, rr, &count, indices, sts));
    CHECK(count == MPI_UNDEFINED, "Waitsome of only NULL requests: outcount %d", count);
    OK(MPI_Waitany(K + 1, rr, &idx, &st));
    CHECK(idx == MPI_UNDEFINED, "Waitany of only NULL requests: index %d", idx);
    OK(MPI_Testany(K + 1, rr, &idx, &flag, &st));
    CHECK(flag && idx == MPI_UNDEFINED, "Testany of NULL requests: flag %d index %d", flag, idx);
    OK(MPI_Waitall(K, sr, sts));
    for (int i = 0; i < K; i++) {
        CHECK(sr[i] == MPI_REQUEST_NULL, "Waitall left request %d", i);
    }
    /* Testall completes every one once all are done */
    for (int i = 0; i < 2; i++) {
        OK(MPI_Irecv(&in[i], 1, MPI_INT, left, 70 + i, MPI_COMM_WORLD, &rr[i]));
    }
    OK(MPI_Send(&out[0], 1, MPI_INT, right, 70, MPI_COMM_WORLD));
    test_barrier(MPI_COMM_WORLD);
    OK(MPI_Testall(2, rr, &flag, sts));
    CHECK(!flag && rr[0] != MPI_REQUEST_NULL && rr[1] != MPI_REQUEST_NULL,
          "Testall with one of two done: flag %d", flag);
    test_barrier(MPI_COMM_WORLD); /* every rank has tested before any sends the second */
    OK(MPI_Send(&out[1], 1, MPI_INT, right, 71, MPI_COMM_WORLD));
    for (flag = 0; !flag;) {
        OK(MPI_Testall(2, rr, &flag, sts));
    }
    CHECK(rr[0] == MPI_REQUEST_NULL && rr[1] == MPI_REQUEST_NULL && sts[1].MPI_TAG == 71 &&
              in[0] == left * 10 && in[1] == left * 10 + 1,
          "Testall when both are done");
}

/* Request_get_status leaves the request; Request_free of an active send; Cancel */
static void test_req_misc(void)
{
    int v = me, got = -1, flag = 0, canc = -1;
    MPI_Request req, sreq;
    MPI_Status st;

    OK(MPI_Irecv(&got, 1, MPI_INT, left, 80, MPI_COMM_WORLD, &req));
    OK(MPI_Send(&v, 1, MPI_INT, right, 80, MPI_COMM_WORLD));
    while (!flag) {
        OK(MPI_Request_get_status(req, &flag, &st));
    }
    CHECK(req != MPI_REQUEST_NULL && st.MPI_TAG == 80, "Request_get_status");
    OK(MPI_Wait(&req, &st));
    check_status(&st, left, 80, 1, "Wait after Request_get_status");
    CHECK(got == left, "data %d", got);

    /* Request_free of an active send: the message still arrives */
    OK(MPI_Isend(&v, 1, MPI_INT, right, 81, MPI_COMM_WORLD, &sreq));
    OK(MPI_Request_free(&sreq));
    CHECK(sreq == MPI_REQUEST_NULL, "Request_free left the handle");
    OK(MPI_Recv(&got, 1, MPI_INT, left, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == left, "data of a freed send %d", got);

    /* Cancel of a receive nothing matches: Wait completes it, cancelled */
    OK(MPI_Irecv(&got, 1, MPI_INT, left, 82, MPI_COMM_WORLD, &req));
    OK(MPI_Cancel(&req));
    OK(MPI_Wait(&req, &st));
    OK(MPI_Test_cancelled(&st, &canc));
    CHECK(canc == 1, "a cancelled receive: Test_cancelled %d", canc);
    /* Cancel of a send the receiver received already: not cancelled (mpi_cancel_test.c has
     * the sends that are) */
    OK(MPI_Isend(&v, 1, MPI_INT, right, 83, MPI_COMM_WORLD, &sreq));
    OK(MPI_Recv(&got, 1, MPI_INT, left, 83, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    test_barrier(MPI_COMM_WORLD);
    OK(MPI_Cancel(&sreq));
    OK(MPI_Wait(&sreq, &st));
    OK(MPI_Test_cancelled(&st, &canc));
    CHECK(canc == 0 && got == left, "a cancelled send: Test_cancelled %d data %d", canc, got);
    /* Cancel of a receive that matched already: it completes with the message */
    OK(MPI_Irecv(&got, 1, MPI_INT, left, 84, MPI_COMM_WORLD, &req));
    OK(MPI_Send(&v, 1, MPI_INT, right, 84, MPI_COMM_WORLD));
    test_barrier(MPI_COMM_WORLD);
    flag = 0;
    while (!flag) {
        OK(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE));
    }
    OK(MPI_Cancel(&req));
    OK(MPI_Wait(&req, &st));
    OK(MPI_Test_cancelled(&st, &canc));
    CHECK(canc == 0 && got == left && st.MPI_TAG == 84, "cancel after the match: %d", canc);
}

/* MPI_PROC_NULL: every operation completes at once, source PROC_NULL, ANY_TAG, count 0 */
static void test_proc_null(void)
{
    int v = 42, flag = 0;
    MPI_Request req;
    MPI_Message msg;
    MPI_Status st;

#define IS_NULL_STATUS(what)                                                                       \
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, what);                                        \
    CHECK(v == 42, "%s wrote the buffer", what)
    OK(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    OK(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    IS_NULL_STATUS("Recv");
    OK(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req));
    OK(MPI_Test(&req, &flag, &st));
    CHECK(flag, "Irecv from PROC_NULL not complete at once");
    IS_NULL_STATUS("Irecv");
    OK(MPI_Ssend(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    OK(MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    IS_NULL_STATUS("Probe");
    OK(MPI_Mprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe of PROC_NULL: message %d", msg);
    OK(MPI_Mrecv(&v, 1, MPI_INT, &msg, &st));
    IS_NULL_STATUS("Mrecv");
    OK(MPI_Sendrecv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, &v, 1, MPI_INT, MPI_PROC_NULL, 1,
                    MPI_COMM_WORLD, &st));
    IS_NULL_STATUS("Sendrecv");
}

/* Persistent requests: Send_init/Recv_init restarted with new data; Ssend_init/Rsend_init */
static void test_persistent(void)
{
    int out, in = -1, flag;
    MPI_Request reqs[2], s2;
    MPI_Status sts[2];

    OK(MPI_Recv_init(&in, 1, MPI_INT, left, 90, MPI_COMM_WORLD, &reqs[0]));
    OK(MPI_Send_init(&out, 1, MPI_INT, right, 90, MPI_COMM_WORLD, &reqs[1]));
    /* an inactive persistent request completes at once with an empty status */
    OK(MPI_Test(&reqs[0], &flag, &sts[0]));
    CHECK(flag && reqs[0] != MPI_REQUEST_NULL, "Test of an inactive persistent request");
    for (int i = 0; i < 5; i++) {
        out = me * 1000 + i;
        OK(MPI_Startall(2, reqs));
        OK(MPI_Waitall(2, reqs, sts));
        CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL,
              "persistent requests freed by Waitall");
        CHECK(in == left * 1000 + i && sts[0].MPI_SOURCE == left, "start %d: got %d", i, in);
    }
    OK(MPI_Request_free(&reqs[0]));
    OK(MPI_Request_free(&reqs[1]));
    OK(MPI_Recv_init(&in, 1, MPI_INT, left, 91, MPI_COMM_WORLD, &reqs[0]));
    OK(MPI_Ssend_init(&out, 1, MPI_INT, right, 91, MPI_COMM_WORLD, &reqs[1]));
    OK(MPI_Rsend_init(&out, 1, MPI_INT, right, 92, MPI_COMM_WORLD, &s2));
    OK(MPI_Startall(2, reqs));
    OK(MPI_Waitall(2, reqs, sts));
    CHECK(in == left * 1000 + 4, "Ssend_init: got %d", in);
    OK(MPI_Request_free(&reqs[0])); /* inactive: freed at once (reqs[0] is reused below) */
    OK(MPI_Recv_init(&in, 1, MPI_INT, left, 92, MPI_COMM_WORLD, &reqs[0]));
    OK(MPI_Request_free(&reqs[0]));
    OK(MPI_Irecv(&in, 1, MPI_INT, left, 92, MPI_COMM_WORLD, &reqs[0]));
    test_barrier(MPI_COMM_WORLD);
    out = 77;
    OK(MPI_Start(&s2));
    OK(MPI_Wait(&s2, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
    CHECK(in == 77, "Rsend_init: got %d", in);
    OK(MPI_Request_free(&s2));
    OK(MPI_Request_free(&reqs[1]));
}

/* errors returned: truncation, bad arguments */
static void test_errors(void)
{
    int out[10] = {0}, in[10];
    char text[MPI_MAX_ERROR_STRING];
    int len, cls, code;
    MPI_Request req;
    MPI_Status st;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    OK(MPI_Isend(out, 10, MPI_INT, right, 95, MPI_COMM_WORLD, &req));
    code = MPI_Recv(in, 5, MPI_INT, left, 95, MPI_COMM_WORLD, &st);
    MPI_Error_class(code, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive: class %d", cls);
    MPI_Error_string(code, text, &len);
    CHECK(strstr(text, "truncated") != NULL, "error string '%s'", text);
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    FAILS(MPI_Send(out, 1, MPI_INT, np, 1, MPI_COMM_WORLD), MPI_ERR_RANK);
    FAILS(MPI_Send(out, 1, MPI_INT, right, -3, MPI_COMM_WORLD), MPI_ERR_TAG);
    FAILS(MPI_Send(out, -1, MPI_INT, right, 1, MPI_COMM_WORLD), MPI_ERR_COUNT);
    FAILS(MPI_Send(out, 1, MPI_DATATYPE_NULL, right, 1, MPI_COMM_WORLD), MPI_ERR_TYPE);
    FAILS(MPI_Recv(in, 1, MPI_INT, MPI_ANY_SOURCE, -5, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
    FAILS(MPI_Send(out, 1, MPI_INT, right, 1, MPI_COMM_NULL), MPI_ERR_COMM);
    req = 12345;
    FAILS(MPI_Wait(&req, &st), MPI_ERR_REQUEST);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    phases_expected = 11;
    right = (me + 1) % np;
    left = (me + np - 1) % np;
    test_basic();
    phase("Send, Recv, Isend, Irecv (eager and rendezvous), Get_count, Get_elements");
    test_ssend();
    phase("Ssend, Issend (complete only once matched), Rsend, Irsend");
    test_bsend();
    phase("Bsend, Ibsend, Bsend_init, Buffer_attach/detach, MPI_ERR_BUFFER");
    test_probe();
    phase("Probe, Iprobe");
    test_mprobe();
    phase("Mprobe, Improbe, Mrecv, Imrecv");
    test_sendrecv();
    phase("Sendrecv, Sendrecv_replace");
    test_multi();
    phase("Waitany, Waitsome, Waitall, Testany, Testsome, Testall");
    test_req_misc();
    phase("Request_get_status, Request_free, Cancel, Test_cancelled");
    test_proc_null();
    phase("MPI_PROC_NULL");
    test_persistent();
    phase("Send_init, Ssend_init, Rsend_init, Recv_init, Start, Startall");
    test_errors();
    phase("errors returned: truncation, rank, tag, count, datatype, comm, request");
    MPI_Finalize();
    return summary();
}
