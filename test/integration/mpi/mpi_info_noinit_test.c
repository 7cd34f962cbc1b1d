/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Info objects before MPI_Init and after MPI_Finalize (MPI-4.0: the info calls may be made at
 * any time; MPICH's info/info_no_init): infos created, set, duplicated and read with
 * Info_get_string before MPI_Init keep their keys through the job and after MPI_Finalize,
 * where they are still read, changed and freed, and new ones made; Info_create_env gives the
 * same keys and values before MPI_Init, during the job and after MPI_Finalize (MPICH's
 * info/infocreateenv): command, argv, host, arch, wdir and maxprocs, the launcher's count
 * (mpirun and srun give it before MPI_Init), and no thread_level (MPI-4.0: the level asked
 * of the launcher, which none here takes); MPI_INFO_ENV itself after MPI_Finalize still holds
 * the job's.
 */
#include "mpi_test.h"

#define NINFO 16

/* info's value of key is want (NULL: absent) */
static void check_key(MPI_Info info, const char *key, const char *want, const char *what)
{
    char v[MPI_MAX_INFO_VAL + 1] = "";
    int len = sizeof(v), flag = -1;
    int err = MPI_Info_get_string(info, key, &len, v, &flag);

    CHECK(err == MPI_SUCCESS, "%s: Info_get_string of %s failed (%d)", what, key, err);
    if (want == NULL) {
        CHECK(flag == 0, "%s: %s absent (\"%s\")", what, key, v);
    } else {
        CHECK(flag == 1 && strcmp(v, want) == 0, "%s: %s = \"%s\" (flag %d), expected \"%s\"", what,
              key, v, flag, want);
    }
}

/* a and b hold the same keys with the same values */
static void check_same(MPI_Info a, MPI_Info b, const char *what)
{
    int na = -1, nb = -2;

    OK(MPI_Info_get_nkeys(a, &na));
    OK(MPI_Info_get_nkeys(b, &nb));
    CHECK(na == nb, "%s: %d keys against %d", what, na, nb);
    for (int k = 0; k < na; k++) {
        char key[MPI_MAX_INFO_KEY + 1], v[MPI_MAX_INFO_VAL + 1];
        int len = sizeof(v), flag = 0;

        OK(MPI_Info_get_nthkey(a, k, key));
        OK(MPI_Info_get_string(a, key, &len, v, &flag));
        check_key(b, key, v, what);
    }
}

/* each info: dup'ed into its place (the old one freed), key checked, then set_key set */
static void cycle(MPI_Info infos[NINFO], const char *key, const char *set_key, const char *what)
{
    for (int i = 0; i < NINFO; i++) {
        MPI_Info dup;

        OK(MPI_Info_dup(infos[i], &dup));
        OK(MPI_Info_free(&infos[i]));
        infos[i] = dup;
        if (key != NULL) {
            check_key(infos[i], key, "v", what);
        }
        OK(MPI_Info_set(infos[i], set_key, "v"));
    }
}

int main(int argc, char **argv)
{
    MPI_Info infos[NINFO], early, during, again;
    int flag = -1, nkeys = -1;
    char maxprocs[16];

    for (int i = 0; i < NINFO; i++) {
        OK(MPI_Info_create(&infos[i]));
    }
    cycle(infos, NULL, "key1", "before MPI_Init");
    cycle(infos, "key1", "key2", "before MPI_Init");
    OK(MPI_Info_create_env(argc, argv, &early));
    check_key(early, "command", argv[0], "create_env before MPI_Init");
    check_key(early, "thread_level", NULL, "create_env before MPI_Init");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    phases_expected = 1;
    snprintf(maxprocs, sizeof(maxprocs), "%d", np);
    cycle(infos, "key2", "key3", "during the job");
    OK(MPI_Info_create_env(0, NULL, &during));
    check_key(during, "maxprocs", maxprocs, "create_env during the job");
    check_key(MPI_INFO_ENV, "maxprocs", maxprocs, "MPI_INFO_ENV during the job");
    check_key(early, "maxprocs", maxprocs, "create_env before MPI_Init (the launcher's count)");
    check_key(during, "thread_level", NULL, "create_env during the job");
    OK(MPI_Info_create_env(argc, argv, &again));
    check_same(early, again, "create_env before MPI_Init and during the job");
    OK(MPI_Info_free(&again));
    phase("infos made before MPI_Init, during the job");
    MPI_Finalize();

    cycle(infos, "key3", "key4", "after MPI_Finalize");
    for (int i = 0; i < NINFO; i++) {
        check_key(infos[i], "key1", "v", "after MPI_Finalize");
        OK(MPI_Info_get_nkeys(infos[i], &nkeys));
        CHECK(nkeys == 4, "after MPI_Finalize: %d keys", nkeys);
        OK(MPI_Info_delete(infos[i], "key4"));
        OK(MPI_Info_free(&infos[i]));
        CHECK(infos[i] == MPI_INFO_NULL, "freed: MPI_INFO_NULL");
    }
    for (int i = 0; i < NINFO; i++) { /* new ones after MPI_Finalize */
        OK(MPI_Info_create(&infos[i]));
    }
    for (int i = 0; i < NINFO; i++) {
        OK(MPI_Info_free(&infos[i]));
    }
    check_key(during, "maxprocs", maxprocs, "create_env's after MPI_Finalize");
    check_key(MPI_INFO_ENV, "maxprocs", maxprocs, "MPI_INFO_ENV after MPI_Finalize");
    OK(MPI_Info_create_env(argc, argv, &again));
    check_same(early, again, "create_env before MPI_Init and after MPI_Finalize");
    OK(MPI_Info_free(&again));
    OK(MPI_Info_get_valuelen(early, "command", &nkeys, &flag));
    CHECK(flag == 1 && nkeys == (int)strlen(argv[0]), "early's command after MPI_Finalize");
    OK(MPI_Info_free(&early));
    OK(MPI_Info_free(&during));
    return summary();
}
