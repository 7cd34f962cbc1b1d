/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI environment, errors and communicators over rcmsg, on any number of ranks.
 * With an argument: "fatal" makes an invalid call under MPI_ERRORS_ARE_FATAL (the process
 * must exit 1 naming the call), "abort" calls MPI_Abort(MPI_COMM_WORLD, 3), "notes" makes
 * more errors than there are note numbers and checks that an old code never gives another
 * error's message.
 */
#include "mpi_test.h"

#include <stdlib.h>

static int handler_calls, handler_code;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

static void test_env(void)
{
    int flag = 0, v, sv, len, *attr;
    char name[MPI_MAX_PROCESSOR_NAME], lib[MPI_MAX_LIBRARY_VERSION_STRING];
    double t0 = MPI_Wtime(), t1, tick = MPI_Wtick();

    OK(MPI_Initialized(&flag));
    CHECK(flag == 1, "Initialized %d", flag);
    OK(MPI_Finalized(&flag));
    CHECK(flag == 0, "Finalized %d before Finalize", flag);
    OK(MPI_Query_thread(&v));
    CHECK(v == MPI_THREAD_MULTIPLE, "Query_thread %d", v);
    OK(MPI_Is_thread_main(&flag));
    CHECK(flag == 1, "Is_thread_main %d", flag);
    t1 = MPI_Wtime();
    CHECK(t1 >= t0 && tick > 0 && tick < 0.01, "Wtime %f %f, Wtick %g", t0, t1, tick);
    OK(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && (int)strlen(name) == len, "processor name '%s' %d", name, len);
    OK(MPI_Get_version(&v, &sv));
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION, "version %d.%d", v, sv);
    OK(MPI_Get_library_version(lib, &len));
    CHECK(strstr(lib, "rcmsg") != NULL && (int)strlen(lib) == len, "library '%s'", lib);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag));
    CHECK(flag && *attr >= 32767, "MPI_TAG_UB %d", flag ? *attr : -1);
    OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_HOST, &attr, &flag));
    CHECK(flag && *attr == MPI_PROC_NULL, "MPI_HOST");
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &attr, &flag));
    CHECK(flag && *attr == MPI_ANY_SOURCE, "MPI_IO");
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &attr, &flag));
    CHECK(flag && *attr == 0, "MPI_WTIME_IS_GLOBAL");
    /* the largest tag works */
    {
        int tub, out = me, in = -1;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag);
        tub = *attr;
        OK(MPI_Sendrecv(&out, 1, MPI_INT, me, tub, &in, 1, MPI_INT, me, tub, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        CHECK(in == me, "a message with tag MPI_TAG_UB");
    }
}

/* code failed with class cls and its string names the specific reason (issue 38 item 12) */
static void expect_reason(int code, int cls, const char *what, const char *reason)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0, got = -1;

    CHECK(MPI_Error_class(code, &got) == MPI_SUCCESS && got == cls, "%s: class %d, not %d", what,
          got, cls);
    CHECK(MPI_Error_string(code, text, &len) == MPI_SUCCESS && strstr(text, reason) != NULL &&
              (int)strlen(text) == len,
          "%s: string '%s' does not say '%s'", what, text, reason);
}

/* With ERRORS_RETURN, Error_string of a returned code gives what the fatal handler prints:
 * the call and the specific problem, not only the class; Error_class gives the class. */
