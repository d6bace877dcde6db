#!/usr/bin/env bash
# bench/npb_armed.sh: bad input stops it with one line and exit 2 before anything is launched.
set -uo pipefail
s=$(cd "$(dirname "$0")/.." && pwd)/npb_armed.sh
fail() { echo "FAIL: $*"; exit 1; }
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/openmpi/bin" "$dir/bin"
printf '#!/bin/sh\nexit 0\n' >"$dir/bin/yadokari"
chmod +x "$dir/bin/yadokari"

expect() { # expected-line args...
  local want=$1 out rc
  shift
  out=$(NPB_DIR="" "$s" --yadokari "$dir/bin/yadokari" "$@" 2>&1); rc=$?
  [[ $rc == 2 && "$out" == "$want" ]] || fail "$*: rc $rc '$out'"
}
expect "npb_armed.sh: error: no NPB binaries: pass --npb-dir or set NPB_DIR"
expect "npb_armed.sh: error: unknown --mpi 'ompi' (openmpi, mpich or both)" --mpi ompi --npb-dir "$dir"
expect "npb_armed.sh: error: --reps needs a positive whole number, got '0'" --reps 0 --npb-dir "$dir"
expect "npb_armed.sh: error: benchmark 'cg.B' does not end in its rank count (e.g. cg.B.4)" \
  --mpi openmpi --npb-dir "$dir" --benchmarks cg.B
expect "npb_armed.sh: error: $dir/openmpi/bin/cg.B.4 not found (bench/npb/build_npb.sh builds it)" \
  --mpi openmpi --npb-dir "$dir" --benchmarks cg.B.4
echo ok
