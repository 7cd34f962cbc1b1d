#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The one driver of the integration tests: runs an area's testlist (an automake test driver,
# so that every line of the list is its own PASS, FAIL or SKIP in make check's output and in
# test-suite.log; test/Makefile.include names one test per area and place).
#
#   run.sh --test-name NAME --log-file LOG --trs-file TRS [automake's other options] -- \
#       test/integration/AREA/WHERE.testlist
#
# WHERE is host (make check), rdma (inside the Soft-RoCE guest: test/rdma/guest.sh) or nodes
# (on node1 of the two guests of test/rdma/two_nodes.sh: test/integration/nodes/nodes_run.sh). The
# WHERE.testlist name is not a file: the lines are read from test/integration/AREA/testlist.
#
# A testlist holds one run per line (# starts a comment), in the manner of MPICH's testlists:
#   PROGRAM RANKS [KEY=VALUE]...    a program built in the area (its build folder), run with
#                                   RANKS processes: 1 alone (no launcher), more under mpirun
#   SCRIPT.sh [KEY=VALUE]...        a script of the area, for a run that needs more than a
#                                   launch (kill a peer, a link down, valgrind ...)
# with the keys
#   where=host|rdma|nodes  where the line runs (host by default; rdma: inside the guest; nodes:
#                       on node1 of the two-node guests, test/rdma/two_nodes.sh)
#   runner=mpirun|srun  the launcher of a program (mpirun by default; srun: srun --mpi=pmix)
#   env=VAR=VALUE       in the run's environment (repeatable)
#   arg=WORD            an argument of the program (repeatable)
#   timeLimit=SECONDS   the run is killed and fails after it (a program's 120 by default; a
#                       script bounds its own steps, 1800 at most)
# A program passes when it exits 0: it checks its results itself and prints its own summary
# ("rank R of N: 0 failure(s)", or what failed); exit 77 is a SKIP with its reason printed. A
# script passes on 0, skips on 77 (lib.sh: pass, fail, skip). No driver counts output lines.
#
# TESTLIST_ONLY=TEXT in the environment runs only the lines that contain TEXT (a developer's
# shortcut: make check TESTS=test/integration/rc/rdma.testlist TESTLIST_ONLY=rc_compute).
#
# Adding a test to an area: put the program (and its check_PROGRAMS entry in
# test/Makefile.include) or the script into test/integration/AREA/ and add its lines to
# AREA/testlist; a new area also gets its AREA/host.testlist and/or AREA/rdma.testlist entry in
# HOST_TESTS or RDMA_TESTS and its testlist in EXTRA_DIST (test/integration/README).
set -u
name='' log='' trs='' color=no
while [ $# -gt 0 ]; do
    case $1 in
    --test-name) name=$2; shift ;;
    --log-file) log=$2; shift ;;
    --trs-file) trs=$2; shift ;;
    --color-tests) color=$2; shift ;;
    --expect-failure | --enable-hard-errors) shift ;;
    --) shift; break ;;
    *) echo "run.sh: unknown option $1" >&2; exit 99 ;;
    esac
    shift
done
# the test is the last word (automake may put a log compiler before it)
for list; do :; done
area_src=$(dirname "$list")
where=$(basename "$list" .testlist)
area=$(basename "$area_src")
# the area's programs are built under the build tree's copy of its folder
area_build="${top_builddir:-.}/test/integration/$area"
: > "$log"
: > "$trs"
# the failed lines' last output, repeated at the end of the log (a CI report that shows only
# a log's tail then names what failed and why)
failed=$(mktemp) || exit 99
trap 'rm -f "$failed"' EXIT

red='' grn='' blu='' std=''
if [ "$color" = yes ]; then
    e=$(printf '\033')
    red="$e[0;31m" grn="$e[0;32m" blu="$e[1;34m" std="$e[m"
fi

# result RESULT WHAT: one line of the list done
nfail=0 npass=0 nskip=0
result() {
    case $1 in
    PASS) c=$grn; npass=$((npass + 1)) ;;
    SKIP) c=$blu; nskip=$((nskip + 1)) ;;
    *) c=$red; nfail=$((nfail + 1)) ;;
    esac
    echo "${c}$1${std}: test/integration/$2"
    echo ":test-result: $1 $2" >> "$trs"
    echo "$1: $2" >> "$log"
}

