#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The other builds a site makes, out of tree from this source tree (never written into; the
# builds go to a mktemp -d directory; from a copy of the release tree when the source tree is
# configured in place):
#  (a) --without-verbs: builds without btl_rc; rcmsg_info says why there is no device;
#      check_rc_* are reported as a SKIP saying why; check_base passes; p2p over sm passes
#      with mpirun; a job that needs rc fails on every rank saying it was built without verbs.
#  (b) --with-verbs=/usr --with-pmix=<pmix prefix> --with-hwloc=/usr, with Check hidden from
#      configure: the flags come from the prefixes (no pkg-config); builds; the unit tests are
#      reported as a SKIP saying Check is missing; make install puts only rcmsg_info and
#      rcmsg_pingpong into bin (the benchmarks are not installed).
#  (c) bad prefixes fail configure with a message naming the flag and what is missing; so does
#      a missing libibverbs, with the advice to install it or pass --without-verbs.
. "$top_srcdir/test/integration/lib.sh"
# its builds are never sanitized (configure without --enable-debug): under distcheck's
# sanitizer build it would repeat the plain build's run
[ "${SANITIZER_BUILD:-no}" != yes ] ||
    skip "sanitizer build: these builds are not sanitized and ran with the plain build's make check"
command -v pkg-config >/dev/null || skip "pkg-config not installed"
[ -n "$(pkg-config --variable=prefix pmix 2>/dev/null)" ] || skip "pkg-config knows no pmix prefix"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# a build of its own: not the make running this test (its jobserver and flags)
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j2 "$@"; }
# configure refuses to build out of a source tree configured in place (`./configure && make
# check`): the variants are then built from a copy, the release tree `make distdir` makes
src=$top_srcdir
if [ -f "$top_srcdir/config.status" ]; then
    mk -C "$top_builddir" distdir distdir="$tmp/src" > "$tmp/distdir.out" 2>&1 ||
        { tail "$tmp/distdir.out"; fail "in-tree build: make distdir (the sources to build from) failed"; }
    src=$tmp/src
    echo "ok: in-tree build: the variants are built from a copy of the release tree"
fi
conf() { # conf DIR ARGS...: configure in DIR (new), output in DIR/configure.out
    d=$1; shift
    mkdir -p "$d" && (cd "$d" && env -u CFLAGS -u LDFLAGS "$src/configure" --enable-werror "$@") \
        > "$d.configure.out" 2>&1
}
out="$tmp/out"

# (c) bad prefixes (cheap: configure stops at the first one)
mkdir -p "$tmp/empty/include" "$tmp/empty/lib"
conf "$tmp/c1" --with-verbs="$tmp/empty" &&
    fail "--with-verbs=<a prefix without libibverbs> was accepted"
grep -q "error: --with-verbs=$tmp/empty: infiniband/verbs.h not found in $tmp/empty/include" \
    "$tmp/c1.configure.out" || { tail "$tmp/c1.configure.out"; fail "--with-verbs: no clear error"; }
mkdir -p "$tmp/empty/include/infiniband" && : > "$tmp/empty/include/infiniband/verbs.h"
conf "$tmp/c3" --with-verbs="$tmp/empty" && fail "--with-verbs=<a prefix without the library> was accepted"
grep -q "error: --with-verbs=$tmp/empty: libibverbs.so not found in $tmp/empty/lib64, " \
    "$tmp/c3.configure.out" || { tail "$tmp/c3.configure.out"; fail "--with-verbs: no clear error"; }
conf "$tmp/c2" --with-hwloc="$tmp/nowhere" && fail "--with-hwloc=<no such directory> was accepted"
grep -q "error: --with-hwloc=$tmp/nowhere: no such directory" "$tmp/c2.configure.out" ||
    { tail "$tmp/c2.configure.out"; fail "--with-hwloc: no clear error"; }
conf "$tmp/c4" PKG_CONFIG_LIBDIR="$tmp/empty" PKG_CONFIG_PATH= && fail "configure without libibverbs passed"
grep -q "error: libibverbs not found .*apt-get install libibverbs-dev.*or --without-verbs" \
    "$tmp/c4.configure.out" || { tail "$tmp/c4.configure.out"; fail "missing libibverbs: no advice"; }
echo "ok: bad prefixes, or no libibverbs, stop configure naming the flag and what is missing"

# a pkg-config that does not know Check
cat > "$tmp/pkg-config" <<'EOF'
#!/bin/sh
for a; do case $a in check*) exit 1 ;; esac; done
exec pkg-config "$@"
EOF
chmod +x "$tmp/pkg-config"
# not_built_reported DIR PATTERN...: make check in DIR reports the unit tests not built (and
# builds none: check_PROGRAMS=) as a SKIP whose line matches every PATTERN
not_built_reported() {
    nb=$1; shift
    mk -C "$nb" check TESTS=test/unit/not_built.sh check_PROGRAMS= > "$out" 2>&1
    grep -q "^SKIP: test/unit/not_built.sh" "$out" || { cat "$out"; return 1; }
    for p; do
        grep -q "^SKIP: not built: .*$p" "$nb/test/unit/not_built.log" ||
            { cat "$nb/test/unit/not_built.log"; return 1; }
    done
    echo "ok: $(head -1 "$nb/test/unit/not_built.log")"
}

