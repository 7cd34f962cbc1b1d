/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Issue 43, the names MPICH's test suite wanted (docs/mpi.md, "MPICH's test suite"):
 * MPI_Info_get_string (MPI-4.0: *buflen in and out, the value cut to fit and null-ended, an
 * absent key leaving value and *buflen) and MPI_Info_create_env (MPI_INFO_ENV's keys, command
 * and argv from the arguments), with their PMPI_ names; Comm_split_type's
 * MPI_COMM_TYPE_HW_GUIDED ("mpi_hw_resource_type" = "mpi_shared_memory": as SHARED; another
 * value or none: MPI_COMM_NULL, no error) and MPI_COMM_TYPE_HW_UNGUIDED (MPI_COMM_NULL on one
 * node: the job runs on one host here), the type in the new communicator's Comm_get_info;
 * Win_get_info's hints with their values (creation's, Win_set_info's, the defaults); NULL
 * outputs refused with MPI_ERR_ARG (Group_range_incl / excl before their ranges are read,
 * Comm_get_errhandler).
 */
#include "mpi_test.h"

#include <unistd.h>

/* key's value in info, "" with *flag 0 when absent */
static const char *info_val(MPI_Info info, const char *key, int *flag)
{
    static char val[MPI_MAX_INFO_VAL + 1];

    val[0] = '\0';
    if (MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, flag) != MPI_SUCCESS) {
        *flag = 0;
    }
    return val;
}

static void check_val(MPI_Info info, const char *key, const char *want, const char *what)
{
    int flag = 0;
    const char *v = info_val(info, key, &flag);

    if (want == NULL) {
        CHECK(!flag, "%s: %s absent (\"%s\")", what, key, v);
    } else {
        CHECK(flag && strcmp(v, want) == 0, "%s: %s = \"%s\" (flag %d), expected \"%s\"", what, key,
              v, flag, want);
    }
}

static void test_get_string(void)
{
    MPI_Info info;
    char v[64];
    int len, flag;

    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "file", "runfile.txt")); /* 11 characters */
    len = 10;
    flag = -1;
    memcpy(v, "canary", 7);
    OK(MPI_Info_get_string(info, "nokey", &len, v, &flag));
    CHECK(flag == 0 && len == 10 && strcmp(v, "canary") == 0, "absent: flag %d, len %d", flag, len);
    len = 0;
    OK(MPI_Info_get_string(info, "file", &len, v, &flag));
    CHECK(flag == 1 && len == 12 && strcmp(v, "canary") == 0, "buflen 0: len %d, \"%s\"", len, v);
    len = 0;
    OK(MPI_Info_get_string(info, "file", &len, NULL, &flag)); /* no room: value may be NULL */
    CHECK(flag == 1 && len == 12, "buflen 0, value NULL: len %d", len);
    len = 2;
    OK(MPI_Info_get_string(info, "file", &len, v, &flag));
    CHECK(flag == 1 && len == 12 && strcmp(v, "r") == 0, "buflen 2: len %d, \"%s\"", len, v);
    len = 12;
    OK(MPI_Info_get_string(info, "file", &len, v, &flag));
    CHECK(len == 12 && strcmp(v, "runfile.txt") == 0, "buflen 12: len %d, \"%s\"", len, v);
    len = sizeof(v);
    OK(PMPI_Info_get_string(info, "file", &len, v, &flag));
    CHECK(len == 12 && strcmp(v, "runfile.txt") == 0, "PMPI_: len %d, \"%s\"", len, v);
    FAILS(MPI_Info_get_string(info, "file", NULL, v, &flag), MPI_ERR_ARG);
    FAILS(MPI_Info_get_string(info, "file", &len, v, NULL), MPI_ERR_ARG);
    len = -1;
    FAILS(MPI_Info_get_string(info, "file", &len, v, &flag), MPI_ERR_ARG);
    len = 4;
    FAILS(MPI_Info_get_string(info, "file", &len, NULL, &flag), MPI_ERR_ARG);
    FAILS(MPI_Info_get_string(info, "", &len, v, &flag), MPI_ERR_INFO_KEY);
    FAILS(MPI_Info_get_string(MPI_INFO_NULL, "file", &len, v, &flag), MPI_ERR_INFO);
    OK(MPI_Info_free(&info));
}

