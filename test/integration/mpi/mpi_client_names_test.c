/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The names Python's mpi4py declares beyond the rest of the subset (mpi.h's block of them;
 * contrib/mpi-clients/mpi4py-tests.sh lists them): attributes of the program's keyvals on
 * windows (MPI-3.1 6.7.3: set, get, delete, the delete callback on a value set over, on
 * Win_delete_attr and on Win_free, given the window; a datatype's keyval is no window's),
 * window info (11.2.7: the hints with their values), the program's window error handlers (8.3.2:
 * called with the window and the error's class by an error and by Win_call_errhandler), the
 * request-based Rput, Rget, Raccumulate and Rget_accumulate in lock epochs (11.3.5), Win_c2f / f2c,
 * Pcontrol, MPI_F_STATUS_IGNORE refused by Status_c2f, the C++ types in a reduction, and the
 * program's error classes above MPI_ERR_LASTCODE with MPI_LASTUSEDCODE the last one (8.5), and
 * MPI_Abort of MPI_COMM_NULL refused (MPI_ERR_COMM).
 */
#include "mpi_test.h"

#include <complex.h>
#include <stdbool.h>

static int deletes;     /* delete callback calls */
static MPI_Win del_win; /* the window the last one was given */
static void *del_val;   /* and its value */
static int del_keyval;  /* and its keyval */
static int del_extra;   /* the extra state it got */

static int on_delete(MPI_Win win, int keyval, void *val, void *extra)
{
    deletes++;
    del_win = win;
    del_val = val;
    del_keyval = keyval;
    del_extra = *(int *)extra;
    return MPI_SUCCESS;
}

static void test_attrs(void)
{
    static int extra = 7;
    int buf[4], a = 1, b = 2, k1, k2, tk, flag = -1, *p = NULL;
    MPI_Win win;
    void *base;

    OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, on_delete, &k1, &extra));
    OK(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &k2, NULL));
    OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tk, NULL));
    OK(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    OK(MPI_Win_get_attr(win, k1, &p, &flag));
    CHECK(flag == 0, "an attribute never set is absent (flag %d)", flag);
    OK(MPI_Win_set_attr(win, k1, &a));
    OK(MPI_Win_set_attr(win, k2, &b));
    OK(MPI_Win_get_attr(win, k1, &p, &flag));
    CHECK(flag == 1 && p == &a, "k1's value (flag %d)", flag);
    OK(MPI_Win_set_attr(win, k1, &b)); /* over &a: its delete callback runs */
    CHECK(deletes == 1 && del_win == win && del_val == &a && del_keyval == k1 && del_extra == 7,
          "the delete callback of a value set over (%d calls)", deletes);
    OK(MPI_Win_get_attr(win, k1, &p, &flag));
    CHECK(flag == 1 && p == &b, "k1's new value");
    OK(MPI_Win_delete_attr(win, k2));
    OK(MPI_Win_get_attr(win, k2, &p, &flag));
    CHECK(flag == 0, "k2 deleted");
    FAILS(MPI_Win_delete_attr(win, k2), MPI_ERR_KEYVAL);
    FAILS(MPI_Win_set_attr(win, tk, &a), MPI_ERR_KEYVAL); /* a datatype's keyval */
    FAILS(MPI_Win_get_attr(win, tk, &p, &flag), MPI_ERR_KEYVAL);
    FAILS(MPI_Type_set_attr(MPI_INT, k1, &a), MPI_ERR_KEYVAL); /* a window's on a type */
    OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
    CHECK(flag == 1 && base == buf, "the predefined attributes still there");
    OK(MPI_Win_free_keyval(&k2));
    CHECK(k2 == MPI_KEYVAL_INVALID, "Win_free_keyval sets MPI_KEYVAL_INVALID");
    deletes = 0;
    OK(MPI_Win_free(&win)); /* k1's value still set: deleted with the window */
    CHECK(deletes == 1 && del_val == &b && del_keyval == k1, "Win_free deletes (%d calls)",
          deletes);
    OK(MPI_Win_free_keyval(&k1));
    OK(MPI_Type_free_keyval(&tk));
}

