#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Configures and builds rcmsg in ./build (warnings are errors). Extra arguments go to configure.
set -eu
cd "$(dirname "$0")/.."
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi
mkdir -p build
cd build
[ -f Makefile ] || ../configure --enable-werror "$@"
make -j"$(nproc)"
