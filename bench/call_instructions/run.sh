#!/usr/bin/env bash
# Instructions per MPI call, counted rather than timed: callgrind runs bench/call_instructions/
# eager_calls.c (every receive finds its message there, every send completes while posted) natively,
# with the plain shim, with the plain shim and the memory layer on (tracked: YADOKARI_MEMORY=on, no
# checkpointing) and with the armed shim (checkpointing on, no checkpoint taken), and prints the
# inclusive instructions per call of MPI_Send, MPI_Recv, MPI_Wait (send, receive) and MPI_Waitall as
# the application sees them. Counts do not depend on the machine's load, which timings do.
#
#   run.sh [--build DIR] [--mpi openmpi|mpich|both] [--compare-build OLD] [--rounds R]
#
#   --build          build tree with bench/<flavour>/eager_calls, lib/ and bin/yadokari (default <repo>/build)
#   --compare-build  also count OLD's shims (OLD/lib/libyadokari-<flavour>.so, plain and armed) with
#                    --build's program and front end: a before/after of a shim change
#   --rounds         rounds of eager_calls (default 200: 4000 calls of each kind, 2000 of MPI_Waitall)
#
# Needs valgrind. Runs MPI jobs: under the shared test lock, e.g.
#   flock /tmp/yadokari-tests.lock bench/call_instructions/run.sh --mpi both
set -euo pipefail

prog=call_instructions/run.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/launcher.sh"  # launcher_line
repo=$(cd "$here/../.." && pwd)
build="$repo/build"
mpi=both
compare=""
rounds=200
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) [[ $# -ge 2 ]] || die "--build needs a value"; build=$2; shift 2 ;;
    --mpi) [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    --compare-build) [[ $# -ge 2 ]] || die "--compare-build needs a value"; compare=$2; shift 2 ;;
    --rounds) [[ $# -ge 2 ]] || die "--rounds needs a value"; rounds=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
case "$mpi" in
  openmpi | mpich) flavours=("$mpi") ;;
  both) flavours=(openmpi mpich) ;;
  *) die "unknown --mpi '$mpi' (openmpi, mpich or both)" ;;
esac
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds needs a positive whole number, got '$rounds'"
command -v valgrind.bin >/dev/null || die "valgrind is not installed"
build=$(cd "$build" && pwd) || die "no build tree '$build'"
[[ -z "$compare" ]] || compare=$(cd "$compare" && pwd) || die "no build tree '$compare'"

work=$(mktemp -d "${TMPDIR:-/tmp}/call-instructions.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
export UCX_TLS=${UCX_TLS:-sm,self}
# valgrind.bin, not Debian's /bin/sh wrapper: no shell with the shim preloaded before the rank.
grind=(valgrind.bin --tool=callgrind --quiet)

# count <flavour> <variant> <tree>: one run; prints "<variant> send recv wait_send wait_recv waitall".
count() {
  local fl=$1 variant=$2 tree=$3 dir="$work/$1-$2" app="$build/bench/$1/eager_calls" cmd=() out
  mkdir -p "$dir"
  local rank_cmd=("${grind[@]}" "--callgrind-out-file=$dir/cg.%p" "$app" --rounds "$rounds")
  case "$variant" in
    native* | plain* | tracked*)
      local env=()
      [[ $variant != native* ]] && env=("LD_PRELOAD=$tree/lib/libyadokari-$fl.so" "YADOKARI_FLAVOUR=$fl")
      [[ $variant == tracked* ]] && env+=(YADOKARI_MEMORY=on UCX_MEM_MMAP_HOOK_MODE=none)
      launcher_line cmd "$fl" 2 -- "${env[@]}" ;;
    # The shim from <tree>/lib, the front end always --build's (the shim is what is compared).
    armed*) cmd=(env "YADOKARI_SHIM_DIR=$tree/lib" "$build/bin/yadokari" run -n 2 --mpi "$fl" --ckpt-dir "$dir/ckpt" --) ;;
  esac
  out=$(timeout -k 5 600 "${cmd[@]}" "${rank_cmd[@]}" 2>"$dir/stderr") || {
    echo "$prog: $fl $variant failed:" >&2; sed 's/^/  | /' "$dir/stderr" >&2; return 1; }
  python3 - "$dir" "$variant" "$out" <<'PY'
import glob, json, re, subprocess, sys
directory, variant, out = sys.argv[1], sys.argv[2], sys.argv[3]
calls = json.loads([l for l in out.splitlines() if l.startswith('{"bench":"eager_calls"')][-1])["calls"]
inclusive = {}
for path in glob.glob(directory + "/cg.*"):
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no", path],
                          capture_output=True, text=True, check=True).stdout
    # Only the function summary ("N (p%)  file:yk_count_X [object]"): the calls ("=> ...") and
    # annotated source lines repeat the same cost and must not be added to it.
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+[^=\s]\S*:yk_count_(\w+) \[", line)
        if m:
            inclusive[m.group(2)] = inclusive.get(m.group(2), 0) + int(m.group(1).replace(",", ""))
names = ["send", "recv", "wait_send", "wait_recv", "waitall"]
missing = [n for n in names if n not in inclusive]
if missing:
    sys.exit(f"call_instructions: no count for {missing} in {directory}")
print(variant, *(round(inclusive[n] / calls[n]) for n in names))
PY
}

for fl in "${flavours[@]}"; do
  [[ -x "$build/bench/$fl/eager_calls" ]] || die "$build/bench/$fl/eager_calls not built (cmake --build $build --target eager_calls-$fl)"
  variants=("native $build" "plain $build" "tracked $build" "armed $build")
  [[ -n "$compare" ]] && variants+=("plain-old $compare" "armed-old $compare")
  rows=()
  for v in "${variants[@]}"; do rows+=("$(count "$fl" "${v%% *}" "${v#* }")"); done
  echo "$fl: instructions per call (inclusive, as the application sees the call; $rounds rounds)"
  printf '%s\n' "${rows[@]}" | python3 -c '
import sys
rows = [l.split() for l in sys.stdin if l.strip()]
print(f"| variant | MPI_Send | MPI_Recv | MPI_Wait (send) | MPI_Wait (recv) | MPI_Waitall (2 recvs) |")
print("|---|---|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(r) + " |")'
done
