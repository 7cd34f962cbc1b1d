#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One-sided: rcmsg's MPI face against Open MPI's osc, the same program (bench/osc_bench.c)
# built by each library's wrapper, 2 ranks, repetitions alternating (docs/performance.md,
# "One-sided"). Run from the top of a built tree (build/ by default):
#   sh bench/osc_compare.sh [--reps N] [--sizes "8 1024 ..."] [--iters N] [--build DIR]
#   sh bench/osc_compare.sh --guest ...    the same over rc in ONE boot of the Soft-RoCE guest
#   sh bench/osc_compare.sh --summary DIR  the table again from DIR/raw.txt
# Host (sm): each library with MPI_Win_allocate ("alloc": Open MPI's osc sm maps the window
# into both ranks) and MPI_Win_create ("create": Open MPI's osc rdma over btl vader). Guest
# (rc): rcmsg with RCMSG_TRANSPORTS=rc,self; Open MPI with pml ucx and osc ucx over rc_verbs
# (bench/ucx_dev.sh: one device per rank). Prints, per operation and size, the median over the
# repetitions of each: us per operation (lat) or MB/s (bw). Raw outputs in DIR/bench-results/.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build reps=3 sizes="8 64 1024 8192 65536 1048576" iters=1000 guest=no inner=no summ=''
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --guest) guest=yes; shift ;;
    --inner) inner=yes; out=$2; shift 2 ;;
    --summary) summ=$2; shift 2 ;;
    *) echo "osc_compare.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
case $reps in '' | *[!0-9]*) echo "osc_compare.sh: --reps takes a number" >&2; exit 2 ;; esac
rc_prog=$build/bench/rcmsg_osc_bench_rcmpi ompi_prog=$build/bench/rcmsg_osc_bench_mpi
for p in "$rc_prog" "$ompi_prog"; do
    [ -n "$summ" ] || [ -x "$p" ] || { echo "osc_compare.sh: $p is missing (make in $build; Open MPI's mpicc)" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
args="--sizes \"$sizes\" --iters $iters --reps 3"

# one repetition of every variant, appended to $out/raw.txt as "LIB FLAVOR KIND SIZE VALUE"
run_host() {
    for fl in alloc create; do
        c=''; [ $fl = create ] && c=--create
        eval "timeout 600 mpirun -np 2 \"$rc_prog\" $args $c" | sed "s/^/rcmsg $fl /" >> "$out/raw.txt"
        eval "timeout 600 mpirun -np 2 \"$ompi_prog\" $args $c" | sed "s/^/ompi $fl /" >> "$out/raw.txt"
    done
}
run_guest() {
    eval "RCMSG_TRANSPORTS=rc,self timeout 900 mpirun -np 2 \"$rc_prog\" $args" |
        sed "s/^/rcmsg rc /" >> "$out/raw.txt"
    eval "timeout 900 mpirun -np 2 --mca pml ucx --mca osc ucx -x UCX_TLS=rc_verbs,ud_verbs,self \
        -x UCX_IB_GID_INDEX=0 sh \"$top/bench/ucx_dev.sh\" \"$ompi_prog\" $args" |
        sed "s/^/ompi rc /" >> "$out/raw.txt"
}
summary() {
    echo "| flavor | operation | size | rcmsg | Open MPI |"
    echo "|---|---|---:|---:|---:|"
    awk '{ k = $2 " " $3 " " $4; v[$1 " " k] = v[$1 " " k] " " $5; if (!(k in seen)) { seen[k] = 1; order[n++] = k } }
        function med(s,   a, m, i, j, t) { m = split(s, a, " "); for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
            return m ? a[int((m + 1) / 2)] : "-" }
        END { for (i = 0; i < n; i++) { split(order[i], p, " "); u = p[2] ~ /bw/ ? "MB/s" : "us"
            printf "| %s | %s (%s) | %s | %s | %s |\n", p[1], p[2], u, p[3], med(v["rcmsg " order[i]]), med(v["ompi " order[i]]) } }' "$out/raw.txt"
}

if [ -n "$summ" ]; then
    out=$summ
    summary
    exit 0
fi
if [ $inner = yes ]; then # inside the guest
    for r in $(seq "$reps"); do run_guest; done
    exit 0
fi
out=$build/bench-results/osc-$([ $guest = yes ] && echo guest || echo host)-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
: > "$out/raw.txt"
if [ $guest = yes ]; then
    "$top/contrib/rxe-vm/rxe-run" --check || exit 77
    cd "$build"
    env -u MAKEFLAGS "$top/contrib/rxe-vm/rxe-run" --rxe 2 --numa --mem 4G --rw "$top" \
        --timeout 3000 -- sh "$top/bench/osc_compare.sh" --build "$build" --reps "$reps" \
        --sizes "$sizes" --iters "$iters" --inner "$out" 2>&1 | tee "$out/guest.log"
else
    for r in $(seq "$reps"); do run_host; done
fi
summary | tee "$out/summary.md"
