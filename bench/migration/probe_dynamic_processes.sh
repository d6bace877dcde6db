#!/usr/bin/env bash
# Which MPI here can move a rank into a new process while the others run on (issue 20): builds
# dynamic_processes.c with each MPI's compiler wrapper and runs its cases on this node.
#
#   probe_dynamic_processes.sh [--mpi openmpi|mpich|both]
#
# One line per case: flavour, case, launcher options, exit status, what the program printed ("ok ..."
# lines, or the MPI's first error line). Nothing is kept; takes about a minute.
set -uo pipefail
prog=probe_dynamic_processes.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
mpi=both
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mpi) [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
case "$mpi" in
  openmpi|mpich) flavours=("$mpi") ;;
  both) flavours=(openmpi mpich) ;;
  *) die "unknown --mpi '$mpi' (openmpi, mpich or both)" ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/probe-dynamic.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# run_case <flavour> <case label> <launcher options (one word, may be empty)> <program args...>
run_case() {
  local fl=$1 label=$2 opts=$3 rc out summary
  shift 3
  local -a launcher
  if [[ $fl == openmpi ]]; then
    launcher=(mpirun.openmpi --oversubscribe -n 2)
  else
    launcher=(mpiexec.mpich -n 2)
  fi
  # shellcheck disable=SC2206  # the options are words on purpose
  [[ -n "$opts" ]] && launcher+=($opts)
  out=$(cd "$work" && timeout -k 5 60 "${launcher[@]}" "$work/dp-$fl" "$@" 2>&1)
  rc=$?
  summary=$(grep -E '^ok |^no port' <<<"$out" | sort | uniq -c | sed 's/^ *//' | paste -sd';' -)
  [[ -z "$summary" ]] && summary=$(grep -m1 -iE 'error|abort|terminat|exited' <<<"$out" | cut -c1-110)
  (( rc == 124 )) && summary="timed out after 60 s; $summary"
  printf '%-8s %-16s %-44s exit %-3s %s\n' "$fl" "$label" "${opts:--}" "$rc" "$summary"
}

for fl in "${flavours[@]}"; do
  cc=mpicc.$fl
  command -v "$cc" >/dev/null || { echo "$prog: $cc not found; skipping $fl" >&2; continue; }
  "$cc" -O1 -o "$work/dp-$fl" "$here/dynamic_processes.c" || die "$cc failed"
  run_case "$fl" spawn "" spawn
  run_case "$fl" port "" port
  for how in finalize exit kill; do
    run_case "$fl" "leave-$how" "" leave "$how"
  done
  if [[ $fl == openmpi ]]; then
    for how in exit kill; do
      run_case "$fl" "leave-$how" "--enable-recovery" leave "$how"
    done
  fi
done
