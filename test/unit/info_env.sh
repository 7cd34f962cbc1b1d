#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rcmsg_info and the environment: a misspelt variable warns and names the nearest real one;
# a bad value fails and names the accepted form; a good value is shown.
set -u
info="$top_builddir/src/tools/rcmsg_info"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0
check() { # check DESCRIPTION COMMAND-STATUS EXPECTED-STATUS PATTERN
    if [ "$2" -ne "$3" ] || ! grep -q -- "$4" "$out"; then
        echo "FAIL: $1 (status $2, expected $3; pattern '$4')"; cat "$out"; fail=1
    else
        echo "ok: $1"
    fi
}

RCMSG_LOG_LEVL=info "$info" -c > "$out" 2>&1
check "misspelt variable warns with the nearest" $? 0 "unknown variable RCMSG_LOG_LEVL ignored; did you mean RCMSG_LOG_LEVEL?"

RCMSG_IB_RETRY=3 "$info" -c > "$out" 2>&1
check "an abbreviated variable warns with the one it abbreviates" $? 0 "unknown variable RCMSG_IB_RETRY ignored; did you mean RCMSG_IB_RETRY_COUNT?"

RCMSQ_EAGER_LIMIT=4k "$info" -c > "$out" 2>&1
check "a misspelt prefix warns naming the variable meant" $? 0 "variable RCMSQ_EAGER_LIMIT ignored: .*did you mean RCMSG_EAGER_LIMIT?"

rcmsg_eager_limit=4k "$info" -c > "$out" 2>&1
check "a lower-case variable warns naming the variable meant" $? 0 "variable rcmsg_eager_limit ignored: .*did you mean RCMSG_EAGER_LIMIT?"

OMPI_MCA_pml=ob1 PMIX_RANK=0 SLURM_PROCID=0 RCMSGX_FOO=1 "$info" -c > "$out" 2>&1
check "other variables are shown nothing" $? 0 "^RCMSG_EAGER_LIMIT=8k$"
if grep -q "warn:" "$out"; then
    echo "FAIL: other programs' variables warned"; grep "warn:" "$out"; fail=1
fi

RCMSG_LOG_LEVEL=loud "$info" -c > "$out" 2>&1
check "bad level fails naming the accepted levels" $? 1 "invalid value 'loud' for RCMSG_LOG_LEVEL: expected one of error|warn|info|debug|trace"

RCMSG_SRQ_BUF_SIZE=12q "$info" -c > "$out" 2>&1
check "bad size fails naming the form" $? 1 "RCMSG_SRQ_BUF_SIZE: expected a size in bytes"

RCMSG_EAGER_LIMIT= "$info" -c > "$out" 2>&1
check "an empty value fails naming the variable and the form" $? 1 "empty value for RCMSG_EAGER_LIMIT: expected a size in bytes"

RCMSG_EAGER_LIMIT="8k " "$info" -c > "$out" 2>&1
check "a trailing blank fails naming the variable and the form" $? 1 "invalid value '8k ' for RCMSG_EAGER_LIMIT: expected a size in bytes"

RCMSG_IB_RNR_RETRY=5 "$info" -c > "$out" 2>&1
check "a good value is shown as set" $? 0 "^RCMSG_IB_RNR_RETRY=5$"
grep -q "set in the environment" "$out" || { echo "FAIL: not marked as set"; fail=1; }

"$info" --bogus > "$out" 2>&1
check "bad option gives usage" $? 2 "usage: rcmsg_info"

"$info" -v > "$out" 2>&1
check "version" $? 0 "^# rcmsg version [0-9]"

exit $fail
