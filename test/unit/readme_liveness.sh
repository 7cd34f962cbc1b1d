#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# docs/liveness.md's bounds ("When a rank, or the launcher, is lost") must follow from the
# defaults the code declares: the retry bound (RCMSG_IB_RETRY_COUNT + 1) x 4.096 us x
# 2^RCMSG_IB_TIMEOUT, the probe interval RCMSG_LIVENESS_INTERVAL and RCMSG_LAUNCHER_TIMEOUT.
set -u
page="$top_srcdir/docs/liveness.md"
table=$("$top_builddir/src/tools/rcmsg_info" --markdown) || exit 1
def() { echo "$table" | awk -F'|' -v v="\`RCMSG_$1\`" '$2 ~ v { gsub(/[ `]/, "", $3); print $3 }'; }
t=$(def IB_TIMEOUT); r=$(def IB_RETRY_COUNT); i=$(def LIVENESS_INTERVAL); l=$(def LAUNCHER_TIMEOUT)
rt=$(def RECOVERY_TIMEOUT)
retry=$(awk -v t="$t" 'BEGIN { printf "%.2f", 4.096e-6 * 2 ^ t }')
bound=$(awk -v t="$t" -v r="$r" 'BEGIN { printf "%.1f", (r + 1) * 4.096e-6 * 2 ^ t }')
section=$(sed -n '/^## When a rank, or the launcher, is lost/,/^## When a link is lost/p' "$page")
[ -n "$section" ] || { echo "FAIL: docs/liveness.md has no section 'When a rank, or the launcher, is lost'"; exit 1; }
fail=0
want() {
    if echo "$section" | grep -qF -- "$1"; then
        echo "ok: docs/liveness.md states '$1'"
    else
        echo "FAIL: docs/liveness.md's section does not state '$1' (defaults: timeout $t, retries $r, interval $i, launcher $l)"
        fail=1
    fi
}
want "= $((r + 1)) x $retry s = $bound s"
want "\`RCMSG_LIVENESS_INTERVAL\` ($i)"
want "2 x $i + $bound s"
want "\`RCMSG_LAUNCHER_TIMEOUT\` ($l)"
# with recovery on, a dead peer costs RCMSG_RECOVERY_TIMEOUT more
rs=${rt%s}
want "\`RCMSG_RECOVERY_TIMEOUT\` ($rt)"
want "$bound s + $rs s = $(awk -v b="$bound" -v r="$rs" 'BEGIN { printf "%.1f", b + r }') s"
want "2 x $i + $bound s + $rs s = $(awk -v b="$bound" -v r="$rs" -v i="${i%s}" 'BEGIN { printf "%.1f", 2 * i + b + r }') s"
exit $fail
