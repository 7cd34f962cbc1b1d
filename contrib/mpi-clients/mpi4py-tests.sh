#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpi4py 3.1.5 against rcmsg's MPI face (issue 43's held-out client; needs the network, so a
# tool, not part of `make check`):
#   1. fetch mpi4py's release (Ubuntu's copy of it: Debian's pool no longer serves 3.1.4's),
#      checksum verified (Ubuntu's Sources index); or take MPI4PY_TARBALL. Its build runs Cython
#      (Debian: apt-get install cython3; PYTHON defaults to the first python3 that has it);
#   2. names: every MPI name mpi4py's libmpi.pxd declares, compiled against rcmsg's mpi.h:
#      the names mpi.h lacks, grouped: those outside the subset on purpose (docs/mpi.md: I/O,
#      dynamic processes, MPI_LB / MPI_UB), and any other (a name to add);
#   3. build mpi4py with rcmsg-mpicc into a private directory;
#   4. its test suite (test/runtests.py -v) under mpirun at 1, 2 and 3 ranks, each run under a
#      time limit: a table of tests run / passed / skipped / failed / errors per rank count,
#      a run that outlives the limit reported as a HANG with the test it was in, then the
#      failing tests.
# Without the release (no network, or the mirror refuses it) step 2 still runs on the
# libmpi.pxd of Debian's python3-mpi4py package (apt-get download) and the script exits 77.
#
# usage: contrib/mpi-clients/mpi4py-tests.sh [--build DIR] [--dir DIR] [--ranks "1 2 3"]
#                                            [--timeout S] [--names-only]
#   --names-only  step 2 alone (exit 1 when a name is missing that docs/mpi.md does not list)
#   --build  rcmsg's build directory (default: build/ beside contrib/)
#   --dir    the private directory for the download, the build and the logs
#            (default: ${TMPDIR:-/tmp}/rcmsg-mpi4py)
#   environment: MPI4PY_TARBALL (a local copy of the release), PYTHON (default: python3, or
#   /usr/bin/python3 when only that one has Cython),
#   MPIRUN (default mpirun), MPI4PY_TEST_ARGS (more runtests.py arguments, e.g. "-e test_io")
# Exit status: 0 when every run ended with no failure, no error and no hang; 1 otherwise;
# 77 when the release could not be had (the names were still checked).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build
dir=${TMPDIR:-/tmp}/rcmsg-mpi4py
ranks="1 2 3"
limit=900
names_only=no
names_status=0
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$(cd "$2" && pwd) || exit 2; shift ;;
    --dir) dir=$2; shift ;;
    --ranks) ranks=$2; shift ;;
    --timeout) limit=$2; shift ;;
    --names-only) names_only=yes ;;
    *) echo "mpi4py-tests.sh: unknown argument '$1' (see the header for usage)" >&2; exit 2 ;;
    esac
    shift
done
if [ -z "${PYTHON:-}" ]; then
    PYTHON=python3
    if ! python3 -c 'import Cython' 2> /dev/null && /usr/bin/python3 -c 'import Cython' 2> /dev/null; then
        PYTHON=/usr/bin/python3
    fi
fi
MPIRUN=${MPIRUN:-mpirun}
version=3.1.5
url=http://archive.ubuntu.com/ubuntu/pool/universe/m/mpi4py/mpi4py_$version.orig.tar.gz
sha256=29cc7ad701c190ef37622e4a2b2e2dab94fbc7777b1a15fa2029097c41b6edf0
mpicc=$build/rcmsg-mpicc-uninstalled
[ -x "$mpicc" ] || { echo "mpi4py-tests.sh: no $mpicc: build rcmsg first (sh contrib/build.sh)" >&2; exit 2; }
mkdir -p "$dir" || exit 2
dir=$(cd "$dir" && pwd)
src=$dir/mpi4py-$version
tarball=$dir/mpi4py_$version.orig.tar.gz

# 1. the release: MPI4PY_TARBALL or the download, checked against its published checksum
fetch() {
    if [ -n "${MPI4PY_TARBALL:-}" ]; then
        cp "$MPI4PY_TARBALL" "$tarball.part" || return 1
    elif ! curl -fsSL -o "$tarball.part" "$url"; then
        echo "mpi4py-tests.sh: cannot fetch $url (set MPI4PY_TARBALL to a copy of it)"
        return 1
    fi
    if [ "$(sha256sum < "$tarball.part" | cut -d' ' -f1)" != "$sha256" ]; then
        echo "mpi4py-tests.sh: $tarball: wrong sha256 (expected $sha256)"
        rm -f "$tarball.part"
        return 1
    fi
    mv "$tarball.part" "$tarball"
}
have_src=no
if [ -d "$src/test" ]; then
    have_src=yes
