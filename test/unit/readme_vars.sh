#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# README.md's table of RCMSG_* variables must be exactly what the configuration table says
# (regenerate it with: src/tools/rcmsg_info --markdown).
set -u
readme="$top_srcdir/README.md"
want=$(mktemp); have=$(mktemp)
trap 'rm -f "$want" "$have"' EXIT
"$top_builddir/src/tools/rcmsg_info" --markdown > "$want" || exit 1
sed -n '/<!-- variables:begin -->/,/<!-- variables:end -->/p' "$readme" | sed '1d;$d' > "$have"
if ! diff -u "$have" "$want"; then
    echo "FAIL: README.md's variable table differs from the code (diff above: - README, + code)"
    exit 1
fi
echo "ok: README.md lists all $(grep -c '^| `RCMSG_' "$want") variables as the code declares them"