static void test_info(void)
{
    int *mem = NULL, nkeys = -1, flag = 0;
    char val[MPI_MAX_INFO_VAL + 1] = "";
    MPI_Win win;
    MPI_Info info, used;

    OK(MPI_Win_allocate(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "no_locks", "true"));
    OK(MPI_Win_set_info(win, info));
    OK(MPI_Win_get_info(win, &used));
    OK(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys == 5, "the window's 5 hints: %d keys", nkeys);
    OK(MPI_Info_get(used, "no_locks", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, "true") == 0, "no_locks as set (flag %d, \"%s\")", flag, val);
    OK(MPI_Info_free(&used));
    OK(MPI_Info_free(&info));
    FAILS(MPI_Win_set_info(win, MPI_INFO_NULL), MPI_ERR_INFO);
    FAILS(MPI_Win_get_info(win, NULL), MPI_ERR_ARG);
    OK(MPI_Win_free(&win));
}

static int handled;        /* handler calls */
static MPI_Win handled_on; /* the window the last one was given */
static int handled_class;  /* and its error's class */

static void on_error(MPI_Win *win, int *code, ...)
{
    handled++;
    handled_on = *win;
    MPI_Error_class(*code, &handled_class);
}

static void test_errhandler(void)
{
    int buf[2], v = 0;
    MPI_Win win;
    MPI_Errhandler eh, got;

    OK(MPI_Win_create_errhandler(on_error, &eh));
    OK(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_set_errhandler(win, eh));
    OK(MPI_Errhandler_free(&eh)); /* the window keeps it */
    OK(MPI_Win_get_errhandler(win, &got));
    OK(MPI_Win_fence(0, win));
    CHECK(MPI_Get(&v, 1, MPI_INT, np, 0, 1, MPI_INT, win) != MPI_SUCCESS, "a rank past the group");
    CHECK(handled == 1 && handled_on == win && handled_class == MPI_ERR_RANK,
          "the handler: %d calls, class %d", handled, handled_class);
    OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(handled == 2 && handled_on == win && handled_class == MPI_ERR_OTHER,
          "Win_call_errhandler: %d calls, class %d", handled, handled_class);
    OK(MPI_Win_fence(0, win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    OK(MPI_Errhandler_free(&got));
    FAILS(MPI_Win_set_errhandler(win, MPI_ERRHANDLER_NULL), MPI_ERR_ARG);
    OK(MPI_Win_free(&win));
}

/* each rank puts into its right neighbour, gets it back, and adds to a counter on rank 0 */
static void test_requests(void)
{
    int *mem = NULL, v = 100 + me, got = -1, one = 1, before = -1, flag = 0;
    MPI_Win win;
    MPI_Request r[2];
    int right = (me + 1) % np, left = (me + np - 1) % np;

    OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    FAILS(MPI_Rput(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win, &r[0]), MPI_ERR_RMA_SYNC);
    mem[0] = mem[1] = mem[2] = mem[3] = 0;
    test_barrier(MPI_COMM_WORLD);
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Rput(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win, &r[0]));
    OK(MPI_Raccumulate(&one, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win, &r[1]));
    OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, "the requests released");
    OK(MPI_Rget(&got, 1, MPI_INT, right, 0, 1, MPI_INT, win, &r[0]));
    OK(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
    CHECK(flag && got == v, "Rget of what this rank put: %d (flag %d)", got, flag);
    OK(MPI_Rget_accumulate(&one, 1, MPI_INT, &before, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, win,
                           &r[0]));
    OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK(before >= 0 && before < np, "Rget_accumulate's old value %d", before);
    OK(MPI_Rput(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &r[0]));
    OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    OK(MPI_Win_unlock_all(win));
    OK(MPI_Win_fence(0, win));
    CHECK(mem[0] == 100 + left, "from the left neighbour: %d", mem[0]);
    CHECK(me != 0 || (mem[1] == np && mem[2] == np), "the counters on rank 0: %d %d", mem[1],
          mem[2]);
    OK(MPI_Win_free(&win));
}

static void test_error_classes(void)
{
    int cls, cls2, code, got = -1, *last = NULL, flag = 0, len = -1;
    char text[MPI_MAX_ERROR_STRING];

    OK(MPI_Add_error_class(&cls));
    CHECK(cls > MPI_ERR_LASTCODE, "an added class %d above MPI_ERR_LASTCODE", cls);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last == cls, "MPI_LASTUSEDCODE %d, the class added %d", *last, cls);
    OK(MPI_Error_string(cls, text, &len));
    CHECK(len == 0, "a new class's string is empty (%d)", len);
    OK(MPI_Add_error_code(cls, &code));
    OK(MPI_Error_class(code, &got));
    CHECK(got == cls, "the class of an added code: %d", got);
    OK(MPI_Add_error_string(code, "code of an added class"));
    OK(MPI_Error_string(code, text, &len));
    CHECK(strcmp(text, "code of an added class") == 0, "the code's string '%s'", text);
    OK(MPI_Error_class(cls, &got));
    CHECK(got == cls, "Error_class of the class itself: %d", got);
    OK(MPI_Add_error_class(&cls2));
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(cls2 > cls && *last == cls2, "a second class %d, MPI_LASTUSEDCODE %d", cls2, *last);
    FAILS(MPI_Add_error_code(MPI_ERR_LASTCODE, &code), MPI_ERR_ARG);
    /* MPI_Abort of no communicator is an error, not the job's end (as MPICH) */
    FAILS(MPI_Abort(MPI_COMM_NULL, 3), MPI_ERR_COMM);
}

