#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpich-tests.sh [-d DIR,DIR...] [-t SECONDS] [-w WORKDIR] [-b BUILDDIR] [-l LISTS] [-m]
# MPICH 4.0.2's own test suite (test/mpi), unmodified, against rcmsg's MPI face: fetches
# Debian's copy of the source (checksum verified), configures test/mpi with
# rcmsg-mpicc-uninstalled, builds the programs the directories' testlists name and runs each
# testlist line under Open MPI's mpirun (sm/self on this host) with a time limit. Prints per
# directory: tests (testlist lines), built, passed, failed, timed out; then the failures.
# A test passes as MPICH's runtests says: exit status 0 and " No Errors" the only output
# (resultTest=TestStatus or TestErrFatal: a nonzero status). Needs the network once; not part
# of make check.
#   -d  directories (default pt2pt,coll,comm,errors,topo,rma,info; errors has subdirectories)
#   -t  time limit of one test (default 60)      -l  testlists (default testlist,testlist.dtp)
#   -w  scratch directory (default /tmp/rcmsg-mpich)   -b  rcmsg's build tree (default build)
#   -m  configure with --enable-threads=multiple (default single), which the directory threads
#       needs: with single its testlists are empty (the workdir is reconfigured on a change)
# Logs: WORKDIR/mpich-4.0.2/test/mpi/DIR/rcmsg-{build,NAME.N}.log.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
dirs=pt2pt,coll,comm,errors,topo,rma,info lists=testlist,testlist.dtp limit=60
work=/tmp/rcmsg-mpich build=$top/build threads=single
while getopts d:t:w:b:l:m o; do
    case $o in
    d) dirs=$OPTARG ;; t) limit=$OPTARG ;; w) work=$OPTARG ;; b) build=$OPTARG ;;
    l) lists=$OPTARG ;; m) threads=multiple ;; *) sed -n '3,18p' "$0"; exit 2 ;;
    esac
done
build=$(cd "$build" && pwd) || exit 2
cc=$build/rcmsg-mpicc-uninstalled
[ -x "$cc" ] || { echo "$cc not built (sh contrib/build.sh)"; exit 2; }
mpirun=$(command -v mpirun) || { echo "mpirun not found (apt-get install openmpi-bin)"; exit 2; }
tarball=mpich_4.0.2.orig.tar.xz
sha=b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860
mkdir -p "$work" && cd "$work" || exit 2
[ -f $tarball ] || curl -fsSO "http://deb.debian.org/debian/pool/main/m/mpich/$tarball" ||
    { echo "could not fetch $tarball"; exit 2; }
echo "$sha  $tarball" | sha256sum -c --quiet || { echo "$tarball: checksum mismatch"; exit 2; }
[ -d mpich-4.0.2/test/mpi ] || tar xJf $tarball mpich-4.0.2/test/mpi || exit 2
cd mpich-4.0.2/test/mpi || exit 2
# rcmsg-threads: the thread level configured (none in a workdir of an older script: single)
[ -f rcmsg-threads ] || { [ ! -f Makefile ] || echo single > rcmsg-threads; }
if [ ! -f Makefile ] || [ "$(cat rcmsg-threads)" != $threads ]; then
    echo "configuring test/mpi, threads $threads (configure.log)"
    ./configure CC="$cc" MPICC="$cc" --disable-fortran --disable-cxx --disable-spawn --disable-romio \
        --disable-perftest --disable-ft-tests --enable-checkerrors --enable-threads=$threads \
        > configure.log 2>&1 || { tail configure.log; exit 2; }
    echo $threads > rcmsg-threads
fi
if ! make -C util CC="$cc" > util.log 2>&1 || ! make -C dtpools CC="$cc" > dtpools.log 2>&1; then
    echo "the harness (util, dtpools) does not build: util.log, dtpools.log"
    exit 1
fi

# tests DIR: the testlist lines of DIR, subdirectories' expanded (DIR/SUB/LINE)
tests() {
    for l in $(echo "$lists" | tr , ' '); do
        [ -f "$1/$l" ] || continue
        grep -v -e '^#' -e '^ *$' "$1/$l" | while read -r name rest; do
            if [ -d "$1/$name" ]; then tests "$1/$name"; else echo "$1 $name $rest"; fi
        done
    done
}
# run DIR NAME NP [KEY=VALUE...]: 0 passed, 1 failed, 2 timed out
run() {
    d=$1 name=$2 np=$3 envs='' args='' result=
    shift 3
    for kv; do
        case $kv in
        env=*) envs="$envs ${kv#env=}" ;; arg=*) args="$args ${kv#arg=}" ;;
        timeLimit=*) [ "${kv#timeLimit=}" -le "$limit" ] || limit_t=${kv#timeLimit=} ;;
        resultTest=*) result=${kv#resultTest=} ;;
        esac
    done
    # shellcheck disable=SC2086
    (cd "$d" && timeout -k 5 "${limit_t:-$limit}" env $envs "$mpirun" --allow-run-as-root \
        --oversubscribe -np "$np" "./$name" $args) > "$log" 2>&1 < /dev/null
    st=$?
    [ $st -ne 124 ] && [ $st -ne 137 ] || return 2
    case $result in TestStatus | TestErrFatal) [ $st -ne 0 ]; return $? ;; esac
    [ $st -eq 0 ] && grep -q '^ *No [Ee]rrors *$' "$log" &&
        ! grep -v -e '^ *No [Ee]rrors *$' -e '^ *Test Passed *$' -e '^ *$' "$log" > /dev/null
}

fails=$work/failures
: > "$fails"
printf '%-16s %6s %6s %6s %6s %9s\n' directory tests built passed failed 'timed out'
for top_d in $(echo "$dirs" | tr , ' '); do
    [ -d "$top_d" ] || { echo "$top_d: no such directory in test/mpi"; continue; }
    tests "$top_d" > "$work/list"
    # build every program once (each alone, so one that does not compile stops nothing else)
    for sub in $(cut -d' ' -f1 "$work/list" | sort -u); do
        progs=$(awk -v d="$sub" '$1 == d { print $2 }' "$work/list" | sort -u)
        # shellcheck disable=SC2086
        (cd "$sub" && rm -f $progs) # rebuilt: they link the library as it is now
        # shellcheck disable=SC2086
        make -k -j2 -C "$sub" CC="$cc" $progs > "$sub/rcmsg-build.log" 2>&1
    done
    n=0 b=0 p=0 f=0 h=0
    while read -r d name np rest; do
        n=$((n + 1))
        [ -x "$d/$name" ] || { echo "$d/$name: not built" >> "$fails"; continue; }
        b=$((b + 1))
        log=$d/rcmsg-$name.$n.log limit_t=
        # shellcheck disable=SC2086
        run "$d" "$name" "$np" $rest
        case $? in
        0) p=$((p + 1)) ;;
        2) h=$((h + 1)); echo "$d/$name $np $rest: timed out" >> "$fails" ;;
        *) f=$((f + 1)); echo "$d/$name $np $rest: failed ($log)" >> "$fails" ;;
        esac
    done < "$work/list"
    printf '%-16s %6d %6d %6d %6d %9d\n' "$top_d" $n $b $p $f $h
done
echo
echo "not built, failed, timed out ($fails):"
sort -u "$fails"
