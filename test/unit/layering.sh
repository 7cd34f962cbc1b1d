#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Layers call one way only: src/base (the kit: status, log, config, queue, hash, clock, wire,
# registration cache) includes nothing from the layers above it (transports, wireup,
# progress, pml, collectives, core). A base module that needs something from above takes
# callbacks instead (see the registration cache). The same holds for the pml below the
# collectives and the core.
set -u
cd "$top_srcdir" || exit 1

bad=$(grep -n '#include "\(btl\|btl_[a-z]*\|wireup\|progress\|pml\|collectives\|core\)/' \
    src/base/*.[ch])
if [ -n "$bad" ]; then
    echo "$bad"
    echo "FAIL: src/base includes headers of the layers above it (above); pass callbacks"
    exit 1
fi
echo "ok: src/base includes nothing from the layers above it"

# The point-to-point layer is below the collectives and the core: it calls neither (the
# collectives' check of comm_dup and comm_split is a hook they set, rcmsg_pml_set_comm_check,
# and so is the release of their scratch with a communicator, rcmsg_pml_set_comm_fini).
bad=$(grep -n '#include "\(collectives\|core\)/' src/pml/*.[ch])
if [ -n "$bad" ]; then
    echo "$bad"
    echo "FAIL: src/pml includes headers of the layers above it (above); pass callbacks"
    exit 1
fi
echo "ok: src/pml includes nothing from the collectives or the core"

# The MPI face is built over the public API only: src/mpi includes <rcmsg.h>, <mpi.h>, its
# own headers and system headers, nothing of rcmsg's internals.
bad=$(grep -n '#include "' src/mpi/*.[ch] | grep -v '#include "mpi/mpi_[a-z]*\.h"')
bad="$bad$(grep -n '#include <\(base\|btl[a-z_]*\|wireup\|progress\|pml\|collectives\|core\|tools\)/' src/mpi/*.[ch])"
if [ -n "$bad" ]; then
    echo "$bad"
    echo "FAIL: src/mpi includes more than <rcmsg.h>, <mpi.h> and its own headers (above)"
    exit 1
fi
echo "ok: src/mpi includes only <rcmsg.h>, <mpi.h> and its own headers"

# One place per mechanism: the collectives take memory only from their per-communicator
# scratch (src/collectives/coll_scratch.c), never from malloc and free call by call.
bad=$(grep -n '\<\(malloc\|calloc\|realloc\|free\|aligned_alloc\|posix_memalign\) *(' \
    src/collectives/*.[ch] | grep -v '^src/collectives/coll_scratch\.c:')
if [ -n "$bad" ]; then
    echo "$bad"
    echo "FAIL: src/collectives allocates outside coll_scratch.c (above); use rcmsg_coll_scratch_get"
    exit 1
fi
echo "ok: src/collectives allocates only in coll_scratch.c"

# ---- Files in a folder in an order, calls going down (issue 39 item 6) -------------------
# A .c file calls another when it names an extern that only the other defines (read from the
# built objects with nm: what each defines, what each leaves undefined). file_order FOLDER
# "TOP ... BOTTOM" fails when a .c file of src/FOLDER is not in the order, when a file calls
# one listed above it, or when its files call each other in a circle (tsort names it).
file_order_calls() { # FOLDER: lines "caller callee symbol", file names without .c
    objs=$top_builddir/src/$1/.libs
    [ -d "$objs" ] || objs=$top_builddir/src/$1
    for c in "$top_srcdir"/src/$1/*.c; do
        f=$(basename "$c" .c)
        [ -f "$objs/$f.o" ] || { echo "missing $objs/$f.o (build first)" >&2; return 1; }
        nm --defined-only -g "$objs/$f.o" | awk -v f="$f" 'NF == 3 {print $3, f}'
    done | sort >"$tmp.defs" || return 1
    for c in "$top_srcdir"/src/$1/*.c; do
        f=$(basename "$c" .c)
        nm -u "$objs/$f.o" | awk '{print $NF}' | sort -u | join - "$tmp.defs" |
            awk -v f="$f" '$2 != f {print f, $2, $1}'
    done
}

file_order() { # FOLDER "TOP ... BOTTOM"
    set -- "$1" "$(echo $2)" # (the order on one line)
    calls=$(file_order_calls "$1") || { echo "FAIL: src/$1: no objects to read"; return 1; }
    fail=0
    for c in "$top_srcdir"/src/$1/*.c; do
        case " $2 " in *" $(basename "$c" .c) "*) ;; *)
            echo "src/$1/$(basename "$c"): not in the file order"
            fail=1
            ;;
        esac
    done
    up=$(printf '%s\n' "$calls" | awk -v order="$2" '
        BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) pos[o[i]] = i }
        NF == 3 && pos[$1] > pos[$2] { print "src/'"$1"'/" $1 ".c calls " $2 ".c above it: " $3 }')
    [ -z "$up" ] || { echo "$up"; fail=1; }
    loop=$(printf '%s\n' "$calls" | awk 'NF == 3 {print $1, $2}' | tsort 2>&1 >/dev/null)
    [ -z "$loop" ] || { echo "$loop"; fail=1; }
    if [ $fail -ne 0 ]; then
        echo "FAIL: src/$1: files out of their order or calling each other in a circle (above)"
        return 1
    fi
    echo "ok: src/$1 calls go down its file order, no call circle across its files"
}
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp" "$tmp.defs"' EXIT
status=0

# -- src/pml (w39-pml) --
# Top to bottom: init and fini; the public communicator calls; what peers send (the
# transports' recv_cb); the agreement on a context; the public point-to-point calls; progress
# and liveness; the stall dump; a peer's loss; cancel; a communicator's break; the receive
# side (matched receives, unexpected messages, rendezvous reads); the send side; requests and
# the wait loop (liveness through a hook); argument checks; the handle table; the bottom
# helpers and the peers' state (a peer's loss up through a hook); the matching queues.
file_order pml "pml pml_fini_recv pml_comm pml_rx pml_ctx pml_p2p pml_liveness pml_dump pml_fail
    pml_cancel pml_break pml_recv pml_send pml_req pml_check pml_handle pml_base pml_match" ||
    status=1
# -- end src/pml --

exit $status