static void test_names(void)
{
    int buf[2], size = 0;
    MPI_Win win;
    MPI_Status st;
    MPI_Fint f[8];
    bool mine = me % 2 == 0, any = false;
    double complex z = me + 1.0 * I, sum = 0;

    OK(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK(MPI_Win_f2c(MPI_Win_c2f(win)) == win, "Win_c2f / f2c");
    CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "MPI_WIN_NULL converted");
    OK(MPI_Win_free(&win));
    OK(MPI_Pcontrol(0));
    OK(MPI_Pcontrol(1));
    OK(MPI_Pcontrol(2, "a level's own arguments"));
    memset(&st, 0, sizeof(st));
    FAILS(MPI_Status_c2f(&st, MPI_F_STATUS_IGNORE), MPI_ERR_ARG);
    FAILS(MPI_Status_f2c(MPI_F_STATUSES_IGNORE, &st), MPI_ERR_ARG);
    OK(MPI_Status_c2f(&st, f));
    OK(MPI_Type_size(MPI_CXX_DOUBLE_COMPLEX, &size));
    CHECK(size == (int)sizeof(double complex), "MPI_CXX_DOUBLE_COMPLEX: %d bytes", size);
    OK(MPI_Type_size(MPI_CXX_BOOL, &size));
    CHECK(size == (int)sizeof(bool), "MPI_CXX_BOOL: %d bytes", size);
    OK(MPI_Allreduce(&mine, &any, 1, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(any, "LOR of MPI_CXX_BOOL");
    OK(MPI_Allreduce(&z, &sum, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    CHECK(creal(sum) == np * (np - 1) / 2 && cimag(sum) == np, "SUM of MPI_CXX_DOUBLE_COMPLEX");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    phases_expected = 6;
    test_attrs();
    phase("attributes of windows");
    test_info();
    phase("window info");
    test_errhandler();
    phase("window error handlers");
    test_requests();
    phase("Rput, Rget, Raccumulate, Rget_accumulate");
    test_error_classes();
    phase("the program's error classes");
    test_names();
    phase("Win_c2f / f2c, Pcontrol, MPI_F_STATUS_IGNORE, C++ types");
    MPI_Finalize();
    return summary();
}
