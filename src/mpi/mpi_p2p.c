/* SPDX-License-Identifier: BSD-3-Clause */
#include "mpi/mpi_impl.h"

void mpi_bsend_drain(void)
{
}
