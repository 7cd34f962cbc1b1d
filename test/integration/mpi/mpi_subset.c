/* SPDX-License-Identifier: BSD-3-Clause */
/* Outside the subset: I/O is not declared, so this must not compile
 * (test/integration/mpi/mpi_wrapper.sh checks that it fails, naming MPI_File_open). */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_File fh;

    MPI_Init(&argc, &argv);
    MPI_File_open(MPI_COMM_WORLD, "f", 0, MPI_INFO_NULL, &fh);
    MPI_Finalize();
    return 0;
}
