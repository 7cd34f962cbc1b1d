#!/bin/sh
# The whole test suite from a fresh Debian 12 machine: installs the packages, builds with
# warnings as errors, runs `make check` (host unit and launch tests, then ONE boot of the
# Soft-RoCE guest for the RDMA tests), then `make distcheck` (the release tarball built with
# AddressSanitizer, UBSan and LeakSanitizer, and the whole suite run again under them).
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
[ $status -eq 0 ] || { echo "make check failed"; exit 1; }
make -j"$(nproc)" distcheck || { echo "make distcheck failed"; exit 1; }
