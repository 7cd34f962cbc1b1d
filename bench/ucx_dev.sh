#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpirun wrapper: each rank of an Open MPI + UCX job uses rxe<local rank mod 2>, as rcmsg's
# ranks and perftest's two ends do, so that the traffic crosses the veth pair.
UCX_NET_DEVICES=rxe$((${OMPI_COMM_WORLD_LOCAL_RANK:-0} % 2)):1
export UCX_NET_DEVICES
exec "$@"