static void test_create_env(int argc, char **argv)
{
    static char one[] = "one", two[] = "two";
    char *args[] = {argv[0], one, two, NULL};
    char host[256] = "", wdir[4096] = "", maxprocs[16];
    MPI_Info a, b, c;
    int flag, nkeys = 0;

    gethostname(host, sizeof(host) - 1);
    CHECK(getcwd(wdir, sizeof(wdir)) != NULL, "getcwd");
    snprintf(maxprocs, sizeof(maxprocs), "%d", np);
    OK(MPI_Info_create_env(3, args, &a));
    check_val(a, "command", argv[0], "create_env");
    check_val(a, "argv", "one two", "create_env");
    check_val(a, "maxprocs", maxprocs, "create_env");
    check_val(a, "host", host, "create_env");
    check_val(a, "wdir", wdir, "create_env");
    check_val(a, "soft", NULL, "create_env"); /* not known: absent */
    check_val(a, "file", NULL, "create_env");
    info_val(a, "arch", &flag);
    CHECK(flag, "create_env: arch present");
    check_val(a, "thread_level", NULL, "create_env"); /* asked of no launcher: absent */
    OK(MPI_Info_set(a, "mine", "yes"));    /* the program's own: it can change and free it */
    OK(PMPI_Info_create_env(0, NULL, &b)); /* argc, argv not given */
    check_val(b, "command", NULL, "create_env(0, NULL)");
    check_val(b, "argv", NULL, "create_env(0, NULL)");
    check_val(b, "maxprocs", maxprocs, "create_env(0, NULL)");
    OK(MPI_Info_create_env(argc, argv, &c));
    check_val(c, "command", argv[0], "create_env(argc, argv)");
    check_val(c, "argv", NULL, "create_env(argc, argv)"); /* run without arguments */
    OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
    for (int i = 0; i < nkeys; i++) { /* MPI_INFO_ENV's keys and values: create_env's too */
        char key[MPI_MAX_INFO_KEY + 1], want[MPI_MAX_INFO_VAL + 1];

        OK(MPI_Info_get_nthkey(MPI_INFO_ENV, i, key));
        snprintf(want, sizeof(want), "%s", info_val(MPI_INFO_ENV, key, &flag));
        check_val(b, key, want, "create_env as MPI_INFO_ENV");
    }
    FAILS(MPI_Info_create_env(0, NULL, NULL), MPI_ERR_ARG);
    OK(MPI_Info_free(&a));
    OK(MPI_Info_free(&b));
    OK(MPI_Info_free(&c));
}

/* the split's communicator: size and rank (ordered by key), its info's resource type */
static void check_split(MPI_Comm nc, int size, int rank, const char *type, const char *what)
{
    int n = -1, r = -1;
    MPI_Info used;
    MPI_Comm dup;
    MPI_Request req;

    CHECK(nc != MPI_COMM_NULL, "%s: a communicator", what);
    if (nc == MPI_COMM_NULL) {
        return;
    }
    MPI_Comm_size(nc, &n);
    MPI_Comm_rank(nc, &r);
    CHECK(n == size && r == rank, "%s: rank %d of %d, expected %d of %d", what, r, n, rank, size);
    OK(MPI_Comm_get_info(nc, &used));
    check_val(used, "mpi_hw_resource_type", type, what);
    OK(MPI_Info_free(&used));
    OK(MPI_Comm_dup(nc, &dup)); /* a dup keeps it */
    OK(MPI_Comm_get_info(dup, &used));
    check_val(used, "mpi_hw_resource_type", type, what);
    OK(MPI_Info_free(&used));
    OK(MPI_Comm_free(&dup));
    /* a dup with info has the info's hints instead (MPI-4.0 7.4.2), blocking or not */
    OK(MPI_Comm_dup_with_info(nc, MPI_INFO_NULL, &dup));
    OK(MPI_Comm_get_info(dup, &used));
    check_val(used, "mpi_hw_resource_type", NULL, "Comm_dup_with_info");
    OK(MPI_Info_free(&used));
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_idup_with_info(nc, MPI_INFO_NULL, &dup, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    OK(MPI_Comm_get_info(dup, &used));
    check_val(used, "mpi_hw_resource_type", NULL, "Comm_idup_with_info");
    OK(MPI_Info_free(&used));
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_idup(nc, &dup, &req)); /* an idup keeps it */
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    OK(MPI_Comm_get_info(dup, &used));
    check_val(used, "mpi_hw_resource_type", type, what);
    OK(MPI_Info_free(&used));
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_free(&nc));
}

