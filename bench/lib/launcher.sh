# shellcheck shell=bash
# Sourced by the benchmarks that launch ranks with the MPI's own launcher (the shim preloaded through
# the environment, or native), so that Open MPI and MPICH runs are built the same way everywhere.
#
# launcher_line ARRAY FLAVOUR NP [MPICH_ARG...] -- [NAME=VALUE...]
#   Sets the array named ARRAY to the launcher's command line for NP ranks that get every NAME=VALUE
#   in their environment: `mpirun.openmpi -n NP -x NAME=VALUE...` or `mpiexec.mpich -n NP
#   [MPICH_ARG...] -genv NAME VALUE...` (Open MPI binds 2 ranks to cores by default; Hydra needs
#   asking, e.g. `-bind-to core`). The program and its arguments are the caller's to append.
launcher_line() {
  local -n launcher_out=$1
  local flavour=$2 np=$3
  shift 3
  local mpich_args=()
  while [[ $# -gt 0 && $1 != -- ]]; do mpich_args+=("$1"); shift; done
  [[ $# -gt 0 ]] && shift
  local kv
  if [[ $flavour == openmpi ]]; then
    launcher_out=(mpirun.openmpi -n "$np")
    for kv in "$@"; do launcher_out+=(-x "$kv"); done
  else
    launcher_out=(mpiexec.mpich -n "$np" "${mpich_args[@]}")
    for kv in "$@"; do launcher_out+=(-genv "${kv%%=*}" "${kv#*=}"); done
  fi
}
