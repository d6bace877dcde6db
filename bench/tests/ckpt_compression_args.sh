#!/usr/bin/env bash
# bench/ckpt_compression.sh: bad input stops it with one line and exit 2 before anything is launched.
set -uo pipefail
s=$(cd "$(dirname "$0")/.." && pwd)/ckpt_compression.sh
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
expect "ckpt_compression.sh: error: no NPB binaries: pass --npb-dir or set NPB_DIR"
expect "ckpt_compression.sh: error: unknown --mpi 'ompi' (openmpi, mpich or both)" --mpi ompi --npb-dir "$dir"
expect "ckpt_compression.sh: error: --epochs needs a positive whole number, got '0'" --epochs 0 --npb-dir "$dir"
expect "ckpt_compression.sh: error: --levels: '20' is not a zstd level (0-19)" --levels "0 20" --npb-dir "$dir"
expect "ckpt_compression.sh: error: $dir/openmpi/bin/cg.B.2 not found (bench/npb/build_npb.sh builds it)" \
  --mpi openmpi --npb-dir "$dir" --benchmarks cg.B.2
echo ok
