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
# collectives' check of comm_dup and comm_split is a hook they set, rcmsg_pml_set_comm_check).
bad=$(grep -n '#include "\(collectives\|core\)/' src/pml/*.[ch])
if [ -n "$bad" ]; then
    echo "$bad"
    echo "FAIL: src/pml includes headers of the layers above it (above); pass callbacks"
    exit 1
fi
echo "ok: src/pml includes nothing from the collectives or the core"
