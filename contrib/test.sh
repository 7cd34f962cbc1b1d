#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The whole test suite from a fresh Debian 12 machine: installs the packages, builds with
# warnings as errors, runs `make check` (host unit and launch tests, then ONE boot of the
# Soft-RoCE guest for the RDMA tests, then one boot of two guests: rxe-run --nodes 2), then
# `make distcheck` (the release tarball built with AddressSanitizer, UBSan and LeakSanitizer,
# and the whole suite run again under them).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/contrib/install-deps.sh"
sh "$top/contrib/build.sh"
cd "$top/build"
status=0
make -j"$(nproc)" check || status=1
for f in test-suite.log test/rdma-suite.log; do
    [ -f "$f" ] && [ $status -ne 0 ] && cat "$f"
done
# a CI report may keep only the output's head and tail: name each failed testlist line and its
# first FAIL lines last, so that the tail says what failed in every area, not only the last one
brief() { # a failed line without FAIL lines shows its last line
    for f in "$@"; do
        [ -f "$f" ] && awk 'function flush() { if (h && n == 0 && last != "") print "    " last }
            /^==== [0-9]* failed line\(s\) of /{ on = 1; print; next }
            on && /^==== FAILED: /{ flush(); print; h = 1; n = 0; last = ""; next }
            on && /^FAIL/ && n < 6 { print "    " $0; n++ }
            on { last = $0 }
            END { flush() }' "$f"
    done
}
if [ $status -ne 0 ]; then
    echo "==== make check: the failed lines, in brief:"
    brief test/integration/*/*.log test/rdma/*.log | head -80
    echo "make check failed"
    exit 1
fi
if ! make -j"$(nproc)" distcheck; then
    # distcheck leaves its build tree behind when it fails: show the failed tests' logs
    find rcmsg-*/_build -name test-suite.log -exec cat {} + 2>/dev/null
    echo "make distcheck failed"
    exit 1
fi
# one closing line over make check: the host tests plus each test run inside the guest
# (test/rdma/guest.sh itself, which passes when they do, is not counted twice)
count() { # count WHAT LOGFILE: the "# WHAT: N" line of an automake summary, 0 without one
    n=$(sed -n "s/^# $1: *\([0-9]*\)\$/\1/p" "$2" 2>/dev/null | head -1)
    echo "${n:-0}"
}
p=$(( $(count PASS test-suite.log) + $(count PASS test/rdma-suite.log) ))
[ "$(count PASS test/rdma-suite.log)" -gt 0 ] && p=$((p - 1))
f=$(( $(count FAIL test-suite.log) + $(count ERROR test-suite.log) ))
k=$(( $(count SKIP test-suite.log) + $(count SKIP test/rdma-suite.log) ))
echo "tests: $p passed, $f failed, $k skipped"
