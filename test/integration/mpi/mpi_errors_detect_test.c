/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Misuse the MPI face detects locally (issue 43; MPICH's errors/coll and errors/rma expect
 * these reported), each through the handler of the communicator or window (ERRORS_RETURN
 * here) with the class MPICH gives and a message naming the call; the communicator stays
 * usable after each (a correct collective follows and is checked):
 *  - a collective's send buffer where this rank's own received data goes, without
 *    MPI_IN_PLACE (blocking, nonblocking; persistent: at the init, Alltoallv_init's too):
 *    MPI_ERR_BUFFER; the rooted
 * ones at the root only (the others do not call them);
 *  - Reduce_local with MPI_IN_PLACE or aliased buffers: MPI_ERR_BUFFER;
 *  - RMA outside an access epoch, a lock inside a Win_start epoch (and Win_start inside a
 *    lock), a second Win_start, Win_complete without Win_start, unlock without lock, a nested
 *    lock, Win_free with a lock held: MPI_ERR_RMA_SYNC; Compare_and_swap on a type that is
 *    not a predefined integer: MPI_ERR_TYPE;
 *  - (not a check) a copy callback's own error class or code comes back from Comm_dup and
 *    Comm_idup as it is, and their newcomm is MPI_COMM_NULL.
 */
#include "mpi_test.h"

#include <stdlib.h>

/* call fails with class cls and its message names name */
#define FAILS_NAMING(call, cls, name)                                                              \
    do {                                                                                           \
        int code_ = (call), class_ = -1, len_ = 0;                                                 \
        char msg_[MPI_MAX_ERROR_STRING] = "";                                                      \
        MPI_Error_class(code_, &class_);                                                           \
        MPI_Error_string(code_, msg_, &len_);                                                      \
        CHECK(class_ == (cls) && strstr(msg_, name) != NULL,                                       \
              "error class %d, expected %d; message \"%s\"", class_, (cls), msg_);                 \
    } while (0)

#define N 2 /* ints per rank's block */

static int *sbuf, *counts, *displs;
static MPI_Datatype *types;

/* the communicator still works: an Allreduce of the ranks */
static void still_usable(const char *after)
{
    int sum = -1;

    OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == np * (np - 1) / 2, "after %s: Allreduce gave %d", after, sum);
}

