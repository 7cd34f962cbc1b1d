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

# ---- file order inside a folder (issue 39, item 6) -------------------------------------------
# A .c file calls another when it names an extern (a function or variable defined at file scope,
# not static) that only the other defines; comments and strings do not count. calls DIR prints
# "caller callee name" for each such use, from the sources as text (no build needed).
calls() {
    awk '
    FNR == 1 { f = FILENAME; sub(".*/", "", f); incom = 0 }
    {
        line = $0; out = ""
        while (line != "") {               # comments, strings and character constants out
            if (incom) {
                p = index(line, "*/")
                if (p == 0) { line = ""; break }
                line = substr(line, p + 2); incom = 0; continue
            }
            if (match(line, /\/\*|\/\/|"([^"\\]|\\.)*"|'"'"'([^'"'"'\\]|\\.)*'"'"'/) == 0) {
                out = out line; break
            }
            tok = substr(line, RSTART, RLENGTH)
            out = out substr(line, 1, RSTART - 1) " "
            line = substr(line, RSTART + RLENGTH)
            if (tok == "/*") incom = 1
            else if (tok == "//") line = ""
        }
        sub(/^__attribute__\(\([^()]*(\([^()]*\))?[^()]*\)\) */, "", out) # (no name: a keyword)
        if (out ~ /^[A-Za-z_]/ && out !~ /^(static|typedef|extern|enum|union|struct [A-Za-z_0-9]+ *\{)/) {
            if (match(out, /[A-Za-z_][A-Za-z_0-9]*\(/) && out !~ /;[ \t]*$/) {
                name = substr(out, RSTART, RLENGTH - 1)          # a function defined here
                def[name] = f; ndef[name]++
            } else if (match(out, /[A-Za-z_][A-Za-z_0-9]*[ \t]*(\[[^]]*\])?[ \t]*(=|;)/)) {
                name = substr(out, RSTART, RLENGTH); sub(/[ \t\[=;].*/, "", name)
                def[name] = f; ndef[name]++                      # a variable defined here
            }
        }
        n = split(out, w, /[^A-Za-z_0-9]+/)
        for (i = 1; i <= n; i++) if (w[i] ~ /^[A-Za-z_]/) used[f, w[i]] = 1
    }
    END {
        for (k in used) {
            split(k, kp, SUBSEP)
            if (ndef[kp[2]] == 1 && def[kp[2]] != kp[1]) print kp[1], def[kp[2]], kp[2]
        }
    }' "$1"/*.c | sort
}

# file_order DIR "FLOOR" "FLOOR" ...: every .c file of DIR is on one floor (top first, names
# without .c); a file calls only files on its floor or below, and no files call each other in
# a circle (on one floor either).
file_order() {
    dir=$1; shift
    floors=$(i=0; for fl in "$@"; do for f in $fl; do echo "$f.c $i"; done; i=$((i + 1)); done)
    edges=$(calls "$dir")
    status=0
    for f in "$dir"/*.c; do
        f=${f##*/}
        if ! echo "$floors" | grep -q "^$f "; then
            echo "FAIL: $dir/$f is on no floor of its folder's order (test/unit/layering.sh)"
            status=1
        fi
    done
    up=$(echo "$edges" | awk -v fl="$floors" '
        BEGIN { n = split(fl, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], p, " "); at[p[1]] = p[2] } }
        NF == 3 && at[$1] != "" && at[$2] != "" && at[$2] < at[$1] { print "  " $1 " -> " $2 ": " $3 }')
    if [ -n "$up" ]; then
        echo "$up"
        echo "FAIL: in $dir, files call up a floor (above); pass an ops table or a callback"
        status=1
    fi
    loop=$(echo "$edges" | awk 'NF == 3 { print $1, $2 }' | sort -u | tsort 2>&1 >/dev/null)
    if [ -n "$loop" ]; then
        echo "$loop"
        in_loop=$(echo "$loop" | sed -n 's/^tsort: \([a-z_0-9]*\.c\)$/\1/p' | sort -u | tr '\n' ' ')
        echo "$edges" | awk -v l=" $in_loop" 'index(l, " " $1 " ") && index(l, " " $2 " ") {
            print "  " $1 " -> " $2 ": " $3 }'
        echo "FAIL: in $dir, files call each other in a circle (tsort above)"
        status=1
    fi
    [ $status = 0 ] && echo "ok: $dir: files call down its order, in no circle"
    return $status
}

# btl_rc (issue 39, item 1): the ops and progress; the pieces of state with one owner each;
# the floor (request slots and posts, the receive side); the verbs objects, the CM, the device.
file_order src/btl_rc "rc_component rc_none" "rc_btl" \
    "rc_fast rc_rec rc_conn rc_pool rc_async rc_sync" "rc_ep rc_rx" \
    "rc_qp rc_cm rc_cm_fsm rc_device rc_port rc_addr rc_config rc_memlock rc_gate rc_defer" \
    || exit 1

