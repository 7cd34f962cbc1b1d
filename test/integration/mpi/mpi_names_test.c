/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The names of issue 43 item 1, checked against MPI-3.1 on any number of ranks: predefined
 * attributes, the program's error classes and codes, info objects (and MPI_INFO_ENV, info on
 * communicators), type envelopes and contents of every constructor, type names and attributes,
 * darray and subarray layouts (data sent through them), generalized requests and their callbacks,
 * the status setters, Alloc_mem, address arithmetic, handle conversions (and their PMPI_ names)
 * and the deprecated names.
 */
#include "mpi_test.h"

#include <stddef.h>
#include <stdlib.h>

static void test_attrs(void)
{
    int *v, flag, last;
    MPI_Comm d;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
    CHECK(flag && *v == np, "MPI_UNIVERSE_SIZE %d (flag %d), expected %d", flag ? *v : -1, flag,
          np);
    OK(MPI_Comm_get_attr(d, MPI_APPNUM, &v, &flag));
    CHECK(flag && *v == 0, "MPI_APPNUM flag %d", flag);
    OK(MPI_Attr_get(d, MPI_TAG_UB, &v, &flag));
    CHECK(flag && *v >= 32767, "MPI_TAG_UB %d", flag ? *v : -1);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag));
    CHECK(flag && (*v == 0 || *v == 1), "MPI_WTIME_IS_GLOBAL");
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag));
    CHECK(flag && *v == MPI_PROC_NULL, "MPI_HOST");
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag));
    CHECK(flag && *v == MPI_ANY_SOURCE, "MPI_IO");
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    last = flag ? *v : -1;
    CHECK(flag && last >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d", last);
    /* predefined keys cannot be set or deleted */
    FAILS(MPI_Comm_set_attr(d, MPI_UNIVERSE_SIZE, NULL), MPI_ERR_KEYVAL);
    OK(MPI_Comm_free(&d));
}

static void test_errors(void)
{
    int cls, code, code2, c, len, *last, flag;
    char s[MPI_MAX_ERROR_STRING];

    OK(MPI_Add_error_class(&cls));
    CHECK(cls > MPI_ERR_INFO, "new class %d", cls);
    OK(MPI_Add_error_code(cls, &code));
    OK(MPI_Add_error_code(cls, &code2));
    CHECK(code != cls && code2 != code, "codes %d %d of class %d", code, code2, cls);
    OK(MPI_Error_class(code, &c));
    CHECK(c == cls, "class of code %d: %d", code, c);
    OK(MPI_Error_string(code, s, &len));
    CHECK(len == 0 && s[0] == '\0', "no string set: \"%s\"", s);
    OK(MPI_Add_error_string(code, "rcmsg test code"));
    OK(MPI_Add_error_string(cls, "rcmsg test class"));
    OK(MPI_Error_string(code, s, &len));
    CHECK(strcmp(s, "rcmsg test code") == 0 && len == 15, "string \"%s\" (%d)", s, len);
    OK(MPI_Error_string(cls, s, &len));
    CHECK(strcmp(s, "rcmsg test class") == 0, "class string \"%s\"", s);
    OK(MPI_Error_string(code2, s, &len));
    CHECK(len == 0, "code2's string \"%s\"", s);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= code2 && *last >= cls, "MPI_LASTUSEDCODE %d < %d", *last, code2);
    /* a predefined class takes codes (MPI-4.0 9.5: any class but MPI_SUCCESS), their strings
     * the program's; a predefined code or class no string */
    OK(MPI_Add_error_code(MPI_ERR_ARG, &code));
    OK(MPI_Add_error_code(MPI_ERR_TRUNCATE, &code2));
    CHECK(code != MPI_ERR_ARG && code2 != code, "codes %d %d of predefined classes", code, code2);
    OK(MPI_Error_class(code, &c));
    CHECK(c == MPI_ERR_ARG, "class of a code of MPI_ERR_ARG: %d", c);
    OK(MPI_Error_class(code2, &c));
    CHECK(c == MPI_ERR_TRUNCATE, "class of a code of MPI_ERR_TRUNCATE: %d", c);
    OK(MPI_Error_string(code, s, &len));
    CHECK(len == 0, "no string set: \"%s\"", s);
    OK(MPI_Add_error_string(code, "rcmsg test code of MPI_ERR_ARG"));
    OK(MPI_Error_string(code, s, &len));
    CHECK(strcmp(s, "rcmsg test code of MPI_ERR_ARG") == 0, "string \"%s\"", s);
    OK(MPI_Error_string(MPI_ERR_ARG, s, &len));
    CHECK(strcmp(s, "rcmsg test code of MPI_ERR_ARG") != 0, "the class took its code's string");
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= code2, "MPI_LASTUSEDCODE %d < %d", *last, code2);
    FAILS(MPI_Add_error_code(MPI_SUCCESS, &c), MPI_ERR_ARG);
    FAILS(MPI_Add_error_code(code, &c), MPI_ERR_ARG); /* a code is not a class */
    FAILS(MPI_Add_error_code(-1, &c), MPI_ERR_ARG);
    FAILS(MPI_Add_error_string(MPI_ERR_ARG, "no"), MPI_ERR_ARG);
}