# (a) without verbs
a="$tmp/a"
conf "$a" --without-verbs || { tail -20 "$a.configure.out"; fail "configure --without-verbs failed"; }
mk -C "$a" > "$out" 2>&1 || { tail -30 "$out"; fail "make --without-verbs failed"; }
[ ! -e "$a/src/btl_rc/rc_btl.lo" ] && [ -e "$a/src/btl_rc/rc_none.lo" ] ||
    fail "--without-verbs still compiled btl_rc"
if command -v objdump >/dev/null && objdump -p "$a/.libs/librcmsg.so" | grep -q 'NEEDED.*libibverbs'; then
    fail "--without-verbs: librcmsg.so still links libibverbs"
fi
"$a/src/tools/rcmsg_info" -d > "$out" 2>&1
grep -q "RDMA devices: none (rcmsg was built without verbs" "$out" ||
    { cat "$out"; fail "rcmsg_info -d does not say the build has no verbs"; }
not_built_reported "$a" "test/unit/check_rc_btl test/unit/check_rc_qp[^:]*: .*built without verbs" ||
    fail "--without-verbs: check_rc_* are not reported as SKIP with why"
mk -C "$a" test/unit/check_base > "$out" 2>&1 || { tail "$out"; fail "check_base build"; }
run_timeout 120 "$a/test/unit/check_base" > "$out" 2>&1 ||
    { cat "$out"; fail "--without-verbs: check_base failed"; }
echo "ok: --without-verbs: built; check_base: $(grep '^100%' "$out")"
if [ -n "${MPIRUN:-}" ]; then
    mk -C "$a" test/integration/p2p/p2p_test > "$out" 2>&1 || { tail "$out"; fail "p2p_test build"; }
    run_timeout 120 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe \
        "$a/test/integration/p2p/p2p_test" > "$out" 2>&1
    st=$?
    [ $st -eq 0 ] && ranks_passed 2 "$out" ||
        { cat "$out"; fail "--without-verbs: p2p over sm failed (status $st)"; }
    echo "ok: --without-verbs: p2p over sm with 2 ranks"
    RCMSG_TRANSPORTS=rc,self run_timeout 120 "$MPIRUN" --allow-run-as-root -np 2 \
        --oversubscribe "$a/test/integration/p2p/p2p_test" > "$out" 2>&1
    st=$?
    [ $st -ne 124 ] && [ $st -ne 0 ] ||
        { cat "$out"; fail "--without-verbs: a job that needs rc did not fail (status $st)"; }
    each_rank_logged 2 "$out" 'error: rc transport: this rcmsg was built without verbs' once ||
        { cat "$out"; fail "--without-verbs: not every rank said rc is missing from the build: $bad"; }
    echo "ok: --without-verbs: a job that needs rc fails on every rank saying why"
else
    echo "SKIP (part): mpirun not found: the --without-verbs build is not run"
fi
rm -rf "$a"

# (b) every library from its prefix
b="$tmp/b"
pmix=$(pkg-config --variable=prefix pmix)
conf "$b" --with-verbs=/usr --with-pmix="$pmix" --with-hwloc=/usr PKG_CONFIG="$tmp/pkg-config" ||
    { tail -20 "$b.configure.out"; fail "configure --with-verbs/pmix/hwloc=DIR failed"; }
grep -q "check >= 0.11 not found: the unit tests will be skipped" "$b.configure.out" ||
    fail "configure did not warn that Check is missing"
grep -q "^PMIX_LIBS = -L$pmix/lib -Wl,-rpath,$pmix/lib -lpmix\$" "$b/Makefile" &&
    grep -q "^PMIX_CFLAGS = -I$pmix/include\$" "$b/Makefile" &&
    grep -q "^IBVERBS_LIBS = *-libverbs\$" "$b/Makefile" ||
    { grep -E '^(PMIX|IBVERBS|HWLOC)_' "$b/Makefile"; fail "the flags do not come from the prefixes"; }
mk -C "$b" > "$out" 2>&1 || { tail -30 "$out"; fail "make with --with-*=DIR failed"; }
not_built_reported "$b" "test/unit/check_base .*test/unit/check_rc_qp[^:]*: configure did not find check" ||
    fail "without Check: the unit tests are not reported as SKIP with why"
mk -C "$b" install DESTDIR="$tmp/inst" > "$out" 2>&1 || { tail -30 "$out"; fail "make install"; }
bins=$(ls "$tmp/inst/usr/local/bin" | tr '\n' ' ')
[ "$bins" = "rcmsg-mpicc rcmsg_info rcmsg_pingpong " ] ||
    fail "make install put '$bins' into bin (want only rcmsg-mpicc, rcmsg_info and rcmsg_pingpong)"
# the MPI face is installed whole: its library, header, .pc and the wrapper's -show
[ -f "$tmp/inst/usr/local/include/mpi.h" ] && [ -f "$tmp/inst/usr/local/lib/pkgconfig/rcmsg-mpi.pc" ] &&
    ls "$tmp/inst/usr/local/lib/librcmsg_mpi.so" > /dev/null ||
    fail "make install did not install mpi.h, rcmsg-mpi.pc and librcmsg_mpi.so"
"$tmp/inst/usr/local/bin/rcmsg-mpicc" -show -o x x.c | grep -q -- '-lrcmsg_mpi -lrcmsg' ||
    fail "the installed rcmsg-mpicc -show does not link librcmsg_mpi"
[ -x "$b/bench/rcmsg_bench" ] && [ -x "$b/bench/rcmsg_wireup_bench" ] ||
    fail "make no longer builds the benchmarks"
echo "ok: --with-verbs=/usr --with-pmix=$pmix --with-hwloc=/usr: built; bin holds $bins"
pass "build variants"
