#!/usr/bin/env bash
# The failure-free cost of the memory layer (checkpoint/memory: the arena, the mmap/dlopen/thread
# tracking, the call brackets) on NPB: six variants of the same binary, interleaved, no checkpoint
# taken in any of them:
#   plain        yadokari run -n NP -- BIN                               (the shim, memory layer off)
#   plain-again  the same again: the A/A control, what the machine's noise alone gives
#   preload      the shim preloaded by the MPI launcher, no front end    (memory layer off)
#   tracked      preload with YADOKARI_MEMORY=on (and, as armed runs set it, UCX_MEM_MMAP_HOOK_MODE=none):
#                the memory layer's arena, mmap/dlopen/thread tracking and call brackets, with the
#                blocking calls as plain as preload's (without a front end nothing can request a
#                checkpoint, so the shim does not arm them; under yadokari run the layer always comes
#                with armed calls)
#   armed        yadokari run -n NP --ckpt-dir TMP --interval 0 -- BIN   (what users run)
#   armed-off    the same with YADOKARI_MEMORY=off                        (memory layer off)
# Two more variants, not in the default set, take checkpoints every --interval seconds (default 30):
#   periodic-full         yadokari run -n NP --ckpt-dir TMP --interval S --full-every 1 -- BIN
#                         (every image full: no dirty-page tracking)
#   periodic-incremental  the same with the default --full-every (increments between full images,
#                         from the dirty-page tracking: checkpoint/memory/src/dirty_pages.hpp)
# periodic-incremental / periodic-full is what the tracking costs a run that checkpoints (issue 16).
# Checkpoints need the memory layer, so with it off the shim does not arm its blocking calls either:
# armed-off is the plain shim plus the control link, and armed / armed-off is what the memory layer
# and the polled blocking calls cost together; tracked / preload is the memory layer alone, to be read
# against plain-again / plain (bench/shim_overhead/run.sh --layer shows the same per call, and --via
# preload,tracked,armed both parts).
# Prints one line per run and, per kernel, the median NPB time of each variant and the medians of the
# per-rep paired ratios (and their range). Times from this shared 2-vCPU VM are noisy: read the ratios.
#
#   npb_memory_layer.sh --npb-dir DIR [--mpi openmpi|mpich] [--kernels "cg mg"] [--class A] [--np 4]
#                       [--reps 3] [--variants "plain plain-again tracked"] [--interval 30] [--yadokari PATH]
#   --npb-dir  NPB binaries as build_npb.sh leaves them: DIR/<mpi>/bin/<kernel>.<class>.<np>, or DIR
#              itself holding <kernel>.<class>.<np> (default: $NPB_DIR)
#   --variants a subset of the six (default: all); the ratios printed are those whose two sides ran
set -uo pipefail

prog=npb_memory_layer.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
source "$here/lib/variant_state.sh"  # expected_state, reported_state
source "$here/lib/launcher.sh"  # launcher_line