static void test_info(void)
{
    MPI_Info info, dup, used;
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1], longkey[MPI_MAX_INFO_KEY + 8];
    int n, flag, len;

    OK(MPI_Info_create(&info));
    OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 0, "new info has %d keys", n);
    OK(MPI_Info_set(info, "alpha", "1"));
    OK(MPI_Info_set(info, "beta", "two"));
    OK(MPI_Info_set(info, "alpha", "one")); /* replaces, keeps its place */
    OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 2, "%d keys", n);
    OK(MPI_Info_get_nthkey(info, 0, key));
    CHECK(strcmp(key, "alpha") == 0, "key 0 \"%s\"", key);
    OK(MPI_Info_get_nthkey(info, 1, key));
    CHECK(strcmp(key, "beta") == 0, "key 1 \"%s\"", key);
    FAILS(MPI_Info_get_nthkey(info, 2, key), MPI_ERR_ARG);
    OK(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, "one") == 0, "alpha=\"%s\"", val);
    OK(MPI_Info_get(info, "alpha", 2, val, &flag)); /* 2 characters and the null */
    CHECK(flag && strcmp(val, "on") == 0, "truncated \"%s\"", val);
    OK(MPI_Info_get_valuelen(info, "beta", &len, &flag));
    CHECK(flag && len == 3, "valuelen %d", len);
    OK(MPI_Info_get(info, "gamma", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(!flag, "gamma found");
    OK(MPI_Info_get_valuelen(info, "gamma", &len, &flag));
    CHECK(!flag, "gamma's valuelen found");
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    FAILS(MPI_Info_set(info, longkey, "v"), MPI_ERR_INFO_KEY);
    FAILS(MPI_Info_set(info, "k", ""), MPI_ERR_INFO_VALUE);
    OK(MPI_Info_dup(info, &dup));
    OK(MPI_Info_delete(info, "alpha"));
    FAILS(MPI_Info_delete(info, "alpha"), MPI_ERR_INFO_NOKEY);
    OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 1, "%d keys after delete", n);
    OK(MPI_Info_get(dup, "alpha", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, "one") == 0, "the dup lost alpha");
    /* on a communicator: checked, none used (MPI-3.1 6.4.4: get_info gives the hints used) */
    OK(MPI_Comm_set_info(MPI_COMM_WORLD, dup));
    FAILS(MPI_Comm_set_info(MPI_COMM_WORLD, MPI_INFO_NULL), MPI_ERR_INFO);
    OK(MPI_Info_free(&dup));
    CHECK(dup == MPI_INFO_NULL, "freed info not NULL");
    OK(MPI_Comm_get_info(MPI_COMM_WORLD, &used));
    OK(MPI_Info_get_nkeys(used, &n));
    CHECK(n == 0, "comm info has %d keys (no hint is used)", n);
    OK(MPI_Info_free(&used));
    /* Comm_dup_with_info: a working dup */
    {
        MPI_Comm d;
        int sum = 0;

        OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &d));
        OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, d));
        CHECK(sum == np * (np - 1) / 2, "dup_with_info allreduce %d", sum);
        OK(MPI_Comm_free(&d));
        OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &d));
        OK(MPI_Comm_free(&d));
    }
    OK(MPI_Info_free(&info));
    FAILS(MPI_Info_free(&info), MPI_ERR_INFO);
    FAILS(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO);
    /* MPI_INFO_ENV: readable, not changeable */
    OK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && atoi(val) == np, "MPI_INFO_ENV maxprocs \"%s\"", flag ? val : "");
    FAILS(MPI_Info_set(MPI_INFO_ENV, "a", "b"), MPI_ERR_INFO);
}

