/* SPDX-License-Identifier: BSD-3-Clause */
/* Outside the subset: one-sided communication is not declared, so this must not compile
 * (test/integration/mpi/mpi_wrapper.sh checks that it fails, naming MPI_Win_create). */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Win win;
    static int mem[4];

    MPI_Init(&argc, &argv);
    MPI_Win_create(mem, sizeof(mem), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Finalize();
    return 0;
}
