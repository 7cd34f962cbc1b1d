#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Instructions per blocking collective call, minus the waits that spin for the peers (load-
# independent: docs/performance.md, "Instructions per call").
#   sh bench/coll_instr.sh BUILD NP COLL BYTES [ITERS]
# BUILD: a configured and built tree (its rcmsg-mpicc-uninstalled); COLL: allreduce, bcast,
# barrier, alltoall (rcmsg.h), mpi_allreduce_user (MPI_Allreduce with an MPI_Op_create sum),
# mpi_inter_bcast, mpi_inter_allreduce (over an intercommunicator of the even and odd ranks).
# Prints the mean over the ranks of (inclusive Ir of the call - Ir of its rcmsg_wait calls)/ITERS.
set -eu
build=$(cd "$1" && pwd) np=$2 coll=$3 bytes=$4 iters=${5:-1000}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/rcmsg-mpicc-uninstalled" -O2 -DCOLL_LOOP_MPI -o "$out/coll_loop" "$here/coll_loop.c"
case $coll in
mpi_allreduce_user | mpi_inter_allreduce) fn=MPI_Allreduce ;;
mpi_inter_bcast) fn=MPI_Bcast ;;
*) fn=rcmsg_$coll ;;
esac
timeout 900 mpirun --allow-run-as-root -np "$np" --oversubscribe --bind-to none \
    -x RCMSG_TRANSPORTS=self,sm valgrind --tool=callgrind --toggle-collect="$fn" \
    --callgrind-out-file="$out/cg.%p" "$out/coll_loop" "$coll" "$bytes" "$iters" \
    > "$out/log" 2>&1 || { cat "$out/log"; exit 1; }
for f in "$out"/cg.*; do
    callgrind_annotate --inclusive=yes "$f" 2> /dev/null | awk -v fn="$fn" -v it="$iters" '
        $0 ~ ":" fn " \\[" { gsub(",", "", $1); a = $1 }
        /:rcmsg_wait \[/ { gsub(",", "", $1); w = $1 }
        END { printf "%.0f\n", (a - w) / it }'
done | awk -v c="$coll" -v np="$np" -v b="$bytes" '{ s += $1; n++ }
    END { printf "%s, %s ranks, %s B: %.0f instructions per call\n", c, np, b, s / n }'