static void test_error_strings(void)
{
    int out[10] = {0}, in[10];
    char bad_rank[32];
    MPI_Request reqs[2];
    MPI_Status st[2];
    MPI_Datatype vec;

    snprintf(bad_rank, sizeof(bad_rank), "invalid rank %d", np + 7);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect_reason(MPI_Send(out, -1, MPI_INT, 0, 1, MPI_COMM_WORLD), MPI_ERR_COUNT, "count",
                  "MPI_Send: negative count -1");
    expect_reason(MPI_Send(out, 1, MPI_INT, np + 7, 1, MPI_COMM_WORLD), MPI_ERR_RANK, "rank",
                  bad_rank);
    expect_reason(MPI_Recv(in, 1, MPI_INT, 0, -3, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TAG,
                  "tag", "MPI_Recv: invalid tag -3");
    expect_reason(MPI_Send(out, 1, MPI_DATATYPE_NULL, 0, 1, MPI_COMM_WORLD), MPI_ERR_TYPE, "type",
                  "MPI_Send: MPI_DATATYPE_NULL is not a datatype");
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec); /* not committed */
    expect_reason(MPI_Send(out, 1, vec, 0, 1, MPI_COMM_WORLD), MPI_ERR_TYPE, "uncommitted",
                  "is not committed");
    MPI_Type_free(&vec);
    /* truncation: 10 ints into a buffer of 5, blocking and through a request */
    OK(MPI_Isend(out, 10, MPI_INT, me, 7, MPI_COMM_WORLD, &reqs[0]));
    st[0].MPI_ERROR = 12345; /* a single status's error field is left (MPI-3.1 3.2.5) */
    expect_reason(MPI_Recv(in, 5, MPI_INT, me, 7, MPI_COMM_WORLD, &st[0]), MPI_ERR_TRUNCATE,
                  "Recv truncation", "receive buffer of 20 byte(s)");
    CHECK(st[0].MPI_ERROR == 12345, "Recv changed its status's error field: %d", st[0].MPI_ERROR);
    OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
    OK(MPI_Isend(out, 10, MPI_INT, me, 8, MPI_COMM_WORLD, &reqs[0]));
    OK(MPI_Irecv(in, 3, MPI_INT, me, 8, MPI_COMM_WORLD, &reqs[1]));
    expect_reason(MPI_Waitall(2, reqs, st), MPI_ERR_IN_STATUS, "Waitall", "MPI_Waitall");
    expect_reason(st[1].MPI_ERROR, MPI_ERR_TRUNCATE, "Waitall status",
                  "receive buffer of 12 byte(s)");
    OK(MPI_Isend(out, 10, MPI_INT, me, 9, MPI_COMM_WORLD, &reqs[0]));
    OK(MPI_Irecv(in, 4, MPI_INT, me, 9, MPI_COMM_WORLD, &reqs[1]));
    expect_reason(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE, "Wait truncation",
                  "MPI_Wait: message truncated");
    OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_errors(void)
{
    char text[MPI_MAX_ERROR_STRING];
    int len, cls, code, x = 0;
    MPI_Errhandler eh, got;
    MPI_Comm dup;

    for (int c = MPI_SUCCESS; c <= MPI_ERR_PROC_ABORTED; c++) {
        OK(MPI_Error_class(c, &cls));
        OK(MPI_Error_string(c, text, &len));
        CHECK(cls == c && len > 0 && (int)strlen(text) == len, "class %d: '%s'", c, text);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got == MPI_ERRORS_RETURN, "get_errhandler %d", got);
    FAILS(MPI_Comm_get_attr(MPI_COMM_WORLD, 999, &text, &x), MPI_ERR_KEYVAL);
    FAILS(MPI_Error_class(-4, &cls), MPI_ERR_ARG);
    FAILS(MPI_Comm_rank(MPI_COMM_NULL, &x), MPI_ERR_COMM);
    FAILS(MPI_Comm_rank(MPI_COMM_WORLD, NULL), MPI_ERR_ARG); /* an error, not a crash */
    FAILS(MPI_Comm_size(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    FAILS(MPI_Group_size(MPI_GROUP_EMPTY, NULL), MPI_ERR_ARG);
    FAILS(MPI_Group_rank(MPI_GROUP_EMPTY, NULL), MPI_ERR_ARG);
    FAILS(MPI_Comm_free(&(MPI_Comm){MPI_COMM_WORLD}), MPI_ERR_COMM);
    /* a user handler on a dup; the dup inherits ERRORS_RETURN from the world first */
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_get_errhandler(dup, &got));
    CHECK(got == MPI_ERRORS_RETURN, "dup did not inherit the handler: %d", got);
    OK(MPI_Comm_create_errhandler(my_handler, &eh));
    OK(MPI_Comm_set_errhandler(dup, eh));
    OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free");
    code = MPI_Send(&x, 1, MPI_INT, np + 3, 0, dup);
    MPI_Error_class(code, &cls);
    CHECK(handler_calls == 1 && handler_code == code && cls == MPI_ERR_RANK,
          "user handler: %d calls, code %d, class %d", handler_calls, handler_code, cls);
    OK(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "Comm_call_errhandler");
    OK(MPI_Comm_free(&dup));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_comms(void)
{
    MPI_Comm dup, half, rev, none, self = MPI_COMM_SELF;
    int r, n, res, len, v, got;
    char name[MPI_MAX_OBJECT_NAME];

    OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world name '%s'", name);
    OK(MPI_Comm_size(self, &n));
    OK(MPI_Comm_rank(self, &r));
    CHECK(n == 1 && r == 0, "COMM_SELF: %d of %d", r, n);
    v = me;
    OK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &got, 1, MPI_INT, 0, 1, self, MPI_STATUS_IGNORE));
    CHECK(got == me, "a message over COMM_SELF");

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_compare(dup, dup, &res));
    CHECK(res == MPI_IDENT, "compare(dup, dup) %d", res);
    OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res));
    CHECK(res == MPI_CONGRUENT, "compare(world, dup) %d", res);
    OK(MPI_Comm_set_name(dup, "my dup"));
    OK(MPI_Comm_get_name(dup, name, &len));
    CHECK(strcmp(name, "my dup") == 0, "dup name '%s'", name);
    /* the dup is its own matching space: the world's message does not match there */
    {
        MPI_Request rq[2];
        int a = 1, b = 2, ga = 0, gb = 0, right = (me + 1) % np, left = (me + np - 1) % np;
        OK(MPI_Irecv(&gb, 1, MPI_INT, left, 7, dup, &rq[0]));
        OK(MPI_Irecv(&ga, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &rq[1]));
        OK(MPI_Send(&a, 1, MPI_INT, right, 7, MPI_COMM_WORLD));
        OK(MPI_Send(&b, 1, MPI_INT, right, 7, dup));
        OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        CHECK(ga == 1 && gb == 2, "world and dup mixed: %d %d", ga, gb);
    }
    /* split by parity, ranked by descending world rank */
    OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half));
    OK(MPI_Comm_size(half, &n));
    OK(MPI_Comm_rank(half, &r));
    CHECK(n == (np + 1 - me % 2) / 2 && r == n - 1 - me / 2, "split: rank %d of %d", r, n);
    OK(MPI_Comm_compare(half, MPI_COMM_WORLD, &res));
    CHECK(res == (np == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare(half, world) %d", res);
    /* one color, reversed: the same members in another order */
    OK(MPI_Comm_split(MPI_COMM_WORLD, 0, np - me, &rev));
    OK(MPI_Comm_compare(rev, MPI_COMM_WORLD, &res));
    CHECK(res == (np == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "compare(reversed, world) %d", res);
    OK(MPI_Comm_rank(rev, &r));
    CHECK(r == np - 1 - me, "reversed rank %d", r);
    OK(MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? 0 : MPI_UNDEFINED, 0, &none));
    CHECK((me == 0) == (none != MPI_COMM_NULL), "split with MPI_UNDEFINED");
    if (none != MPI_COMM_NULL) {
        OK(MPI_Comm_free(&none));
    }
    OK(MPI_Comm_free(&rev));
    OK(MPI_Comm_free(&half));
    OK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "Comm_free left the handle");
}