# pml (issue 39, item 2), top to bottom: init and fini; the public communicator calls; what
# peers send (the transports' recv_cb); the agreement on a context; the public point-to-point
# calls; wait and test; progress and liveness; the stall dump; a peer's loss; cancel; a
# communicator's break; the receive side (matched receives, unexpected messages, rendezvous
# reads); the send side; requests; argument checks; the handle table; the bottom helpers and
# the peers' shared state (a peer's loss up through a hook); the matching queues.
file_order src/pml pml pml_fini_recv pml_comm pml_rx pml_ctx pml_p2p pml_wait pml_liveness \
    pml_dump pml_fail pml_cancel pml_break pml_recv pml_send pml_req pml_check pml_handle \
    pml_base pml_match || exit 1

# mpi (issue 39, items 5 and 6): the MPI face's files in order, top to bottom: the bindings
# (the MPI_* calls; nothing calls them), the engines (requests and their kinds, the
# collectives' engine), the objects (handles, errors, types, communicators, groups, attributes,
# operations, the argument checks). Each file calls only files below it, none a binding file.
mpi_bindings='mpi_env mpi_err_api mpi_group_api mpi_attr_api mpi_type_api mpi_type_query_api
    mpi_pack_api
    mpi_op_api mpi_comm_api mpi_inter mpi_p2p mpi_count_api mpi_req_api mpi_coll mpi_coll_v mpi_nbc mpi_nbc_red
    mpi_info_api mpi_type_env_api mpi_grequest mpi_names_api mpi_nbc_v mpi_topo_api mpi_neighbor
    mpi_win mpi_win_rma mpi_win_sync mpi_win_attr mpi_win_dyn mpi_dpm'
mpi_engines='mpi_inter_make mpi_pending mpi_pcoll_req mpi_inter_coll mpi_neighbor_req mpi_idup_req mpi_coll_req mpi_coll_eng mpi_p2p_req mpi_bsend mpi_req
    mpi_win_xfer mpi_win_obj mpi_win_hints'
mpi_objects='mpi_coll_c mpi_comm mpi_topo mpi_group mpi_check mpi_attr mpi_op mpi_err mpi_type mpi_pack_ext mpi_pack mpi_info
    mpi_type_attr mpi_handle'
# shellcheck disable=SC2086 # the lists split into words, one floor per file
file_order src/mpi $mpi_bindings $mpi_engines $mpi_objects || exit 1
bad=$(calls src/mpi | awk -v b=" $(echo $mpi_bindings) " 'index(b, " " substr($2, 1, length($2) - 2) " ") {
    print "  " $1 " -> " $2 ": " $3 }')
if [ -n "$bad" ]; then
    echo "$bad"
    echo "FAIL: in src/mpi, files call into a binding file (above)"
    exit 1
fi
echo "ok: src/mpi: no file calls into a binding file"

# mpi (issue 39 item 4): no collective algorithm in the MPI face: only the point-to-point
# bindings and their engines send or receive (rcmsg_isend, rcmsg_recv, ...; the pml's own
# entries never), and two communicator constructors' exchanges that MPI puts on the program's
# point-to-point space (Intercomm_create's leaders over peer_comm, Comm_create_group's key with
# the program's tag), the ports' requests and answers and Comm_join's meeting (mpi_dpm.c, on
# rcmsg_comm_world_private), and one-sided's PSCW (its post and complete messages, on the window's own
# duplicate communicator) and lock waits (mpi_win_obj.c: a receive from the holder that nothing
# matches, for its liveness). Every collective is a binding over rcmsg's.
p2p_ok=' mpi_p2p.c mpi_p2p_req.c mpi_bsend.c mpi_inter_make.c mpi_dpm.c mpi_comm_api.c mpi_win_sync.c mpi_win_obj.c '
bad=$(grep -Hn -E '\brcmsg_(pml_[a-z_]+|i?s?send|i?recv|sendrecv|issend|mrecv)[[:space:]]*\(' \
    src/mpi/*.c | awk -F: -v ok="$p2p_ok" '{ f = $1; sub(".*/", "", f) }
    index($3, "rcmsg_pml_") || !index(ok, " " f " ") { print "  " f ":" $2 ":" $3 }')
if [ -n "$bad" ]; then
    echo "$bad"
    echo "FAIL: src/mpi sends or receives outside its point-to-point files (above): a collective" \
        "over rcmsg's calls instead"
    exit 1
fi
echo "ok: src/mpi: no collective sends or receives of its own (only rcmsg's collectives)"
