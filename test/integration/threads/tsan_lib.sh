# SPDX-License-Identifier: BSD-3-Clause
# The ThreadSanitizer builds of the threaded tests (issue 41 item 4), sourced after lib.sh by
# threads_tsan.sh (host, --without-verbs, into $top_builddir/tsan), test/rdma/guest.sh (on the
# host before the boot: with verbs, into $top_builddir/tsan-rc) and threads_tsan_rc.sh (the
# guest runs that build).
#   tsan_can_build: whether the compiler builds and runs a -fsanitize=thread program ($tsan_why
#     says why not)
#   tsan_build DIR CONFIGURE-ARGS... -- TARGETS...: configures DIR once (--enable-tsan
#     --enable-werror and the arguments; from a copy of the release tree when the source tree is
#     configured in place, as build_variants.sh does) and makes the targets; fails the test when
#     either fails
tsan_mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j2 "$@"; }

tsan_can_build() {
    _cc=$(sed -n 's/^CC = //p' "$top_builddir/Makefile")
    _p=$(mktemp -d)
    printf '#include <pthread.h>\nstatic void *f(void *a) { return a; }\nint main(void) { pthread_t t; pthread_create(&t, 0, f, 0); return pthread_join(t, 0); }\n' > "$_p/p.c"
    if ! ${_cc:-cc} -fsanitize=thread "$_p/p.c" -o "$_p/p" -lpthread > "$_p/out" 2>&1 ||
        ! "$_p/p" >> "$_p/out" 2>&1; then
        tsan_why="${_cc:-cc} cannot build or run a program with -fsanitize=thread: $(tail -3 "$_p/out" | tr '\n' ' ')"
        rm -rf "$_p"
        return 1
    fi
    rm -rf "$_p"
}

tsan_build() {
    _bd=$1
    shift
    _args=""
    while [ "$1" != -- ]; do
        _args="$_args $1"
        shift
    done
    shift
    _src=$top_srcdir
    if [ -f "$top_srcdir/config.status" ]; then
        # configured in place (`./configure && make check`): configure cannot build a second
        # variant from this tree; build from a copy of the release tree, as build_variants.sh
        # does (copied again each run: distdir keeps the files' times, so make rebuilds what
        # changed)
        _src="$_bd-src"
        rm -rf "$_src"
        tsan_mk -C "$top_builddir" distdir distdir="$_src" > "$_bd.distdir.out" 2>&1 ||
            { tail "$_bd.distdir.out"; fail "in-tree build: make distdir (the sources to build from) failed"; }
        echo "ok: in-tree build: the TSan build uses a copy of the release tree in $_src"
    fi
    if [ ! -f "$_bd/Makefile" ]; then
        mkdir -p "$_bd" && (cd "$_bd" && env -u CFLAGS -u LDFLAGS "$_src/configure" --enable-tsan \
            --enable-werror $_args) > "$_bd.configure.out" 2>&1 ||
            { tail -20 "$_bd.configure.out"; rm -rf "$_bd"; fail "configure --enable-tsan$_args failed"; }
    fi
    tsan_mk -C "$_bd" "$@" > "$_bd.make.out" 2>&1 || { tail -30 "$_bd.make.out"; fail "the TSan build in $_bd failed"; }
    echo "ok: TSan build in $_bd ($*)"
}

# What the guest's threads_tsan_rc.sh runs from $top_builddir/tsan-rc.
tsan_rc_targets="librcmsg.la librcmsg_mpi.la test/integration/threads/threads_test test/integration/threads/mpi_threads_test test/integration/rc/rc_compute_test"