/* Error codes name their specific message by a number (issue 38 item 12): after more errors
 * than there are numbers, an old code gives its class's text, never a newer error's message,
 * and every code stays valid. */
static int test_error_notes(void)
{
    char text[MPI_MAX_ERROR_STRING];
    int out = 0, first, code, cls, len;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    first = MPI_Send(&out, -1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    expect_reason(first, MPI_ERR_COUNT, "first", "MPI_Send: negative count -1");
    for (int i = 2; i < 300000; i++) { /* more than the 2^31 / 8192 that codes can number */
        code = MPI_Send(&out, -i, MPI_INT, 0, 1, MPI_COMM_WORLD);
        cls = -1;
        if (MPI_Error_class(code, &cls) != MPI_SUCCESS || cls != MPI_ERR_COUNT) {
            CHECK(0, "error %d: code %d of class %d", i, code, cls);
            break;
        }
        MPI_Error_string(first, text, &len);
        if (strstr(text, "negative count") != NULL && strstr(text, "count -1 (") == NULL) {
            CHECK(0, "after %d errors the first code's string is another error's: '%s'", i, text);
            break;
        }
    }
    expect_reason(first, MPI_ERR_COUNT, "the first code at the end", "invalid count");
    printf("rank %d: the first code's string at the end: '%s'\n", me,
           (MPI_Error_string(first, text, &len), text));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Finalize();
    return summary();
}

int main(int argc, char **argv)
{
    int flag = 1, provided = -1;

    MPI_Initialized(&flag);
    CHECK(flag == 0, "Initialized before Init: %d", flag);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(provided == MPI_THREAD_MULTIPLE, "Init_thread(MULTIPLE) provided %d", provided);
    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        int x = 0;
        MPI_Send(&x, 1, MPI_INT, np + 5, 0, MPI_COMM_WORLD);
        printf("FAIL: an invalid rank under MPI_ERRORS_ARE_FATAL returned\n");
        return 2;
    }
    if (argc > 1 && strcmp(argv[1], "abort") == 0) {
        MPI_Abort(MPI_COMM_WORLD, 3);
        printf("FAIL: MPI_Abort returned\n");
        return 2;
    }
    if (argc > 1 && strcmp(argv[1], "notes") == 0) {
        return test_error_notes();
    }
    phases_expected = 3;
    test_env();
    phase("Init_thread, Initialized, Query_thread, Wtime, Wtick, names, versions, attributes");
    test_errors();
    test_error_strings();
    phase("error classes and strings, ERRORS_RETURN, user error handlers");
    test_comms();
    phase("COMM_SELF, Comm_dup, Comm_split, Comm_compare, Comm_set/get_name, Comm_free");
    MPI_Finalize();
    MPI_Finalized(&flag);
    CHECK(flag == 1, "Finalized after Finalize: %d", flag);
    return summary();
}
