/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Attributes on windows (MPI-3.1 6.7.3): Win_create_keyval with MPI_WIN_NULL_COPY_FN /
 * MPI_WIN_NULL_DELETE_FN and with a delete callback of the program's; Win_set_attr,
 * Win_get_attr (the value, then flag 0 once deleted), setting over a value calls the delete
 * callback on the old one, Win_delete_attr calls it, Win_free calls it for what is left; the
 * predefined attributes still answer beside them; Win_free_keyval; errors: a freed keyval, a
 * datatype's keyval on a window, deleting an attribute not set (MPI_ERR_KEYVAL).
 * A window error handler of the program's (Win_create_errhandler): called with the window and
 * the code by a failing call (a Put to a rank outside the window) and by Win_call_errhandler;
 * Win_get_errhandler gives it back.
 */
#include "mpi_test.h"

#include <stdint.h>

static int deleted[4], last_win_ok;

static int on_delete(MPI_Win win, int keyval, void *val, void *extra)
{
    (void)keyval;
    last_win_ok = win != MPI_WIN_NULL && extra == (void *)deleted;
    if ((intptr_t)val >= 0 && (intptr_t)val < 4) {
        deleted[(intptr_t)val]++;
    }
    return MPI_SUCCESS;
}

static void test_attrs(void)
{
    int buf[4], k_null, k_del, k_type, flag = 0, *du;
    void *v = NULL;
    MPI_Win win;

    OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &k_null, NULL));
    OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, on_delete, &k_del, deleted));
    OK(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    OK(MPI_Win_get_attr(win, k_null, &v, &flag));
    CHECK(!flag, "an attribute not set: flag %d", flag);
    OK(MPI_Win_set_attr(win, k_null, (void *)(intptr_t)42));
    OK(MPI_Win_get_attr(win, k_null, &v, &flag));
    CHECK(flag && v == (void *)(intptr_t)42, "Win_get_attr: flag %d, value %p", flag, v);
    OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
    CHECK(flag && *du == (int)sizeof(int), "MPI_WIN_DISP_UNIT beside the program's attributes");
    OK(MPI_Win_set_attr(win, k_del, (void *)(intptr_t)1));
    OK(MPI_Win_set_attr(win, k_del, (void *)(intptr_t)2)); /* deletes 1 */
    CHECK(deleted[1] == 1 && last_win_ok, "set over a value: delete callback %d", deleted[1]);
    OK(MPI_Win_delete_attr(win, k_del)); /* deletes 2 */
    CHECK(deleted[2] == 1, "Win_delete_attr: delete callback %d", deleted[2]);
    OK(MPI_Win_get_attr(win, k_del, &v, &flag));
    CHECK(!flag, "deleted: flag %d", flag);
    FAILS(MPI_Win_delete_attr(win, k_del), MPI_ERR_KEYVAL);
    OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &k_type, NULL));
    FAILS(MPI_Win_set_attr(win, k_type, NULL), MPI_ERR_KEYVAL);
    OK(MPI_Type_free_keyval(&k_type));
    OK(MPI_Win_set_attr(win, k_del, (void *)(intptr_t)3));
    OK(MPI_Win_free_keyval(&k_del)); /* the attribute keeps it alive until Win_free */
    CHECK(k_del == MPI_KEYVAL_INVALID, "Win_free_keyval sets MPI_KEYVAL_INVALID");
    OK(MPI_Win_free(&win));
    CHECK(deleted[3] == 1, "Win_free: delete callback %d", deleted[3]);
    OK(MPI_Win_free_keyval(&k_null));
}

static MPI_Win seen_win = MPI_WIN_NULL;
static int seen_code, seen_calls;

static void on_error(MPI_Win *win, int *code, ...)
{
    seen_win = *win;
    seen_code = *code;
    seen_calls++;
}

static void test_errhandler(void)
{
    int buf[4], v = 1, cls = -1;
    MPI_Win win;
    MPI_Errhandler eh, got;

    OK(MPI_Win_create_errhandler(on_error, &eh));
    OK(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_set_errhandler(win, eh));
    OK(MPI_Win_get_errhandler(win, &got));
    CHECK(got == eh, "Win_get_errhandler gives the program's handler");
    OK(MPI_Win_fence(0, win));
    CHECK(MPI_Put(&v, 1, MPI_INT, np, 0, 1, MPI_INT, win) != MPI_SUCCESS, "Put to rank np");
    MPI_Error_class(seen_code, &cls);
    CHECK(seen_calls == 1 && seen_win == win && cls == MPI_ERR_RANK,
          "handler: %d call(s), window %d (expected %d), class %d", seen_calls, seen_win, win, cls);
    OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(seen_calls == 2 && seen_code == MPI_ERR_OTHER, "Win_call_errhandler: code %d", seen_code);
    OK(MPI_Win_fence(0, win));
    OK(MPI_Errhandler_free(&got));
    OK(MPI_Errhandler_free(&eh));
    OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    phases_expected = 2;
    test_attrs();
    phase("window keyvals, Win_set/get/delete_attr, delete callbacks, Win_free, errors");
    test_errhandler();
    phase("Win_create_errhandler: called with the window by a failing call and by call_errhandler");
    MPI_Finalize();
    return summary();
}
