#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rcmsg against Open MPI on the host over sm, paired round by round: in each of REPS rounds
# (7) `coll NAME` of rcmsg and of Open MPI's backend run back to back (the order flipped every
# round); per size the median time of each with its range over the rounds, and the median of
# the per-round ratios rcmsg / Open MPI (the host drifts between rounds: the paired ratio is
# steadier than the ratio of medians).
#   sh bench/coll_paired.sh [NP [COLL...]]      (NP 4; COLL: reduce gather)
#   MIN=SIZE MAX=SIZE (8, 1m); BIND=core: ranks bound to cores; REPS=N
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
np=${1:-4}; [ $# -gt 0 ] && shift; colls=${*:-"reduce gather"}
b=$top/build/bench; out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
run() { mpirun --allow-run-as-root -np "$np" --bind-to "${BIND:-none}" --oversubscribe -x RCMSG_TRANSPORTS=self,sm "$@" 2>/dev/null | grep -v '^#'; }
for r in $(seq 1 "${REPS:-7}"); do
  for c in $colls; do
    if [ $((r % 2)) -eq 0 ]; then
      run $b/rcmsg_bench coll $c --min ${MIN:-8} --max ${MAX:-1m} > $out/r.$c.$r
      run $b/rcmsg_bench_mpi coll $c --min ${MIN:-8} --max ${MAX:-1m} > $out/o.$c.$r
    else
      run $b/rcmsg_bench_mpi coll $c --min ${MIN:-8} --max ${MAX:-1m} > $out/o.$c.$r
      run $b/rcmsg_bench coll $c --min ${MIN:-8} --max ${MAX:-1m} > $out/r.$c.$r
    fi
  done
done
for c in $colls; do
  echo "== $c, $np ranks, ${REPS:-7} rounds: rcmsg and Open MPI median (min-max) us; paired ratio median"
  for r in $(seq 1 "${REPS:-7}"); do join $out/r.$c.$r $out/o.$c.$r | awk '{print $1, $2, $3, $2/$3}'; done |
  sort -n -k1,1 | awk '
    function med(s,  n, x) { n = split(s, x, " "); asortn(x, n); return x[int((n + 1) / 2)] }
    function asortn(x, n,  i, j, t) { for (i = 2; i <= n; i++) { t = x[i]; for (j = i - 1; j >= 1 && x[j] > t; j--) x[j + 1] = x[j]; x[j + 1] = t } }
    function lo(s,  n, x) { n = split(s, x, " "); asortn(x, n); return x[1] }
    function hi(s,  n, x) { n = split(s, x, " "); asortn(x, n); return x[n] }
    { r[$1] = r[$1] " " $2; o[$1] = o[$1] " " $3; q[$1] = q[$1] " " $4; if (!($1 in seen)) { seen[$1] = 1; sz[++ns] = $1 } }
    END { for (i = 1; i <= ns; i++) { s = sz[i]; printf "%8s %9.2f (%7.2f-%8.2f) %9.2f (%7.2f-%8.2f) %6.2f\n", s, med(r[s]), lo(r[s]), hi(r[s]), med(o[s]), lo(o[s]), hi(o[s]), med(q[s]) } }'
done