npb_dir=${NPB_DIR:-} mpi=openmpi kernels="cg mg" class=A np=4 reps=3 yadokari="$repo/build/bin/yadokari"
variant_list="plain plain-again preload tracked armed armed-off" interval=30
while [[ $# -gt 0 ]]; do
  case "$1" in
    --npb-dir)  [[ $# -ge 2 ]] || die "$1 needs a value"; npb_dir=$2; shift 2 ;;
    --mpi)      [[ $# -ge 2 ]] || die "$1 needs a value"; mpi=$2; shift 2 ;;
    --kernels)  [[ $# -ge 2 ]] || die "$1 needs a value"; kernels=$2; shift 2 ;;
    --class)    [[ $# -ge 2 ]] || die "$1 needs a value"; class=$2; shift 2 ;;
    --np)       [[ $# -ge 2 ]] || die "$1 needs a value"; np=$2; shift 2 ;;
    --reps)     [[ $# -ge 2 ]] || die "$1 needs a value"; reps=$2; shift 2 ;;
    --variants) [[ $# -ge 2 ]] || die "$1 needs a value"; variant_list=$2; shift 2 ;;
    --interval) [[ $# -ge 2 ]] || die "$1 needs a value"; interval=$2; shift 2 ;;
    --yadokari) [[ $# -ge 2 ]] || die "$1 needs a value"; yadokari=$2; shift 2 ;;
    *) die "unknown argument '$1' (see the header of $0)" ;;
  esac
done
[[ -n "$npb_dir" ]] || die "--npb-dir (or NPB_DIR) is required"
[[ -x "$yadokari" ]] || die "no yadokari CLI at $yadokari (build it, or pass --yadokari)"
shim_dir=$(cd "$(dirname "$yadokari")/../lib" && pwd) || die "no lib/ next to $(dirname "$yadokari")"
[[ "$mpi" == openmpi || "$mpi" == mpich ]] || die "--mpi must be openmpi or mpich"
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer"

binary() {
  local name="$1.$class.$np"
  for candidate in "$npb_dir/$mpi/bin/$name" "$npb_dir/$name"; do
    [[ -x "$candidate" ]] && { echo "$candidate"; return 0; }
  done
  die "no NPB binary $name under $npb_dir"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/yk-npb-memory.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export YADOKARI_STATE_DIR="$work/state"

# run VARIANT BIN: prints NPB's "Time in seconds", or dies if the run did not verify.
run() {
  local variant="$1" bin="$2" out="$work/run.out"
  local -a cmd=("$yadokari" run -n "$np" --mpi "$mpi")
  local stats="$work/stats-$variant"
  rm -rf "$stats" && mkdir -p "$stats"
  local -a env=("YADOKARI_STATS=$stats")
  case "$variant" in
    plain|plain-again) ;;
    preload|tracked)
      # The launcher itself, the shim preloaded into the ranks only (as yadokari run does).
      local -a vars=("LD_PRELOAD=$shim_dir/libyadokari-$mpi.so" "YADOKARI_FLAVOUR=$mpi" "YADOKARI_STATS=$stats")
      [[ $variant == tracked ]] && vars+=(YADOKARI_MEMORY=on UCX_MEM_MMAP_HOOK_MODE=none)
      launcher_line cmd "$mpi" "$np" -- "${vars[@]}" ;;
    armed) rm -rf "$work/ckpt"; cmd+=(--ckpt-dir "$work/ckpt" --interval 0) ;;
    armed-off) rm -rf "$work/ckpt"; cmd+=(--ckpt-dir "$work/ckpt" --interval 0); env+=(YADOKARI_MEMORY=off) ;;
    periodic-full) rm -rf "$work/ckpt"; cmd+=(--ckpt-dir "$work/ckpt" --interval "$interval" --full-every 1) ;;
    periodic-incremental) rm -rf "$work/ckpt"; cmd+=(--ckpt-dir "$work/ckpt" --interval "$interval") ;;
  esac
  [[ ${cmd[0]} == "$yadokari" ]] && cmd+=(--)
  (cd "$work" && env "${env[@]}" timeout -k 10 600 "${cmd[@]}" "$bin" >"$out" 2>&1) ||
    { tail -n 20 "$out" >&2; die "$variant $(basename "$bin") exited $?"; }
  grep -q "Verification *= *SUCCESSFUL" "$out" || { tail -n 20 "$out" >&2; die "$variant $(basename "$bin") did not verify"; }
  # Each variant is what it claims: the ranks say whether the layer ran and the calls were armed.
  local want seen
  want=$(expected_state "$variant")
  seen=$(reported_state "$stats")
  [[ "$seen" == "$want" ]] || die "$variant $(basename "$bin"): the ranks report memory layer, armed = '${seen//$'\n'/; }', expected '$want'"
  awk '/Time in seconds/ {print $NF}' "$out"
}

read -ra variants <<<"$variant_list"
for v in "${variants[@]}"; do
  [[ " plain plain-again preload tracked armed armed-off periodic-full periodic-incremental " == *" $v "* ]] ||
    die "unknown variant '$v' in --variants"
done
for kernel in $kernels; do
  bin=$(binary "$kernel")
  : >"$work/$kernel.times"
  for rep in $(seq "$reps"); do
    # Rotate the order every rep, so no variant always runs first (or after the same one).
    for k in "${!variants[@]}"; do
      variant=${variants[$(((k + rep) % ${#variants[@]}))]}
      t=$(run "$variant" "$bin") || exit 1
      echo "$kernel.$class.$np $mpi rep $rep $variant ${t}s"
      echo "$rep $variant $t" >>"$work/$kernel.times"
    done
  done
  /usr/bin/python3 - "$work/$kernel.times" "$kernel.$class.$np" "$mpi" <<'EOF'
import statistics, sys
path, name, mpi = sys.argv[1:4]
times = {}
for line in open(path):
    rep, variant, t = line.split()
    times.setdefault(variant, {})[int(rep)] = float(t)
med = {v: statistics.median(r.values()) for v, r in times.items()}
print(f"{name} {mpi}: median NPB time " + ", ".join(f"{v} {t:.2f} s" for v, t in med.items()))
for a, b in (("plain-again", "plain"), ("tracked", "preload"), ("armed", "armed-off"), ("armed", "plain"),
             ("periodic-incremental", "periodic-full")):
    if a not in times or b not in times:
        continue
    ratios = [times[a][r] / times[b][r] for r in times[a]]
    print(f"  {a}/{b}: median of paired ratios {statistics.median(ratios):.3f} "
          f"(range {min(ratios):.3f}..{max(ratios):.3f}, {len(ratios)} reps)")
EOF
done
