#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# docs/config.md must be exactly what `rcmsg_info --markdown` prints (regenerate it with:
# src/tools/rcmsg_info --markdown > docs/config.md), every variable declared in
# src/base/config_vars.h must be in its table. And the documentation keeps its shape (issue 40):
# README.md at most 300 lines, linking every reference page of docs/; docs/performance.md at
# most 800 lines.
set -u
page="$top_srcdir/docs/config.md"
vars="$top_srcdir/src/base/config_vars.h"
want=$(mktemp); have=$(mktemp)
trap 'rm -f "$want" "$have"' EXIT
fail=0
"$top_builddir/src/tools/rcmsg_info" --markdown > "$want" || exit 1
if [ ! -f "$page" ]; then
    echo "FAIL: docs/config.md is missing (src/tools/rcmsg_info --markdown > docs/config.md)"
    exit 1
fi
if ! diff -u "$page" "$want"; then
    echo "FAIL: docs/config.md differs from 'rcmsg_info --markdown' (diff above: - page, + code);"
    echo "      regenerate it: src/tools/rcmsg_info --markdown > docs/config.md"
    fail=1
fi
n=0
for id in $(sed -n 's/^[[:space:]]*X(\([A-Z0-9_]*\),.*/\1/p' "$vars"); do
    n=$((n + 1))
    if ! grep -q "^| \`RCMSG_$id\` |" "$page"; then
        echo "FAIL: RCMSG_$id (src/base/config_vars.h) is not in docs/config.md's table"
        fail=1
    fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no X(...) variable found in $vars"; exit 1; }
for page in rc sm p2p collectives mpi monitoring liveness config performance; do
    if [ ! -f "$top_srcdir/docs/$page.md" ]; then
        echo "FAIL: docs/$page.md is missing"
        fail=1
    elif ! grep -q "(docs/$page.md)" "$top_srcdir/README.md"; then
        echo "FAIL: README.md does not link docs/$page.md"
        fail=1
    fi
done
limit() { # file, most lines
    lines=$(wc -l < "$top_srcdir/$1")
    if [ "$lines" -gt "$2" ]; then
        echo "FAIL: $1 has $lines lines, more than $2: move detail to a page of docs/ (or to git)"
        fail=1
    fi
}
limit README.md 300
limit docs/performance.md 800
[ "$fail" -eq 0 ] && echo "ok: docs/config.md lists all $n variables of config_vars.h as the code declares them; README links every page of docs/"
exit $fail
