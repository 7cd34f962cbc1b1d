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

# ---- src/mpi: three floors (issue 39 items 5 and 6) ----------------------------------------
# The MPI face's files in order, top to bottom: the bindings (the MPI_* calls; nothing calls
# them), then the engines (requests and their kinds, the collectives' engine), then the
# objects (handles, errors, types, communicators, groups, attributes, operations, the argument
# checks). A .c file calls another when it names an extern that only the other defines (nm of
# the built objects); every call must go to a file below the caller, never into a binding
# file, so there is no call circle. A new file joins one of the lists.
mpi_bindings='mpi_env mpi_err_api mpi_group_api mpi_attr_api mpi_type_api mpi_pack_api
    mpi_op_api mpi_comm_api mpi_inter mpi_p2p mpi_req_api mpi_coll mpi_coll_v mpi_nbc mpi_nbc_red'
mpi_engines='mpi_pending mpi_coll_req mpi_coll_eng mpi_inter_coll mpi_nbc_inter mpi_nbc_eng
    mpi_sched mpi_p2p_req mpi_bsend mpi_req'
mpi_objects='mpi_comm mpi_group mpi_check mpi_attr mpi_op mpi_err mpi_type mpi_pack mpi_handle'
# shellcheck disable=SC2086 # the lists split into words
mpi_order=$(printf '%s ' $mpi_bindings $mpi_engines $mpi_objects)
# shellcheck disable=SC2086
mpi_nbind=$(printf '%s\n' $mpi_bindings | wc -l)
bad=''
for f in src/mpi/*.c; do
    f=$(basename "$f" .c)
    n=$(echo " $mpi_order " | grep -o " $f " | wc -l)
    [ "$n" = 1 ] || bad="$bad src/mpi/$f.c is in $n of the floor lists (one expected)
"
done
if [ -n "$bad" ]; then
    printf '%s' "$bad"
    echo "FAIL: every file of src/mpi takes one place in test/unit/layering.sh's mpi floors"
    exit 1
fi
mpi_objs=''
for f in $mpi_order; do
    o=''
    for d in "${top_builddir:-.}/src/mpi/.libs" "${top_builddir:-.}/src/mpi"; do
        [ -f "$d/$f.o" ] && o="$d/$f.o" && break
    done
    [ -n "$o" ] || { mpi_objs=''; break; }
    mpi_objs="$mpi_objs $f=$o"
done
if [ -z "$mpi_objs" ] || ! command -v nm > /dev/null; then
    echo "SKIP (part): src/mpi's call order: no built objects under" \
        "\$top_builddir/src/mpi, or no nm"
else
    bad=$(for fo in $mpi_objs; do
        f=${fo%%=*} o=${fo#*=}
        nm --defined-only -g "$o" | awk -v f="$f" 'NF == 3 {print "D", $3, f}'
        nm -u "$o" | awk -v f="$f" '{print "U", $2, f}'
    done | awk -v order="$mpi_order" -v nb="$mpi_nbind" '
        BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
        $1 == "D" { defs[$2] = defs[$2] == "" ? $3 : "*" }   # "*": defined twice
        $1 == "U" { use[++u] = $3 " " $2 }
        END {
            for (i = 1; i <= u; i++) {
                split(use[i], p, " "); from = p[1]; sym = p[2]; to = defs[sym]
                if (to == "" || to == "*" || to == from) continue
                if (rank[to] <= nb) why = "calls into the binding file"
                else if (rank[to] < rank[from]) why = "calls up into"
                else continue
                print "src/mpi/" from ".c " why " src/mpi/" to ".c (" sym ")"
            }
        }' | sort -u)
    if [ -n "$bad" ]; then
        echo "$bad"
        echo "FAIL: src/mpi calls against its floors (above): bindings -> engines -> objects," \
            "each file calling only files below it (test/unit/layering.sh's lists)"
        exit 1
    fi
    echo "ok: src/mpi's files call down only (bindings -> engines -> objects), none into a binding"
fi
