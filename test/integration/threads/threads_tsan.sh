#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The threaded tests under ThreadSanitizer (issue 41 item 4): threads_test and
# mpi_threads_test, 4 threads per rank on 2 and 4 ranks over sm, with no report. In a
# --enable-tsan build they run from it; otherwise this builds only what they need (librcmsg,
# librcmsg_mpi and the two programs) with --enable-tsan --without-verbs into
# $top_builddir/tsan (kept: a later run rebuilds only what changed). SKIP when the compiler
# cannot build with -fsanitize=thread, and in the --enable-debug build (ASan excludes TSan:
# the plain build's make check runs this).
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/threads/threads_lib.sh"
need_mpirun
[ "${SANITIZER_BUILD:-no}" != yes ] ||
    skip "AddressSanitizer build: ThreadSanitizer cannot run with it (the plain build runs this)"
if [ "${TSAN_BUILD:-no}" = yes ]; then
    threads_runs "$top_builddir" 2 4
    pass "no ThreadSanitizer report: 4 threads per rank, 2 and 4 ranks over sm (this build)"
fi
cc=$(sed -n 's/^CC = //p' "$top_builddir/Makefile")
probe=$(mktemp -d)
printf '#include <pthread.h>\nstatic void *f(void *a) { return a; }\nint main(void) { pthread_t t; pthread_create(&t, 0, f, 0); return pthread_join(t, 0); }\n' > "$probe/p.c"
if ! ${cc:-cc} -fsanitize=thread "$probe/p.c" -o "$probe/p" -lpthread > "$probe/out" 2>&1 ||
    ! "$probe/p" >> "$probe/out" 2>&1; then
    cat "$probe/out"
    rm -rf "$probe"
    skip "${cc:-cc} cannot build or run a program with -fsanitize=thread (above)"
fi
rm -rf "$probe"
bd="$top_builddir/tsan"
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j2 "$@"; }
src=$top_srcdir
if [ -f "$top_srcdir/config.status" ]; then
    # configured in place (`./configure && make check`): configure cannot build a second
    # variant from this tree; build from a copy of the release tree, as build_variants.sh does
    src="$top_builddir/tsan-src"
    # (copied again each run: distdir keeps the files' times, so make rebuilds what changed)
    rm -rf "$src"
    mk -C "$top_builddir" distdir distdir="$src" > "$bd.distdir.out" 2>&1 ||
        { tail "$bd.distdir.out"; fail "in-tree build: make distdir (the sources to build from) failed"; }
    echo "ok: in-tree build: the TSan build uses a copy of the release tree in $src"
fi
if [ ! -f "$bd/Makefile" ]; then
    mkdir -p "$bd" && (cd "$bd" && env -u CFLAGS -u LDFLAGS "$src/configure" --enable-tsan \
        --enable-werror --without-verbs) > "$bd.configure.out" 2>&1 ||
        { tail -20 "$bd.configure.out"; rm -rf "$bd"; fail "configure --enable-tsan failed"; }
fi
mk -C "$bd" librcmsg.la librcmsg_mpi.la test/integration/threads/threads_test test/integration/threads/mpi_threads_test \
    > "$bd.make.out" 2>&1 || { tail -30 "$bd.make.out"; fail "the TSan build failed"; }
echo "ok: TSan build in $bd (librcmsg, librcmsg_mpi, the two programs)"
threads_runs "$bd" 2 4
pass "no ThreadSanitizer report: 4 threads per rank, 2 and 4 ranks over sm"