static void test_alias_blocking(void)
{
    int *own = &sbuf[me * N];

    if (me == 0) { /* the rooted ones: only the root sees both buffers */
        FAILS_NAMING(MPI_Gather(sbuf, N, MPI_INT, sbuf, N, MPI_INT, 0, MPI_COMM_WORLD),
                     MPI_ERR_BUFFER, "MPI_Gather");
        FAILS_NAMING(
            MPI_Gatherv(sbuf, N, MPI_INT, sbuf, counts, displs, MPI_INT, 0, MPI_COMM_WORLD),
            MPI_ERR_BUFFER, "MPI_Gatherv");
        FAILS_NAMING(MPI_Scatter(sbuf, N, MPI_INT, sbuf, N, MPI_INT, 0, MPI_COMM_WORLD),
                     MPI_ERR_BUFFER, "MPI_Scatter");
        FAILS_NAMING(
            MPI_Scatterv(sbuf, counts, displs, MPI_INT, sbuf, N, MPI_INT, 0, MPI_COMM_WORLD),
            MPI_ERR_BUFFER, "MPI_Scatterv");
        FAILS_NAMING(MPI_Reduce(sbuf, sbuf, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                     "MPI_Reduce");
    }
    still_usable("the rooted ones");
    /* at the root, MPI_IN_PLACE with the same recvbuf is right */
    OK(MPI_Reduce(me == 0 ? MPI_IN_PLACE : sbuf, sbuf, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    FAILS_NAMING(MPI_Allgather(own, N, MPI_INT, sbuf, N, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "MPI_Allgather");
    FAILS_NAMING(MPI_Allgatherv(own, N, MPI_INT, sbuf, counts, displs, MPI_INT, MPI_COMM_WORLD),
                 MPI_ERR_BUFFER, "MPI_Allgatherv");
    FAILS_NAMING(MPI_Alltoall(sbuf, N, MPI_INT, sbuf, N, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "MPI_Alltoall");
    FAILS_NAMING(
        MPI_Alltoallv(sbuf, counts, displs, MPI_INT, sbuf, counts, displs, MPI_INT, MPI_COMM_WORLD),
        MPI_ERR_BUFFER, "MPI_Alltoallv");
    FAILS_NAMING(
        MPI_Alltoallw(sbuf, counts, displs, types, sbuf, counts, displs, types, MPI_COMM_WORLD),
        MPI_ERR_BUFFER, "MPI_Alltoallw");
    FAILS_NAMING(MPI_Allreduce(sbuf, sbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "MPI_Allreduce");
    FAILS_NAMING(MPI_Reduce_scatter(sbuf, sbuf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                 MPI_ERR_BUFFER, "MPI_Reduce_scatter");
    FAILS_NAMING(MPI_Reduce_scatter_block(sbuf, sbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                 MPI_ERR_BUFFER, "MPI_Reduce_scatter_block");
    FAILS_NAMING(MPI_Scan(sbuf, sbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "MPI_Scan");
    FAILS_NAMING(MPI_Exscan(sbuf, sbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "MPI_Exscan");
    /* not aliased: another rank's block as the send buffer is only erroneous when the data
     * would land on it; a count of 0 moves nothing */
    OK(MPI_Allreduce(sbuf, sbuf, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    still_usable("the all-rank ones");
}

static void test_alias_nonblocking(void)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    int *own = &sbuf[me * N];

    if (me == 0) {
        FAILS_NAMING(MPI_Igather(sbuf, N, MPI_INT, sbuf, N, MPI_INT, 0, MPI_COMM_WORLD, &rq),
                     MPI_ERR_BUFFER, "MPI_Igather");
        FAILS_NAMING(
            MPI_Igatherv(sbuf, N, MPI_INT, sbuf, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, &rq),
            MPI_ERR_BUFFER, "MPI_Igatherv");
        FAILS_NAMING(MPI_Iscatter(sbuf, N, MPI_INT, sbuf, N, MPI_INT, 0, MPI_COMM_WORLD, &rq),
                     MPI_ERR_BUFFER, "MPI_Iscatter");
        FAILS_NAMING(
            MPI_Iscatterv(sbuf, counts, displs, MPI_INT, sbuf, N, MPI_INT, 0, MPI_COMM_WORLD, &rq),
            MPI_ERR_BUFFER, "MPI_Iscatterv");
        FAILS_NAMING(MPI_Ireduce(sbuf, sbuf, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &rq),
                     MPI_ERR_BUFFER, "MPI_Ireduce");
    }
    FAILS_NAMING(MPI_Iallgather(own, N, MPI_INT, sbuf, N, MPI_INT, MPI_COMM_WORLD, &rq),
                 MPI_ERR_BUFFER, "MPI_Iallgather");
    FAILS_NAMING(
        MPI_Iallgatherv(own, N, MPI_INT, sbuf, counts, displs, MPI_INT, MPI_COMM_WORLD, &rq),
        MPI_ERR_BUFFER, "MPI_Iallgatherv");
    FAILS_NAMING(MPI_Ialltoall(sbuf, N, MPI_INT, sbuf, N, MPI_INT, MPI_COMM_WORLD, &rq),
                 MPI_ERR_BUFFER, "MPI_Ialltoall");
    FAILS_NAMING(MPI_Ialltoallv(sbuf, counts, displs, MPI_INT, sbuf, counts, displs, MPI_INT,
                                MPI_COMM_WORLD, &rq),
                 MPI_ERR_BUFFER, "MPI_Ialltoallv");
    FAILS_NAMING(MPI_Ialltoallw(sbuf, counts, displs, types, sbuf, counts, displs, types,
                                MPI_COMM_WORLD, &rq),
                 MPI_ERR_BUFFER, "MPI_Ialltoallw");
    FAILS_NAMING(MPI_Iallreduce(sbuf, sbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq),
                 MPI_ERR_BUFFER, "MPI_Iallreduce");
    FAILS_NAMING(MPI_Ireduce_scatter(sbuf, sbuf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq),
                 MPI_ERR_BUFFER, "MPI_Ireduce_scatter");
    FAILS_NAMING(MPI_Ireduce_scatter_block(sbuf, sbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq),
                 MPI_ERR_BUFFER, "MPI_Ireduce_scatter_block");
    FAILS_NAMING(MPI_Iscan(sbuf, sbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq), MPI_ERR_BUFFER,
                 "MPI_Iscan");
    FAILS_NAMING(MPI_Iexscan(sbuf, sbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq), MPI_ERR_BUFFER,
                 "MPI_Iexscan");
    CHECK(rq == MPI_REQUEST_NULL, "a refused call left a request");
    still_usable("the nonblocking ones");
}

/* a persistent collective's arguments are checked at its init (as its nonblocking form checks
 * them, the init named), Alltoallv_init's too */
static void test_alias_persistent(void)
{
    MPI_Request rq = MPI_REQUEST_NULL;

    FAILS_NAMING(
        MPI_Allreduce_init(sbuf, sbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq),
        MPI_ERR_BUFFER, "MPI_Allreduce_init");
    CHECK(rq == MPI_REQUEST_NULL, "a refused init left a request");
    FAILS_NAMING(
        MPI_Alltoall_init(sbuf, N, MPI_INT, sbuf, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &rq),
        MPI_ERR_BUFFER, "MPI_Alltoall_init");
    CHECK(rq == MPI_REQUEST_NULL, "a refused init left a request");
    FAILS_NAMING(MPI_Alltoallv_init(sbuf, counts, displs, MPI_INT, sbuf, counts, displs, MPI_INT,
                                    MPI_COMM_WORLD, MPI_INFO_NULL, &rq),
                 MPI_ERR_BUFFER, "MPI_Alltoallv_init");
    CHECK(rq == MPI_REQUEST_NULL, "a refused init left a request");
    still_usable("the persistent ones");
}

/* correct programs the alias checks must not refuse: Alltoallv and Alltoallw from one base
 * buffer whose send and receive regions are kept apart by the displacements (checked data),
 * and a rank with nothing to move passing one dummy pointer twice */
static void test_alias_not(void)
{
    int *buf = calloc((size_t)np * N * 2, sizeof(int)), *rd = malloc((size_t)np * sizeof(int));
    int *bd = malloc((size_t)np * sizeof(int)), *zero = calloc((size_t)np, sizeof(int));
    int bad = 0, dummy = 0;

    for (int i = 0; i < np; i++) {
        for (int k = 0; k < N; k++) {
            buf[i * N + k] = me * 1000 + i * 10 + k; /* block i goes to rank i */
        }
        rd[i] = np * N + i * N;
        bd[i] = (int)(rd[i] * sizeof(int));
    }
    OK(MPI_Alltoallv(buf, counts, displs, MPI_INT, buf, counts, rd, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < np * N; i++) {
        bad += buf[np * N + i] != (i / N) * 1000 + me * 10 + i % N;
    }
    CHECK(bad == 0, "Alltoallv from one base buffer: %d wrong elements", bad);
    for (int i = 0; i < np; i++) {
        bd[i] = (int)(displs[i] * sizeof(int)), rd[i] = (int)((np * N + i * N) * sizeof(int));
    }
    OK(MPI_Alltoallw(buf, counts, bd, types, buf, counts, rd, types, MPI_COMM_WORLD));
    OK(MPI_Alltoallv(&dummy, zero, zero, MPI_INT, &dummy, zero, zero, MPI_INT, MPI_COMM_WORLD));
    free(buf);
    free(rd);
    free(bd);
    free(zero);
    still_usable("the correct shared-base exchanges");
}

/* an init refused at the root only (its aliased buffers): the others' requests work, and the
 * next init on the communicator stays in step with theirs (its duplicate agreed in the
 * background) */
static void test_init_root_only(void)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    int in = me + 1, out = -1;

    if (me == 0) {
        FAILS_NAMING(MPI_Gather_init(sbuf, N, MPI_INT, sbuf, N, MPI_INT, 0, MPI_COMM_WORLD,
                                     MPI_INFO_NULL, &rq),
                     MPI_ERR_BUFFER, "MPI_Gather_init");
        CHECK(rq == MPI_REQUEST_NULL, "a refused init left a request");
    } else {
        OK(MPI_Gather_init(sbuf, N, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &rq));
        OK(MPI_Request_free(&rq));
    }
    OK(MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    for (int round = 0; round < 3; round++) {
        out = -1;
        OK(MPI_Start(&rq));
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK(out == np * (np + 1) / 2, "round %d: Allreduce_init gave %d", round, out);
    }
    OK(MPI_Request_free(&rq));
    still_usable("an init refused at the root only");
}

static void test_reduce_local(void)
{
    int a[N] = {1, 2}, b[N] = {10, 20};

    FAILS_NAMING(MPI_Reduce_local(MPI_IN_PLACE, b, N, MPI_INT, MPI_SUM), MPI_ERR_BUFFER,
                 "MPI_Reduce_local");
    FAILS_NAMING(MPI_Reduce_local(a, MPI_IN_PLACE, N, MPI_INT, MPI_SUM), MPI_ERR_BUFFER,
                 "MPI_Reduce_local");
    FAILS_NAMING(MPI_Reduce_local(b, b, N, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, "MPI_Reduce_local");
    OK(MPI_Reduce_local(a, b, N, MPI_INT, MPI_SUM));
    CHECK(b[0] == 11 && b[1] == 22, "Reduce_local gave %d %d", b[0], b[1]);
}

/* Comm_dup's copy callback failing with the program's own class or code: Comm_dup returns it
 * as it is (the communicator's handler called with it) */
static int user_err;

static int copy_fails(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 1;
    return user_err;
}

static void test_user_codes(void)
{
    int cls, code, key, got = -1, v = 1;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Comm dup = MPI_COMM_NULL, dup2 = MPI_COMM_NULL;
    MPI_Request req = MPI_REQUEST_NULL;

    OK(MPI_Add_error_class(&cls));
    OK(MPI_Add_error_code(cls, &code));
    OK(MPI_Add_error_string(cls, "the class of mpi_errors_detect_test"));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_create_keyval(copy_fails, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    OK(MPI_Comm_set_attr(dup, key, &v));
    user_err = cls;
    got = MPI_Comm_dup(dup, &dup2);
    CHECK(got == cls && dup2 == MPI_COMM_NULL, "Comm_dup gave %d, the callback %d", got, cls);
    MPI_Error_string(got, msg, &v);
    CHECK(strcmp(msg, "the class of mpi_errors_detect_test") == 0, "its string: %s", msg);
    user_err = code;
    dup2 = MPI_COMM_SELF; /* a failed dup writes MPI_COMM_NULL, leaves no stale handle */
    got = MPI_Comm_dup(dup, &dup2);
    CHECK(got == code && dup2 == MPI_COMM_NULL, "Comm_dup gave %d (handle %#x), the callback %d",
          got, (unsigned)dup2, code);
    dup2 = MPI_COMM_SELF;
    got = MPI_Comm_idup(dup, &dup2, &req);
    CHECK(got == code && dup2 == MPI_COMM_NULL, "Comm_idup gave %d (handle %#x), the callback %d",
          got, (unsigned)dup2, code);
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_free_keyval(&key));
}

static void test_rma_sync(MPI_Win win, MPI_Group world)
{
    int got = -1, peer = (me + 1) % np;

    FAILS_NAMING(MPI_Get(&got, 1, MPI_INT, peer, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC, "MPI_Get");
    FAILS_NAMING(MPI_Put(&me, 1, MPI_INT, peer, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC, "MPI_Put");
    FAILS_NAMING(MPI_Win_unlock(peer, win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock");
    FAILS_NAMING(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "MPI_Win_complete");
    /* a fence's epoch ends at a lock: after the unlock no epoch is open */
    OK(MPI_Win_fence(0, win));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    FAILS_NAMING(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock");
    FAILS_NAMING(MPI_Win_start(world, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_start");
    FAILS_NAMING(MPI_Win_free(&win), MPI_ERR_RMA_SYNC, "MPI_Win_free");
    OK(MPI_Get(&got, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
    OK(MPI_Win_unlock(peer, win));
    CHECK(got == peer, "Get under the lock gave %d", got);
    FAILS_NAMING(MPI_Get(&got, 1, MPI_INT, peer, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC, "MPI_Get");
    OK(MPI_Win_fence(0, win));
    /* PSCW: a lock, a second start and a second complete inside or after it */
    OK(MPI_Win_post(world, 0, win));
    OK(MPI_Win_start(world, 0, win));
    OK(MPI_Get(&got, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
    FAILS_NAMING(MPI_Win_lock(MPI_LOCK_SHARED, peer, MPI_MODE_NOCHECK, win), MPI_ERR_RMA_SYNC,
                 "MPI_Win_lock");
    FAILS_NAMING(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock_all");
    FAILS_NAMING(MPI_Win_start(world, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_start");
    OK(MPI_Win_complete(win));
    FAILS_NAMING(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "MPI_Win_complete");
    OK(MPI_Win_wait(win));
    CHECK(got == peer, "Get in the PSCW epoch gave %d", got);
}

static void test_cas_types(MPI_Win win)
{
    int64_t v = 1, cmp = 0, res = -1;
    double d = 1, dc = 0, dr = 0;
    MPI_Datatype four;

    MPI_Type_contiguous(4, MPI_BYTE, &four);
    MPI_Type_commit(&four);
    OK(MPI_Win_fence(0, win));
    FAILS_NAMING(MPI_Compare_and_swap(&d, &dc, &dr, MPI_DOUBLE, me, 0, win), MPI_ERR_TYPE,
                 "MPI_Compare_and_swap");
    FAILS_NAMING(MPI_Compare_and_swap(&d, &dc, &dr, MPI_FLOAT, me, 0, win), MPI_ERR_TYPE,
                 "MPI_Compare_and_swap");
    FAILS_NAMING(MPI_Compare_and_swap(&v, &cmp, &res, four, me, 0, win), MPI_ERR_TYPE,
                 "MPI_Compare_and_swap");
    OK(MPI_Compare_and_swap(&v, &cmp, &res, MPI_INT64_T, me, 0, win));
    OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    FAILS_NAMING(MPI_Compare_and_swap(&v, &cmp, &res, MPI_INT64_T, me, 0, win), MPI_ERR_RMA_SYNC,
                 "MPI_Compare_and_swap");
    MPI_Type_free(&four);
}

static void test_rma(void)
{
    int64_t mem[2] = {0, 0};
    MPI_Win win;
    MPI_Group world;

    memcpy(mem, &me, sizeof(me)); /* the int at displacement 0 */
    OK(MPI_Win_create(mem, sizeof(mem), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    test_rma_sync(win, world);
    test_barrier(MPI_COMM_WORLD);
    test_cas_types(win);
    OK(MPI_Win_free(&win));
    MPI_Group_free(&world);
    still_usable("the RMA misuse");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    sbuf = calloc((size_t)np * N, sizeof(int));
    counts = malloc((size_t)np * sizeof(int));
    displs = malloc((size_t)np * sizeof(int));
    types = malloc((size_t)np * sizeof(MPI_Datatype));
    for (int i = 0; i < np; i++) {
        counts[i] = N;
        displs[i] = i * N;
        types[i] = MPI_INT;
    }
    phases_expected = 9;
    test_alias_blocking();
    phase("aliased buffers in the blocking collectives: MPI_ERR_BUFFER");
    test_alias_nonblocking();
    phase("aliased buffers in the nonblocking collectives: MPI_ERR_BUFFER");
    test_alias_persistent();
    phase("aliased buffers in the persistent collectives' inits (Alltoallv_init: start): "
          "MPI_ERR_BUFFER");
    test_alias_not();
    phase("correct exchanges from one base buffer: not refused, data checked");
    test_init_root_only();
    phase("an init refused at the root only: the next init in step, checked");
    test_reduce_local();
    phase("Reduce_local with MPI_IN_PLACE or aliased buffers: MPI_ERR_BUFFER");
    test_user_codes();
    phase("a copy callback's own error class or code: returned by Comm_dup and Comm_idup as it is, "
          "newcomm MPI_COMM_NULL");
    test_rma();
    phase("RMA outside an epoch, mixed or repeated epochs: MPI_ERR_RMA_SYNC");
    still_usable("everything");
    phase("MPI_COMM_WORLD usable after every refused call");
    free(sbuf);
    free(counts);
    free(displs);
    free(types);
    MPI_Finalize();
    return summary();
}