/* the envelope of t: its combiner and counts */
static void check_env(MPI_Datatype t, int comb, int ni, int na, int nd, const char *what)
{
    int i, a, d, c;

    OK(MPI_Type_get_envelope(t, &i, &a, &d, &c));
    CHECK(c == comb && i == ni && a == na && d == nd,
          "%s: combiner %d (%d %d %d), expected %d (%d %d %d)", what, c, i, a, d, comb, ni, na, nd);
}

static void test_envelopes(void)
{
    MPI_Datatype t, u, types[4], got[4];
    int ints[32], bl[3] = {1, 2, 3}, dis[3] = {0, 4, 9};
    MPI_Aint ad[3] = {0, 16, 40}, aa[4];

    check_env(MPI_INT, MPI_COMBINER_NAMED, 0, 0, 0, "MPI_INT");
    check_env(MPI_FLOAT_INT, MPI_COMBINER_NAMED, 0, 0, 0, "MPI_FLOAT_INT");
    FAILS(MPI_Type_get_contents(MPI_INT, 0, 0, 0, ints, aa, got), MPI_ERR_TYPE);

    OK(MPI_Type_contiguous(3, MPI_INT, &t));
    check_env(t, MPI_COMBINER_CONTIGUOUS, 1, 0, 1, "contiguous");
    OK(MPI_Type_get_contents(t, 1, 0, 1, ints, aa, got));
    CHECK(ints[0] == 3 && got[0] == MPI_INT, "contiguous contents %d", ints[0]);
    /* a vector of it: its contents name a new type equal to t (freed by the program) */
    OK(MPI_Type_vector(2, 1, 5, t, &u));
    check_env(u, MPI_COMBINER_VECTOR, 3, 0, 1, "vector");
    OK(MPI_Type_get_contents(u, 3, 0, 1, ints, aa, got));
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 5, "vector contents");
    check_env(got[0], MPI_COMBINER_CONTIGUOUS, 1, 0, 1, "vector's old type");
    OK(MPI_Type_free(&got[0]));
    OK(MPI_Type_free(&u));
    OK(MPI_Type_free(&t));

    OK(MPI_Type_create_hvector(2, 3, 24, MPI_DOUBLE, &t));
    check_env(t, MPI_COMBINER_HVECTOR, 2, 1, 1, "hvector");
    OK(MPI_Type_get_contents(t, 2, 1, 1, ints, aa, got));
    CHECK(ints[0] == 2 && ints[1] == 3 && aa[0] == 24 && got[0] == MPI_DOUBLE, "hvector contents");
    OK(MPI_Type_free(&t));

    OK(MPI_Type_indexed(3, bl, dis, MPI_SHORT, &t));
    check_env(t, MPI_COMBINER_INDEXED, 7, 0, 1, "indexed");
    OK(MPI_Type_get_contents(t, 7, 0, 1, ints, aa, got));
    CHECK(ints[0] == 3 && ints[3] == 3 && ints[6] == 9, "indexed contents");
    OK(MPI_Type_free(&t));
    OK(MPI_Type_create_hindexed(3, bl, ad, MPI_CHAR, &t));
    check_env(t, MPI_COMBINER_HINDEXED, 4, 3, 1, "hindexed");
    OK(MPI_Type_get_contents(t, 4, 3, 1, ints, aa, got));
    CHECK(ints[2] == 2 && aa[2] == 40, "hindexed contents");
    OK(MPI_Type_free(&t));
    OK(MPI_Type_create_indexed_block(3, 2, dis, MPI_INT, &t));
    check_env(t, MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1, "indexed_block");
    OK(MPI_Type_get_contents(t, 5, 0, 1, ints, aa, got));
    CHECK(ints[1] == 2 && ints[4] == 9, "indexed_block contents");
    OK(MPI_Type_free(&t));
    OK(MPI_Type_create_hindexed_block(3, 2, ad, MPI_INT, &t));
    check_env(t, MPI_COMBINER_HINDEXED_BLOCK, 2, 3, 1, "hindexed_block");
    OK(MPI_Type_free(&t));

    types[0] = MPI_INT, types[1] = MPI_DOUBLE, types[2] = MPI_CHAR;
    OK(MPI_Type_create_struct(3, bl, ad, types, &t));
    check_env(t, MPI_COMBINER_STRUCT, 4, 3, 3, "struct");
    OK(MPI_Type_get_contents(t, 4, 3, 3, ints, aa, got));
    CHECK(got[1] == MPI_DOUBLE && aa[1] == 16 && ints[3] == 3, "struct contents");
    OK(MPI_Type_free(&t));

    {
        int sizes[2] = {4, 6}, subs[2] = {2, 3}, starts[2] = {1, 2};

        OK(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
        check_env(t, MPI_COMBINER_SUBARRAY, 8, 0, 1, "subarray");
        OK(MPI_Type_get_contents(t, 8, 0, 1, ints, aa, got));
        CHECK(ints[0] == 2 && ints[2] == 6 && ints[4] == 3 && ints[6] == 2 &&
                  ints[7] == MPI_ORDER_FORTRAN,
              "subarray contents");
        OK(MPI_Type_free(&t));
    }
    {
        int g[2] = {4, 6}, d[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
            a[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, p[2] = {1, 1};

        OK(MPI_Type_create_darray(1, 0, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t));
        check_env(t, MPI_COMBINER_DARRAY, 12, 0, 1, "darray");
        OK(MPI_Type_get_contents(t, 12, 0, 1, ints, aa, got));
        CHECK(ints[0] == 1 && ints[2] == 2 && ints[6] == MPI_DISTRIBUTE_CYCLIC && ints[8] == 2 &&
                  ints[11] == MPI_ORDER_C,
              "darray contents");
        OK(MPI_Type_free(&t));
    }
    OK(MPI_Type_create_resized(MPI_INT, -4, 16, &t));
    check_env(t, MPI_COMBINER_RESIZED, 0, 2, 1, "resized");
    OK(MPI_Type_get_contents(t, 0, 2, 1, ints, aa, got));
    CHECK(aa[0] == -4 && aa[1] == 16, "resized contents");
    OK(MPI_Type_dup(t, &u));
    check_env(u, MPI_COMBINER_DUP, 0, 0, 1, "dup");
    OK(MPI_Type_get_contents(u, 0, 0, 1, ints, aa, got));
    check_env(got[0], MPI_COMBINER_RESIZED, 0, 2, 1, "dup's old type");
    FAILS(MPI_Type_get_contents(u, 0, 0, 0, ints, aa, got), MPI_ERR_ARG); /* too small */
    OK(MPI_Type_free(&got[0]));
    OK(MPI_Type_free(&u));
    OK(MPI_Type_free(&t));
}

static void test_names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Datatype t;

    OK(MPI_Type_get_name(MPI_INT, name, &len));
    CHECK(strcmp(name, "MPI_INT") == 0 && len == 7, "MPI_INT's name \"%s\"", name);
    OK(MPI_Type_get_name(MPI_DOUBLE_INT, name, &len));
    CHECK(strcmp(name, "MPI_DOUBLE_INT") == 0, "MPI_DOUBLE_INT's name \"%s\"", name);
    OK(MPI_Type_contiguous(2, MPI_INT, &t));
    OK(MPI_Type_get_name(t, name, &len));
    CHECK(len == 0 && name[0] == '\0', "a new type's name \"%s\"", name);
    OK(MPI_Type_set_name(t, "two ints"));
    OK(MPI_Type_get_name(t, name, &len));
    CHECK(strcmp(name, "two ints") == 0 && len == 8, "set name \"%s\"", name);
    OK(MPI_Type_free(&t));
    FAILS(MPI_Type_set_name(MPI_DATATYPE_NULL, "x"), MPI_ERR_TYPE);
}

/* The darray of rank r of a px x py grid over a 5 x 7 array (BLOCK rows, CYCLIC(2) columns,
 * order C or FORTRAN): does element (i, j) belong to r? */
static int darray_owner(int i, int j, int px, int py, int order)
{
    int bx = (5 + px - 1) / px;

    (void)order;
    return (i / bx) * py + (j / 2) % py;
}

static void test_darray(void)
{
    int px = np % 2 == 0 ? 2 : 1, py = np / px;
    int g[2] = {5, 7}, d[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
        a[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, p[2] = {px, py};
    int global[35], got[35], all[35];

    for (int order = 0; order < 2; order++) {
        int ord = order ? MPI_ORDER_FORTRAN : MPI_ORDER_C, n = 0, size;
        MPI_Datatype t;
        MPI_Aint lb, ext;

        /* element (i, j) at i * 7 + j (C) or i + j * 5 (Fortran), holding that offset */
        for (int k = 0; k < 35; k++) {
            global[k] = k;
        }
        OK(MPI_Type_create_darray(np, me, 2, g, d, a, p, ord, MPI_INT, &t));
        OK(MPI_Type_commit(&t));
        OK(MPI_Type_get_extent(t, &lb, &ext));
        CHECK(lb == 0 && ext == 35 * (MPI_Aint)sizeof(int), "darray extent %ld", (long)ext);
        OK(MPI_Type_size(t, &size));
        /* sent through the type to this rank itself: the owned elements, in array order */
        memset(got, -1, sizeof(got));
        OK(MPI_Sendrecv(global, 1, t, 0, 3, got, 35, MPI_INT, 0, 3, MPI_COMM_SELF,
                        MPI_STATUS_IGNORE));
        for (int k = 0; k < 35; k++) {
            int i = ord == MPI_ORDER_C ? k / 7 : k % 5, j = ord == MPI_ORDER_C ? k % 7 : k / 5;

            if (darray_owner(i, j, px, py, ord) == me) {
                CHECK(got[n] == k, "order %d: element %d is %d, expected %d", ord, n, got[n], k);
                n++;
            }
        }
        CHECK(size == n * (int)sizeof(int), "darray size %d, owned %d", size, n);
        /* rank 0 receives every rank's piece through that rank's type: the whole array */
        memset(all, -1, sizeof(all));
        if (me == 0) {
            for (int r = 0; r < np; r++) {
                MPI_Datatype tr;

                OK(MPI_Type_create_darray(np, r, 2, g, d, a, p, ord, MPI_INT, &tr));
                OK(MPI_Type_commit(&tr));
                if (r == 0) {
                    OK(MPI_Sendrecv(global, 1, t, 0, 4, all, 1, tr, 0, 4, MPI_COMM_WORLD,
                                    MPI_STATUS_IGNORE));
                } else {
                    OK(MPI_Recv(all, 1, tr, r, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                }
                OK(MPI_Type_free(&tr));
            }
            for (int k = 0; k < 35; k++) {
                CHECK(all[k] == k, "order %d: gathered element %d is %d", ord, k, all[k]);
            }
        } else {
            OK(MPI_Send(global, 1, t, 0, 4, MPI_COMM_WORLD));
        }
        OK(MPI_Type_free(&t));
    }
    /* more processes than elements: the last ones own nothing (size 0, the array's extent) */
    {
        MPI_Datatype t;
        int g1 = 2, d1 = MPI_DISTRIBUTE_BLOCK, a1 = MPI_DISTRIBUTE_DFLT_DARG, p1 = 4, size;
        MPI_Aint lb, ext;

        OK(MPI_Type_create_darray(4, 3, 1, &g1, &d1, &a1, &p1, MPI_ORDER_C, MPI_INT, &t));
        OK(MPI_Type_size(t, &size));
        OK(MPI_Type_get_extent(t, &lb, &ext));
        CHECK(size == 0 && lb == 0 && ext == 2 * (MPI_Aint)sizeof(int), "empty darray %d %ld", size,
              (long)ext);
        OK(MPI_Type_free(&t));
    }
    /* bad arguments: a grid that is not size, BLOCK darg too small */
    {
        MPI_Datatype t;
        int bad[2] = {1, 1};

        FAILS(MPI_Type_create_darray(np + 1, 0, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG);
        a[0] = 1;
        FAILS(MPI_Type_create_darray(1, 0, 2, g, d, a, bad, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    }
}

/* subarray, Fortran order: the 2 x 3 block at (1, 2) of a 4 x 6 column-major array */
static void test_subarray(void)
{
    int sizes[2] = {4, 6}, subs[2] = {2, 3}, starts[2] = {1, 2}, a[24], got[6], n = 0;
    MPI_Datatype t;

    for (int k = 0; k < 24; k++) {
        a[k] = k;
    }
    OK(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    OK(MPI_Sendrecv(a, 1, t, 0, 5, got, 6, MPI_INT, 0, 5, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    for (int j = 2; j < 5; j++) {
        for (int i = 1; i < 3; i++, n++) {
            CHECK(got[n] == i + 4 * j, "subarray element %d is %d, expected %d", n, got[n],
                  i + 4 * j);
        }
    }
    OK(MPI_Type_free(&t));
}

/* ---- attributes of datatypes ---- */
static int t_copies, t_deletes;

static int t_copy(MPI_Datatype old, int k, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)k, (void)extra;
    t_copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int t_delete(MPI_Datatype t, int k, void *val, void *extra)
{
    (void)t, (void)k, (void)val, (void)extra;
    t_deletes++;
    return MPI_SUCCESS;
}

static void test_type_attrs(void)
{
    static char base[4];
    MPI_Datatype t, d;
    int k, k2, flag;
    void *v;

    OK(MPI_Type_create_keyval(t_copy, t_delete, &k, NULL));
    OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &k2, NULL));
    OK(MPI_Type_contiguous(2, MPI_INT, &t));
    OK(MPI_Type_get_attr(t, k, &v, &flag));
    CHECK(!flag, "attribute set on a new type");
    OK(MPI_Type_set_attr(t, k, base));
    OK(MPI_Type_set_attr(t, k2, base + 2));
    OK(MPI_Type_set_attr(t, k, base)); /* replaces: the old value deleted */
    CHECK(t_deletes == 1, "deletes %d after a replace", t_deletes);
    OK(MPI_Type_get_attr(t, k, &v, &flag));
    CHECK(flag && v == base, "get_attr %p", v);
    OK(MPI_Type_dup(t, &d)); /* k copied (+1), k2 not (NULL_COPY_FN) */
    OK(MPI_Type_get_attr(d, k, &v, &flag));
    CHECK(flag && v == base + 1 && t_copies == 1, "dup's attribute %p (copies %d)", v, t_copies);
    OK(MPI_Type_get_attr(d, k2, &v, &flag));
    CHECK(!flag, "NULL_COPY_FN copied");
    OK(MPI_Type_delete_attr(t, k2));
    FAILS(MPI_Type_delete_attr(t, k2), MPI_ERR_KEYVAL);
    OK(MPI_Type_free(&t)); /* deletes k's value */
    CHECK(t_deletes == 2, "deletes %d after Type_free", t_deletes);
    OK(MPI_Type_free_keyval(&k));
    CHECK(k == MPI_KEYVAL_INVALID, "freed keyval %d", k);
    OK(MPI_Type_free(&d)); /* k lives on while d holds it */
    CHECK(t_deletes == 3, "deletes %d after freeing the dup", t_deletes);
    FAILS(MPI_Type_set_attr(MPI_INT, k, base), MPI_ERR_KEYVAL);
    OK(MPI_Type_free_keyval(&k2));
}

/* ---- generalized requests ---- */
static int g_queries, g_frees, g_cancels, g_cancel_complete = -1;

static int g_query(void *extra, MPI_Status *st)
{
    g_queries++;
    st->MPI_SOURCE = 7;
    st->MPI_TAG = 8;
    MPI_Status_set_elements(st, MPI_INT, 3);
    MPI_Status_set_cancelled(st, 0);
    return *(int *)extra;
}

static int g_free(void *extra)
{
    (void)extra;
    g_frees++;
    return MPI_SUCCESS;
}

static int g_cancel(void *extra, int complete)
{
    (void)extra;
    g_cancels++;
    g_cancel_complete = complete;
    return MPI_SUCCESS;
}

static void test_grequest(void)
{
    MPI_Request r, kept;
    MPI_Status st;
    int flag, count, ok = MPI_SUCCESS, bad = MPI_ERR_OTHER;

    OK(MPI_Grequest_start(g_query, g_free, g_cancel, &ok, &r));
    OK(MPI_Test(&r, &flag, &st));
    CHECK(!flag && g_queries == 0, "incomplete grequest tested complete");
    OK(MPI_Grequest_complete(r));
    FAILS(MPI_Grequest_complete(r), MPI_ERR_REQUEST);
    OK(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL && g_queries == 1 && g_frees == 1, "queries %d frees %d", g_queries,
          g_frees);
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(st.MPI_SOURCE == 7 && st.MPI_TAG == 8 && count == 3, "status %d %d %d", st.MPI_SOURCE,
          st.MPI_TAG, count);
    /* cancel before completion: the cancel function sees complete 0 */
    OK(MPI_Grequest_start(g_query, g_free, g_cancel, &ok, &r));
    OK(MPI_Cancel(&r));
    CHECK(g_cancels == 1 && g_cancel_complete == 0, "cancel calls %d (complete %d)", g_cancels,
          g_cancel_complete);
    OK(MPI_Grequest_complete(r));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(g_frees == 2, "frees %d", g_frees);
    /* freed before completion: completed later, then released */
    OK(MPI_Grequest_start(g_query, g_free, g_cancel, &ok, &r));
    kept = r;
    OK(MPI_Request_free(&r));
    OK(MPI_Grequest_complete(kept));
    CHECK(g_frees == 3, "frees %d after Request_free", g_frees);
    /* Request_get_status runs the query; Waitall completes grequests with a receive */
    {
        MPI_Request rs[2];
        MPI_Status sts[2];
        int v = 5, w = 0;

        OK(MPI_Grequest_start(g_query, g_free, g_cancel, &ok, &rs[0]));
        OK(MPI_Request_get_status(rs[0], &flag, &st));
        CHECK(!flag, "get_status of an incomplete grequest");
        OK(MPI_Grequest_complete(rs[0]));
        OK(MPI_Request_get_status(rs[0], &flag, &st));
        CHECK(flag && st.MPI_TAG == 8 && rs[0] != MPI_REQUEST_NULL, "get_status flag %d tag %d",
              flag, st.MPI_TAG);
        OK(MPI_Irecv(&w, 1, MPI_INT, 0, 6, MPI_COMM_SELF, &rs[1]));
        OK(MPI_Send(&v, 1, MPI_INT, 0, 6, MPI_COMM_SELF));
        OK(MPI_Waitall(2, rs, sts));
        CHECK(w == 5 && sts[0].MPI_SOURCE == 7 && sts[1].MPI_SOURCE == 0 && g_frees == 4,
              "Waitall: %d, sources %d %d, frees %d", w, sts[0].MPI_SOURCE, sts[1].MPI_SOURCE,
              g_frees);
    }
    /* the query function's error is the wait's */
    OK(MPI_Grequest_start(g_query, g_free, NULL, &bad, &r));
    OK(MPI_Grequest_complete(r));
    FAILS(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_OTHER);
    CHECK(g_frees == 5, "frees %d", g_frees);
}

static void test_status(void)
{
    MPI_Status st;
    MPI_Datatype pair;
    int n, flag;
    MPI_Count x;

    memset(&st, 0, sizeof(st));
    OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    OK(MPI_Type_commit(&pair));
    OK(MPI_Status_set_elements(&st, pair, 6)); /* 3 pairs */
    OK(MPI_Get_count(&st, pair, &n));
    CHECK(n == 3, "count %d", n);
    OK(MPI_Get_elements(&st, pair, &n));
    CHECK(n == 6, "elements %d", n);
    OK(MPI_Status_set_elements_x(&st, MPI_INT, 5));
    OK(MPI_Get_count(&st, pair, &n));
    CHECK(n == MPI_UNDEFINED, "count of 5 ints in pairs %d", n);
    OK(MPI_Get_elements_x(&st, pair, &x));
    CHECK(x == 5, "elements_x %lld", (long long)x);
    OK(MPI_Status_set_cancelled(&st, 1));
    OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "not cancelled");
    OK(MPI_Get_elements(&st, MPI_INT, &n));
    CHECK(n == 5, "set_cancelled changed the count: %d", n);
    FAILS(MPI_Status_set_elements(&st, MPI_INT, -1), MPI_ERR_COUNT);
    OK(MPI_Type_free(&pair));
}

static void test_misc(void)
{
    int *mem, bl[2] = {1, 1};
    MPI_Aint a0, a1, e, lb, ub, d[2];
    MPI_Datatype t, ts[2] = {MPI_CHAR, MPI_DOUBLE};
    MPI_Errhandler eh;
    MPI_Status cs, back;
    MPI_Fint f[MPI_F_STATUS_SIZE];
    struct cx {
        char c;
        double x;
    } s;

    OK(MPI_Alloc_mem(100 * sizeof(int), MPI_INFO_NULL, &mem));
    mem[99] = 5;
    OK(MPI_Free_mem(mem));
    FAILS(MPI_Alloc_mem(-1, MPI_INFO_NULL, &mem), MPI_ERR_ARG);
    OK(MPI_Get_address(&s.c, &a0));
    OK(MPI_Address(&s.x, &a1));
    CHECK(MPI_Aint_diff(a1, a0) == (MPI_Aint)offsetof(struct cx, x), "Aint_diff");
    CHECK(MPI_Aint_add(a0, MPI_Aint_diff(a1, a0)) == a1, "Aint_add");
    /* conversions */
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "Comm c2f");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_INT)) == MPI_INT, "Type c2f");
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "Op c2f");
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY, "Group c2f");
    CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_ENV)) == MPI_INFO_ENV, "Info c2f");
    CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL, "Req c2f");
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN, "eh");
    CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "Win c2f");
    /* their profiling names: the same conversions */
    CHECK(PMPI_Message_f2c(PMPI_Message_c2f(MPI_MESSAGE_NULL)) == MPI_MESSAGE_NULL, "PMPI c2f");
    CHECK(PMPI_Comm_c2f(MPI_COMM_SELF) == MPI_Comm_c2f(MPI_COMM_SELF), "PMPI_Comm_c2f");
    CHECK(PMPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "PMPI_Win_f2c");
    cs.MPI_SOURCE = 3, cs.MPI_TAG = 4, cs.MPI_ERROR = 0, cs.count_lo = 12;
    cs.count_hi_and_cancelled = 0;
    OK(MPI_Status_c2f(&cs, f));
    CHECK(f[MPI_F_SOURCE] == 3 && f[MPI_F_TAG] == 4, "Status_c2f");
    OK(MPI_Status_f2c(f, &back));
    CHECK(memcmp(&cs, &back, sizeof(cs)) == 0, "Status_f2c");
    /* deprecated names */
    d[0] = 0, d[1] = a1 - a0;
    OK(MPI_Type_struct(2, bl, d, ts, &t));
    OK(MPI_Type_extent(t, &e));
    OK(MPI_Type_lb(t, &lb));
    OK(MPI_Type_ub(t, &ub));
    CHECK(e == (MPI_Aint)sizeof(s) && lb == 0 && ub == e, "struct extent %ld lb %ld ub %ld",
          (long)e, (long)lb, (long)ub);
    OK(MPI_Type_free(&t));
    OK(MPI_Type_hvector(2, 1, 16, MPI_INT, &t));
    check_env(t, MPI_COMBINER_HVECTOR, 2, 1, 1, "Type_hvector");
    OK(MPI_Type_free(&t));
    OK(MPI_Type_hindexed(2, bl, d, MPI_INT, &t));
    OK(MPI_Type_free(&t));
    OK(MPI_Errhandler_get(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "Errhandler_get %#x", (unsigned)eh);
    OK(MPI_Errhandler_set(MPI_COMM_WORLD, eh));
    OK(MPI_Errhandler_free(&eh));
    OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
    CHECK(t == MPI_DOUBLE, "match_size real 8");
    OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
    CHECK(t == MPI_INT32_T, "match_size integer 4");
    FAILS(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t), MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    phases_expected = 12;
    test_attrs();
    phase("predefined attributes");
    test_errors();
    phase("error classes, codes and strings");
    test_info();
    phase("info objects");
    test_envelopes();
    phase("envelopes and contents");
    test_names();
    phase("type names");
    test_darray();
    phase("darray layouts");
    test_subarray();
    phase("subarray MPI_ORDER_FORTRAN");
    test_type_attrs();
    phase("attributes of datatypes");
    test_grequest();
    phase("generalized requests");
    test_status();
    phase("status setters");
    test_misc();
    phase("Alloc_mem, addresses, conversions, deprecated names");
    phase("done");
    MPI_Finalize();
    return summary();
}