# run_line FIELDS...: one line of the testlist; its output appended to the log; returns 0, 77
# or the failure's status
run_line() {
    prog=$1 np=1 runner=mpirun limit=120 env='' args=''
    shift
    case $prog in *.sh) limit=1800 ;; *) np=$1; shift ;; esac
    for kv; do
        case $kv in
        where=*) ;;
        runner=*) runner=${kv#runner=} ;;
        env=*) env="$env ${kv#env=}" ;;
        arg=*) args="$args ${kv#arg=}" ;;
        timeLimit=*) limit=${kv#timeLimit=} ;;
        *) echo "FAIL: $area/testlist: unknown key '$kv'"; return 99 ;;
        esac
    done
    case $prog in
    *.sh) set -- "${SHELL:-/bin/sh}" "$area_src/$prog" ;;
    *)
        set -- "$area_build/$prog" $args
        if [ "$np" -gt 1 ] || [ "$runner" = srun ]; then
            case $runner in
            mpirun)
                [ -n "${MPIRUN:-}" ] && [ -x "$MPIRUN" ] ||
                    { echo "SKIP: mpirun not found (apt-get install openmpi-bin)"; return 77; }
                set -- "$MPIRUN" --allow-run-as-root -np "$np" --oversubscribe "$@" ;;
            srun) set -- srun --mpi=pmix -O -n "$np" "$@" ;;
            *) echo "FAIL: $area/testlist: no runner '$runner'"; return 99 ;;
            esac
        fi
        if [ "$where" = rdma ]; then
            [ -n "$(ls /sys/class/infiniband 2> /dev/null)" ] ||
                { echo "SKIP: no RDMA device here (make check-rdma runs these in the guest)"; return 77; }
            [ "${SANITIZER_BUILD:-no}" != yes ] ||
                { echo "SKIP: sanitizer build: in the emulated guest under ASan these runs take minutes (the host runs the programs under the sanitizers)"; return 77; }
        fi
        ;;
    esac
    timeout -k 10 "$limit" env $env "$@"
    st=$?
    [ $st -ne 124 ] || echo "FAIL: killed after its time limit of $limit s"
    return $st
}

n=0
while read -r line; do
    n=$((n + 1))
    case $line in '' | '#'*) continue ;; esac
    # shellcheck disable=SC2086
    set -- $line
    lw=host
    for kv; do case $kv in where=*) lw=${kv#where=} ;; esac; done
    [ "$lw" = "$where" ] || continue
    case $line in *"${TESTLIST_ONLY:-}"*) ;; *) continue ;; esac
    what="$area/$line"
    echo "==== $what (testlist line $n)" >> "$log"
    t0=$(date +%s)
    out=$(run_line "$@" < /dev/null 2>&1)
    st=$?
    printf '%s\n' "$out" >> "$log"
    echo "==== status $st after $(($(date +%s) - t0)) s" >> "$log"
    case $st in
    0) result PASS "$what" ;;
    77) result SKIP "$what" ;;
    *)
        result FAIL "$what"
        {
            echo "==== FAILED: $what (testlist line $n, status $st); its last 40 lines:"
            printf '%s\n' "$out" | tail -n 40
        } >> "$failed"
        ;;
    esac
done < "$area_src/testlist"

if [ $nfail -gt 0 ]; then
    echo "==== $nfail failed line(s) of $area_src/testlist on $where, again:" >> "$log"
    cat "$failed" >> "$log"
fi

if [ $nfail -gt 0 ]; then
    g=FAIL
elif [ $npass -gt 0 ]; then
    g=PASS
elif [ $nskip -gt 0 ]; then
    g=SKIP
else
    echo "${red}ERROR${std}: $name: no line of $area_src/testlist runs on $where"
    echo ":test-result: ERROR $name" >> "$trs"
    g=FAIL
fi
{
    echo ":global-test-result: $g"
    echo ":recheck: $([ $g = FAIL ] && echo yes || echo no)"
    echo ":copy-in-global-log: $([ $g = PASS ] && echo no || echo yes)"
} >> "$trs"
exit 0