elif [ "$names_only" = no ] && fetch && tar -xzf "$tarball" -C "$dir"; then
    have_src=yes
fi

# 2. the names mpi4py declares (libmpi.pxd: the release's, else Debian's binary package's)
pxd=$src/src/mpi4py/libmpi.pxd
if [ ! -f "$pxd" ]; then
    pxd=$dir/deb/usr/lib/python3/dist-packages/mpi4py/libmpi.pxd
    if [ ! -f "$pxd" ]; then
        (cd "$dir" && rm -f python3-mpi4py_*.deb && apt-get download -q python3-mpi4py > /dev/null &&
            dpkg-deb -x python3-mpi4py_*.deb deb) > /dev/null 2>&1 ||
            echo "mpi4py-tests.sh: no libmpi.pxd (apt-get download python3-mpi4py failed): names not checked"
    fi
fi
if [ -f "$pxd" ]; then
    "$PYTHON" - "$pxd" > "$dir/names.c" << 'EOF'
import re, sys
seen = set()
print('#include <mpi.h>')
for line in open(sys.argv[1]):
    s = line.split('#')[0].strip()
    t = re.match(r'ctypedef .*?\b(MPI_\w+)\s*(\(|$)', s)
    n = None if t else re.match(r'(?:enum:|[\w\*]+(?:\s*\*)?)\s+\**(MPI_\w+)\b', s)
    name = (t or n).group(1) if (t or n) else None
    if name is None or name in seen or name in ('MPI_SOURCE', 'MPI_TAG', 'MPI_ERROR'):
        continue
    seen.add(name)
    body = '%s *p = 0; (void)p;' % name if t else '(void)%s;' % name
    print('void probe_%s(void) { %s }' % (name, body))
EOF
    "$mpicc" -fsyntax-only -fmax-errors=0 -w "$dir/names.c" 2>&1 |
        sed -n 's/^[^:]*names\.c:\([0-9]*\):.*/\1/p' | sort -un |
        while read -r l; do sed -n "${l}s/^void probe_\([A-Za-z0-9_]*\).*/\1/p" "$dir/names.c"; done > "$dir/missing.txt"
    io='^MPI_(File|FILE_|MODE_(RDONLY|RDWR|WRONLY|CREATE|EXCL|DELETE_ON_CLOSE|UNIQUE_OPEN|APPEND|SEQUENTIAL)$|SEEK_|DISPLACEMENT_CURRENT|Register_datarep|Datarep_|CONVERSION_FN_NULL|MAX_DATAREP_STRING|ERR_(FILE|NOT_SAME|BAD_FILE|NO_SUCH_FILE|FILE_EXISTS|FILE_IN_USE|AMODE|ACCESS|READ_ONLY|NO_SPACE|QUOTA|UNSUPPORTED_DATAREP|CONVERSION|DUP_DATAREP|IO)$)'
    dyn='^MPI_(Open_port|Close_port|Publish_name|Unpublish_name|Lookup_name|Comm_accept|Comm_connect|Comm_join|Comm_disconnect|Comm_spawn|Comm_spawn_multiple|Comm_get_parent|ARGV_NULL|ARGVS_NULL|ERRCODES_IGNORE|MAX_PORT_NAME|ERR_(SPAWN|PORT|SERVICE|NAME))$'
    doc='^MPI_(UB|LB)$'
    echo "== names in mpi4py's libmpi.pxd that rcmsg's mpi.h lacks ($(grep -c '^void probe_' "$dir/names.c") checked)"
    echo "I/O ($(grep -cE "$io" "$dir/missing.txt")): outside the subset"
    echo "dynamic processes ($(grep -cE "$dyn" "$dir/missing.txt")): outside the subset"
    echo "MPI_LB / MPI_UB ($(grep -cE "$doc" "$dir/missing.txt")): outside the subset"
    other=$(grep -vE "$io|$dyn|$doc" "$dir/missing.txt" | tr '\n' ' ')
    [ -z "$other" ] || names_status=1
    echo "other, not in docs/mpi.md's list of what is missing ($(echo "$other" | wc -w)): $other"
