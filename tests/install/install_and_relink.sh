#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, build a user program against the installed CMake
# package (relinking instead of LD_PRELOAD), run it with plain mpirun and check the shim ran
# (its stats files exist and count the ring's messages).
set -euo pipefail
# A step that fails without its own message (set -e) still names itself in the test's output.
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND exited with $?" >&2' ERR
build_dir=$1 source_dir=$2  # $3: an MPI program for the installed CLI to run
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
test -x "$work/prefix/bin/yadokari" || { echo "FAIL: yadokari not installed"; exit 1; }
# The installed CLI finds the installed shims (whatever the libdir) and runs a program with them.
hello=$(timeout 120 "$work/prefix/bin/yadokari" run -n 2 -- "$3" | tail -n 1)
[ -n "$hello" ] || { echo "FAIL: installed yadokari run printed nothing"; exit 1; }
cmake -S "$source_dir/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
# Captured first: `ldd | grep -q` under pipefail fails by chance when ldd dies of SIGPIPE.
libs=$(ldd "$work/consumer/relinked_ring")
[[ "$libs" == *libyadokari-openmpi.so* ]] || { echo "FAIL: not linked with the shim"; exit 1; }
out=$(LD_LIBRARY_PATH="$work/prefix/lib" YADOKARI_STATS="$work/stats" \
  timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -x LD_LIBRARY_PATH -x YADOKARI_STATS -n 3 "$work/consumer/relinked_ring")
[ "$out" = "token 3" ] || { echo "FAIL: unexpected output: $out"; exit 1; }
python3 - "$work/stats" <<'PY'
import json, pathlib, sys
files = sorted(pathlib.Path(sys.argv[1]).glob("rank-*.json"))
assert len(files) == 3, files
for f in files:
    t = json.loads(f.read_text())["totals"]
    assert t["messages_sent"] == 1 and t["messages_received"] == 1, (f, t)
print("relinked program ran under the shim:", len(files), "stats files")
PY
