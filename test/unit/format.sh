#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every C file follows the root .clang-format.
set -u
command -v clang-format >/dev/null || { echo "SKIP: clang-format not installed (apt-get install clang-format)"; exit 77; }
cd "$top_srcdir" || exit 1
files=$(find include src test bench -name '*.[ch]' | sort)
if ! clang-format --dry-run -Werror $files; then
    echo "FAIL: run 'clang-format -i' on the files above"
    exit 1
fi
echo "ok: $(echo "$files" | wc -l) files formatted"
