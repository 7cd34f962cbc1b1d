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
