/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Comm_split_type on any number of hosts (issue 43; on two nodes in the two-node list,
 * nodes_mpi.sh): the hosts are counted from MPI_Get_processor_name. MPI_COMM_TYPE_SHARED and
 * HW_GUIDED "mpi_shared_memory" give each rank its host's ranks, ordered by key;
 * MPI_COMM_TYPE_HW_UNGUIDED (MPI-4.0 7.4.2: a strict subset of the parent, the type in the
 * program's info and in Comm_get_info) gives the same when the job spans several hosts, and
 * MPI_COMM_NULL on one host and when split again inside a host (no finer domain is known).
 */
#include "mpi_test.h"

#include <stdlib.h>

static char (*names)[MPI_MAX_PROCESSOR_NAME];
static int hosts, mine; /* hosts in the job, ranks on this rank's host */

static void count_hosts(void)
{
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;

    names = calloc((size_t)np, sizeof(*names));
    OK(MPI_Get_processor_name(name, &len));
    OK(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                     MPI_CHAR, MPI_COMM_WORLD));
    hosts = mine = 0;
    for (int r = 0; r < np; r++) {
        int first = 1;
        for (int q = 0; q < r && first; q++) {
            first = strcmp(names[q], names[r]) != 0;
        }
        hosts += first;
        mine += strcmp(names[r], names[me]) == 0;
    }
}

/* nc holds exactly this host's ranks, ordered by world rank (the key), of type hw */
static void check_host_comm(MPI_Comm nc, const char *hw, const char *what)
{
    int n = -1, r = -1, below = 0, flag = 0, *world;
    char val[MPI_MAX_INFO_VAL + 1] = "";
    MPI_Info info;

    CHECK(nc != MPI_COMM_NULL, "%s: a communicator", what);
    if (nc == MPI_COMM_NULL) {
        return;
    }
    MPI_Comm_size(nc, &n);
    MPI_Comm_rank(nc, &r);
    for (int q = 0; q < me; q++) {
        below += strcmp(names[q], names[me]) == 0;
    }
    CHECK(n == mine && r == below, "%s: rank %d of %d, expected %d of %d", what, r, n, below, mine);
    world = calloc((size_t)(n > 0 ? n : 1), sizeof(*world));
    OK(MPI_Allgather(&me, 1, MPI_INT, world, 1, MPI_INT, nc));
    for (int q = 0; q < n; q++) {
        CHECK(strcmp(names[world[q]], names[me]) == 0 && (q == 0 || world[q] > world[q - 1]),
              "%s: member %d is world rank %d on %s, not in order on %s", what, q, world[q],
              names[world[q]], names[me]);
    }
    free(world);
    OK(MPI_Comm_get_info(nc, &info));
    OK(MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, hw) == 0, "%s: mpi_hw_resource_type \"%s\" (flag %d)", what, val,
          flag);
    OK(MPI_Info_free(&info));
}

static void test_split(void)
{
    const char *shm = "mpi_shared_memory";
    char val[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    MPI_Comm nc, inner;
    MPI_Info guided, asked;

    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &nc));
    check_host_comm(nc, shm, "SHARED");
    OK(MPI_Comm_free(&nc));
    OK(MPI_Info_create(&guided));
    OK(MPI_Info_set(guided, "mpi_hw_resource_type", shm));
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, me, guided, &nc));
    check_host_comm(nc, shm, "HW_GUIDED mpi_shared_memory");
    OK(MPI_Comm_free(&nc));
    OK(MPI_Info_free(&guided));
    OK(MPI_Info_create(&asked));
    nc = MPI_COMM_SELF;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, me, asked, &nc));
    if (hosts == 1) {
        CHECK(nc == MPI_COMM_NULL, "HW_UNGUIDED on one host: MPI_COMM_NULL");
        OK(MPI_Info_free(&asked));
        return;
    }
    check_host_comm(nc, shm, "HW_UNGUIDED across hosts");
    OK(MPI_Info_get(asked, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag && strcmp(val, shm) == 0, "HW_UNGUIDED: the type in the program's info: \"%s\"",
          val);
    inner = MPI_COMM_SELF;
    OK(MPI_Comm_split_type(nc, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &inner));
    CHECK(inner == MPI_COMM_NULL, "HW_UNGUIDED inside a host: MPI_COMM_NULL (no finer domain)");
    OK(MPI_Comm_free(&nc));
    OK(MPI_Info_free(&asked));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    phases_expected = 2;
    count_hosts();
    phase("hosts counted");
    test_split();
    printf("rank %d: %d host(s), %d rank(s) on mine\n", me, hosts, mine);
    phase("Comm_split_type SHARED, HW_GUIDED, HW_UNGUIDED by host");
    free(names);
    MPI_Finalize();
    return summary();
}