fi
[ "$names_only" = yes ] && exit $names_status
[ "$have_src" = yes ] || { echo "mpi4py-tests.sh: no mpi4py $version release: its suite was not run"; exit 77; }

# 3. the build: mpi4py's own configure step probes each name and stubs the missing ones
"$PYTHON" -c 'import Cython' 2> /dev/null ||
    { echo "mpi4py-tests.sh: $PYTHON has no Cython (apt-get install cython3, or set PYTHON)"; exit 2; }
echo "== building mpi4py $version with $mpicc (log: $dir/build.log)"
rm -rf "$src/build" # its configure step's findings (the names stubbed) are of the last mpi.h
if ! (cd "$src" && "$PYTHON" setup.py build --mpicc="$mpicc") > "$dir/build.log" 2>&1; then
    tail -20 "$dir/build.log"
    echo "mpi4py-tests.sh: the build failed (log: $dir/build.log)"
    exit 1
fi

# the built package, whatever build/lib.* setuptools named (runtests.py looks there too)
lib=$(dirname "$(dirname "$(find "$src/build" -name 'MPI.*.so' -path '*/mpi4py/*' | head -1)")")
[ -d "$lib/mpi4py" ] || { echo "mpi4py-tests.sh: no built mpi4py/MPI*.so under $src/build"; exit 1; }
export PYTHONPATH="$lib${PYTHONPATH:+:$PYTHONPATH}"

# 4. the suite at each rank count; each rank's stderr in $dir/run-N/1/rank.R/stderr
summary() { # N STATUS: one table row per rank of the run
    for f in "$dir/run-$1"/1/rank.*/stderr; do
        [ -f "$f" ] || continue
        "$PYTHON" - "$f" "$1" "$2" << 'EOF'
import re, sys
path, n, st = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(path, errors='replace').read()
rank = re.search(r'rank\.(\d+)', path).group(1)
ran = re.findall(r'^Ran (\d+) tests?', text, re.M)
last = re.findall(r'^(OK|FAILED)\b(?: \((.*)\))?$', text, re.M)
counts = dict(failures=0, errors=0, skipped=0)
for kv in (last[-1][1].split(', ') if last and last[-1][1] else []):
    k, v = kv.split('=')
    counts[k] = int(v)
if st == 124:
    cur = [l for l in text.splitlines() if ' ... ' in l]
    verdict = 'HANG in ' + (cur[-1].split(' ... ')[0] if cur else '?')
elif not ran:
    verdict = 'CRASH (exit %d)' % st
else:
    verdict = last[-1][0] if last else 'exit %d' % st
run = int(ran[-1]) if ran else 0
passed = run - counts['failures'] - counts['errors'] - counts['skipped'] - counts.get('expected failures', 0)
print('%5s %4s %6d %6d %7d %6d %6d  %s' % (n, rank, run, passed, counts['skipped'],
      counts['failures'], counts['errors'], verdict))
for m in re.findall(r'^((?:FAIL|ERROR): .*)$', text, re.M):
    print('%s (%s ranks)' % (m, n), file=sys.stderr)
EOF
    done
}
status=0
: > "$dir/failing.txt"
echo "ranks rank    run passed skipped failed errors  verdict"
for n in $ranks; do
    rm -rf "$dir/run-$n"
    (cd "$src/test" && timeout -k 10 "$limit" "$MPIRUN" --allow-run-as-root --oversubscribe -np "$n" \
        -x PYTHONPATH --output-filename "$dir/run-$n" "$PYTHON" runtests.py -v \
        ${MPI4PY_TEST_ARGS:-}) > "$dir/mpirun-$n.log" 2>&1
    st=$?
    summary "$n" "$st" 2>> "$dir/failing.txt" | tee "$dir/summary-$n.txt"
    grep -qvE ' OK$' "$dir/summary-$n.txt" && status=1
    [ -s "$dir/summary-$n.txt" ] || { echo "$n: no output (exit $st)"; status=1; }
    [ "$st" -eq 0 ] || { echo "$n: mpirun exited $st (log: $dir/mpirun-$n.log)"; status=1; }
done
if [ -s "$dir/failing.txt" ]; then
    echo "== failing tests (how many ranks reported each, at which rank count; logs: $dir/run-N/1/rank.R/stderr)"
    sort "$dir/failing.txt" | uniq -c | sort -k3
fi
exit $status
