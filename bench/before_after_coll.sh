#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Before/after a change to the collectives on the host over sm, with Open MPI in the same runs:
# `coll NAME --min 8 --max 1m` for each collective, the two builds and Open MPI's backend
# (rcmsg_bench_mpi) interleaved, 3 rounds (REPS=N to change); the median per size, and each
# build's time over Open MPI's.
#   sh bench/before_after_coll.sh OLD_TREE NEW_TREE [NP [COLL...]]
#     (each tree with a built build/ directory; NP 2; COLL: gather scatter reduce)
#   MAX=SIZE: the largest size (1m); BIND=core: ranks bound to cores (NP up to the cores)
old=${1:?old tree}; new=${2:?new tree}; np=${3:-2}
[ $# -gt 3 ] && shift 3 && colls=$* || colls="gather scatter reduce"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
run() { mpirun --allow-run-as-root -np "$np" --bind-to "${BIND:-none}" --oversubscribe -x RCMSG_TRANSPORTS=self,sm "$@" 2>/dev/null | grep -v '^#'; }
for r in $(seq 1 "${REPS:-3}"); do
    for c in $colls; do
        run "$old/build/bench/rcmsg_bench" coll "$c" --min 8 --max "${MAX:-1m}" > "$out/before.$c.$r"
        run "$new/build/bench/rcmsg_bench" coll "$c" --min 8 --max "${MAX:-1m}" > "$out/after.$c.$r"
        run "$new/build/bench/rcmsg_bench_mpi" coll "$c" --min 8 --max "${MAX:-1m}" > "$out/ompi.$c.$r"
    done
done
for c in $colls; do
    echo "== $c, $np ranks: median of ${REPS:-3} (us)"
    printf '%8s %9s %9s %9s %7s %7s\n' size before after ompi b/ompi a/ompi
    for v in before after ompi; do
        cat "$out/$v.$c."* | sort -n -k1,1 -k2,2g |
            awk '{ a[$1] = a[$1] " " $2 } END { for (s in a) { n = split(a[s], x, " "); print s, x[int((n + 1) / 2)] } }' |
            sort -n > "$out/$v.$c.med"
    done
    join "$out/before.$c.med" "$out/after.$c.med" | join - "$out/ompi.$c.med" |
        awk '{ printf "%8s %9.2f %9.2f %9.2f %7.2f %7.2f\n", $1, $2, $3, $4, $2 / $4, $3 / $4 }'
done
