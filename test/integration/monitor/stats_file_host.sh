#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# RCMSG_STATS_FILE that cannot be written fails rcmsg_init, naming the variable, the expanded
# path and why (it used to be noticed only at rcmsg_finalize, when a long job's counters were
# lost): a directory that does not exist, a path that is a directory (on rank 1 only: rank 0
# then fails naming rank 1), no permission (not as root, whom permissions do not stop); a
# writable one gets the counters at finalize. Two ranks under mpirun.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
dir=$(mktemp -d); trap 'chmod 700 "$dir"/ro 2>/dev/null; rm -rf "$dir"' EXIT
prog="$top_builddir/test/integration/launcher/launcher_test"
run() { run_timeout 60 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe "$@" > "$dir/out" 2>&1; }
err() { grep -q "^\[rcmsg [^ ]*:$1 [0-9]*\] error: RCMSG_STATS_FILE=$2: cannot write '$3' ($4); the counters would be lost at rcmsg_finalize" "$dir/out"; }

# 1. a directory that does not exist, on every rank
run env RCMSG_STATS_FILE="$dir/none/stats.%r.json" "$prog" --init
cat "$dir/out"
for r in 0 1; do
    err $r "$dir/none/stats.%r.json" "$dir/none/stats.$r.json" "directory '$dir/none': No such file or directory" ||
        fail "rank $r did not name the variable, the path and the missing directory"
    grep -q "^rank $r: init: RCMSG_ERR_CONFIG" "$dir/out" || fail "rank $r: rcmsg_init did not fail"
done
echo "ok: a missing directory fails every rcmsg_init, named"

# 2. a directory as the file, on rank 1 only: rank 0 learns it from the address exchange
run sh -c '[ "$PMIX_RANK" != 1 ] || export RCMSG_STATS_FILE="$0"; exec "$1" --init' "$dir" "$prog"
cat "$dir/out"
err 1 "$dir" "$dir" "it is a directory" || fail "rank 1 did not say that the path is a directory"
grep -q "^\[rcmsg [^ ]*:0 [0-9]*\] error: peer 1 failed in rcmsg_init: invalid configuration (RCMSG_ERR_CONFIG)" "$dir/out" ||
    fail "rank 0 did not name rank 1"
each_rank 2 "$dir/out" 'init: RCMSG_ERR_' || fail "not every rcmsg_init failed"
echo "ok: a directory named on rank 1 fails both ranks' rcmsg_init"

# 3. no permission (root is not stopped by permissions: nothing to check then)
mkdir "$dir/ro" && chmod 500 "$dir/ro"
if [ "$(id -u)" -ne 0 ]; then
    run env RCMSG_STATS_FILE="$dir/ro/s.%r" "$prog" --init
    cat "$dir/out"
    err 0 "$dir/ro/s.%r" "$dir/ro/s.0" "directory '$dir/ro': Permission denied" ||
        fail "rank 0 did not say that the directory may not be written"
    echo "ok: a directory without write permission fails rcmsg_init"
else
    echo "SKIP (part): running as root, whom permissions do not stop: the no-permission case is not checked"
fi

# 4. a writable file gets the counters
run env RCMSG_STATS_FILE="$dir/stats.%r.json" "$prog" --init
cat "$dir/out"
each_rank 2 "$dir/out" 'finalize: RCMSG_OK' || fail "a writable file: the job failed"
for r in 0 1; do
    grep -q '"scope":"rank"' "$dir/stats.$r.json" || fail "rank $r wrote no counters"
done
pass "RCMSG_STATS_FILE that cannot be written fails rcmsg_init, naming the variable, the path and why"