static void test_split_hw(void)
{
    static const char shm[] = "mpi_shared_memory";
    MPI_Info info, other;
    MPI_Comm nc;

    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "mpi_hw_resource_type", shm));
    OK(MPI_Info_create(&other));
    OK(MPI_Info_set(other, "mpi_hw_resource_type", "l3cache"));
    /* one host: GUIDED shared memory is every rank, as SHARED */
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, np - me, info, &nc));
    check_split(nc, np, np - 1 - me, shm, "HW_GUIDED mpi_shared_memory");
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &nc));
    check_split(nc, np, me, shm, "SHARED");
    nc = MPI_COMM_SELF;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, other, &nc));
    CHECK(nc == MPI_COMM_NULL, "HW_GUIDED of an unknown type: MPI_COMM_NULL");
    nc = MPI_COMM_SELF;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &nc));
    CHECK(nc == MPI_COMM_NULL, "HW_GUIDED without mpi_hw_resource_type: MPI_COMM_NULL");
    nc = MPI_COMM_SELF;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &nc));
    CHECK(nc == MPI_COMM_NULL, "HW_UNGUIDED on one node: MPI_COMM_NULL (no finer domain)");
    nc = MPI_COMM_SELF; /* rank 0 out: the others are still one node's */
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, me == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_HW_GUIDED, me,
                           info, &nc));
    if (me == 0) {
        CHECK(nc == MPI_COMM_NULL, "MPI_UNDEFINED: MPI_COMM_NULL");
    } else {
        check_split(nc, np - 1, me - 1, shm, "HW_GUIDED without rank 0");
    }
    OK(MPI_Comm_split(MPI_COMM_WORLD, 0, me, &nc));
    check_split(nc, np, me, NULL, "Comm_split"); /* no resource type */
    FAILS(MPI_Comm_split_type(MPI_COMM_WORLD, 77, 0, MPI_INFO_NULL, &nc), MPI_ERR_COMM);
    FAILS(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, 12345, &nc),
          MPI_ERR_INFO);
    OK(MPI_Info_free(&info));
    OK(MPI_Info_free(&other));
}

static void check_hints(MPI_Win win, const char *no_locks, const char *ordering, const char *ops,
                        const char *size, const char *disp, const char *noncontig, const char *what)
{
    MPI_Info used;
    int nkeys = -1;

    OK(MPI_Win_get_info(win, &used));
    check_val(used, "no_locks", no_locks, what);
    check_val(used, "accumulate_ordering", ordering, what);
    check_val(used, "accumulate_ops", ops, what);
    check_val(used, "same_size", size, what);
    check_val(used, "same_disp_unit", disp, what);
    check_val(used, "alloc_shared_noncontig", noncontig, what);
    check_val(used, "invalid_test_key", NULL, what);
    OK(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys == (noncontig != NULL ? 6 : 5), "%s: %d keys", what, nkeys);
    OK(MPI_Info_free(&used));
}

static void set_hint(MPI_Win win, const char *key, const char *value)
{
    MPI_Info info;

    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, key, value));
    OK(MPI_Win_set_info(win, info));
    OK(MPI_Info_free(&info));
}

