#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Stands for the unit tests that this configuration does not build (NOT_BUILT, set by
# test/Makefile.include with the reason in NOT_BUILT_WHY): they are reported, not dropped.
echo "SKIP: not built: ${NOT_BUILT:-?}: ${NOT_BUILT_WHY:-?}"
exit 77
