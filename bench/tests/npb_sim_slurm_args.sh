#!/usr/bin/env bash
# bench/slurm/npb_sim_slurm.sh: syntax (bash -n, shellcheck when installed) and its usage errors, which
# come before anything is started (no root, Slurm or NPB needed).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sh="$here/../slurm/npb_sim_slurm.sh"
fail() { echo "FAIL: $*"; exit 1; }
bash -n "$sh" || fail "bash -n"
if command -v shellcheck >/dev/null; then shellcheck "$sh" || fail "shellcheck"; else echo "note: shellcheck not installed"; fi
expect() {  # expect MESSAGE ARGS...: exit 2 with exactly that line on stderr
  local want="$1" err code
  shift
  err=$(NPB_DIR='' bash "$sh" "$@" 2>&1 >/dev/null)
  code=$?
  [[ $code == 2 && "$err" == "npb_sim_slurm.sh: $want" ]] || fail "$* -> exit $code, '$err' (expected '$want')"
}
expect "--npb-dir (or NPB_DIR) is required"
expect "unknown option --bogus" --bogus
expect "option --mpi needs a value" --npb-dir /x --mpi
expect "--mpi: openmpi, mpich or both" --npb-dir /x --mpi lam
expect "unknown scenario 'power-cut'" --npb-dir /x --scenarios "native power-cut"
expect "--interval must be a number of seconds" --npb-dir /x --interval 2s
expect "--reps must be a positive integer" --npb-dir /x --reps 0
expect "--timeout must be a positive integer" --npb-dir /x --timeout -5
echo "ok: npb_sim_slurm.sh usage errors"