static void test_win_hints(void)
{
    static const char all[] = "rar,raw,war,waw", nop[] = "same_op_no_op";
    MPI_Info info;
    MPI_Comm node;
    MPI_Win win;
    int buf[4], *mem;

    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "no_locks", "true"));
    OK(MPI_Info_set(info, "accumulate_ops", "same_op"));
    OK(MPI_Info_set(info, "alloc_shared_noncontig", "true")); /* not a shared window's: no key */
    OK(MPI_Win_allocate(sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &mem, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    check_hints(win, "true", all, "same_op", "false", "false", NULL, "at creation");
    OK(MPI_Win_free(&win));
    OK(MPI_Win_create(buf, sizeof(buf), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    check_hints(win, "false", all, nop, "false", "false", NULL, "the defaults");
    set_hint(win, "invalid_test_key", "true"); /* ignored */
    set_hint(win, "no_locks", "true");
    check_hints(win, "true", all, nop, "false", "false", NULL, "no_locks set");
    set_hint(win, "no_locks", "false");
    set_hint(win, "accumulate_ordering", "none");
    check_hints(win, "false", "none", nop, "false", "false", NULL, "ordering none");
    set_hint(win, "accumulate_ordering", "rar,waw");
    set_hint(win, "accumulate_ordering", "rar,bogus"); /* not of its form: ignored */
    set_hint(win, "same_size", "maybe");               /* the same */
    check_hints(win, "false", "rar,waw", nop, "false", "false", NULL, "ordering rar,waw");
    set_hint(win, "accumulate_ops", "same_op");
    set_hint(win, "same_size", "true");
    set_hint(win, "same_disp_unit", "true");
    check_hints(win, "false", "rar,waw", "same_op", "true", "true", NULL, "each set");
    FAILS(MPI_Win_set_info(win, MPI_INFO_NULL), MPI_ERR_INFO);
    FAILS(MPI_Win_get_info(win, NULL), MPI_ERR_ARG);
    OK(MPI_Win_free(&win));
    /* a shared window's alloc_shared_noncontig (one host: every rank) */
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node));
    OK(MPI_Win_allocate_shared(sizeof(int), sizeof(int), info, node, &mem, &win));
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    check_hints(win, "true", all, "same_op", "false", "false", "true", "shared at creation");
    set_hint(win, "alloc_shared_noncontig", "false");
    check_hints(win, "true", all, "same_op", "false", "false", "false", "shared, set false");
    OK(MPI_Win_free(&win));
    OK(MPI_Win_create_dynamic(info, MPI_COMM_WORLD, &win));
    check_hints(win, "true", all, "same_op", "false", "false", NULL, "dynamic at creation");
    OK(MPI_Win_free(&win));
    FAILS(MPI_Win_create(buf, sizeof(buf), 1, 12345, MPI_COMM_WORLD, &win), MPI_ERR_INFO);
    OK(MPI_Comm_free(&node));
    OK(MPI_Info_free(&info));
}

static void test_null_outputs(void)
{
    int ranges[1][3] = {{1, np - 1, 1}}; /* at 1 rank: names rank 1, not in the group */
    int ranks[1] = {np};                 /* never a rank */
    MPI_Group world, g = MPI_GROUP_NULL;
    MPI_Errhandler eh;

    OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    FAILS(MPI_Group_range_incl(world, 1, ranges, NULL), MPI_ERR_ARG);
    FAILS(MPI_Group_range_excl(world, 1, ranges, NULL), MPI_ERR_ARG);
    FAILS(MPI_Group_range_incl(world, 1, NULL, &g), MPI_ERR_ARG);
    FAILS(MPI_Group_range_excl(world, 1, NULL, &g), MPI_ERR_ARG);
    FAILS(MPI_Group_incl(world, 1, ranks, NULL), MPI_ERR_ARG);
    FAILS(MPI_Group_excl(world, 1, ranks, NULL), MPI_ERR_ARG);
    FAILS(MPI_Group_union(world, world, NULL), MPI_ERR_ARG);
    FAILS(MPI_Group_intersection(world, world, NULL), MPI_ERR_ARG);
    FAILS(MPI_Group_difference(world, world, NULL), MPI_ERR_ARG);
    FAILS(MPI_Group_range_incl(world, 1, ranges, &g), np == 1 ? MPI_ERR_RANK : MPI_SUCCESS);
    if (g != MPI_GROUP_NULL) {
        OK(MPI_Group_free(&g));
    }
    FAILS(MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    FAILS(MPI_Errhandler_get(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    OK(MPI_Errhandler_free(&eh));
    FAILS(MPI_Comm_get_info(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    OK(MPI_Group_free(&world));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    phases_expected = 5;
    test_get_string();
    phase("MPI_Info_get_string");
    test_create_env(argc, argv);
    phase("MPI_Info_create_env");
    test_split_hw();
    phase("Comm_split_type HW_GUIDED / HW_UNGUIDED, the type in Comm_get_info");
    test_win_hints();
    phase("Win_get_info's hints");
    test_null_outputs();
    phase("NULL outputs refused");
    MPI_Finalize();
    return summary();
}
