#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian 12 packages rcmsg needs to build, test and run its demo (as root, or
# through sudo). Packages already installed are not fetched again.
set -eu
pkgs="build-essential autoconf automake libtool pkg-config
      libibverbs-dev ibverbs-providers rdma-core ibverbs-utils libhwloc-dev hwloc libpmix-dev check
      openmpi-bin libopenmpi-dev mpich libmpich-dev slurm-wlm
      qemu-system-x86 linux-image-amd64 busybox-static cpio kmod iproute2 xz-utils zstd
      perftest clang-format valgrind gnuplot-nox jq"
missing=
for p in $pkgs; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing"
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing
