#!/usr/bin/env bash
# Run NPB binaries built by build_npb.sh natively, under 'yadokari run', or both interleaved, check
# that each run verifies, and report times (and the yadokari/native ratio when both are run).
#
#   run_npb.sh [--npb-build DIR] [--mpi openmpi|mpich|both] [--kernels "cg ep is mg"] [--classes "S"]
#              [--ranks 4] [--mode native|yadokari|compare] [--reps K] [--yadokari PATH]
#              [--stats-dir DIR] [--timeout SECONDS]
#
#   --npb-build  build_npb.sh's --out (default: $NPB_DIR/../npb-build); binaries are
#                <npb-build>/<flavour>/bin/<kernel>.<class>.<ranks>
#   --mode       native (the MPI launcher alone), yadokari ('yadokari run -n R -- BIN'), or compare
#                (both, interleaved, default) which adds the time ratio yadokari/native
#   --reps       runs per kernel, class, flavour and mode (default 1)
#   --yadokari   the CLI (default: <repo>/build/bin/yadokari)
#   --stats-dir  keep each yadokari run's YADOKARI_STATS output under DIR/<flavour>/<kernel>.<class>.<rep>
#                (default: a temporary directory, removed at exit)
#   --timeout    per run, seconds (default 600)
#
# Native launchers: Open MPI 'mpirun.openmpi --oversubscribe -n R' (root allowed through the
# environment); MPICH 'mpiexec.mpich -n R'. MPI environment variables set by the caller (UCX_TLS,
# OMPI_MCA_*) apply to both modes. Exit status is non-zero if any run failed or did not verify.
set -euo pipefail

prog=$(basename "$0")
die() { echo "$prog: error: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

npb_build=""
[[ -n "${NPB_DIR:-}" ]] && npb_build="$(dirname "$NPB_DIR")/npb-build"
mpi=both
kernels="cg ep is mg"
classes="S"
ranks=4
mode=compare
reps=1
yadokari="$repo/build/bin/yadokari"
stats_dir=""
timeout_s=600
while [[ $# -gt 0 ]]; do
  case "$1" in
    --npb-build) [[ $# -ge 2 ]] || die "--npb-build needs a value"; npb_build=$2; shift 2 ;;
    --mpi)       [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    --kernels)   [[ $# -ge 2 ]] || die "--kernels needs a value"; kernels=$2; shift 2 ;;
    --classes)   [[ $# -ge 2 ]] || die "--classes needs a value"; classes=$2; shift 2 ;;
    --ranks)     [[ $# -ge 2 ]] || die "--ranks needs a value"; ranks=$2; shift 2 ;;
    --mode)      [[ $# -ge 2 ]] || die "--mode needs a value"; mode=$2; shift 2 ;;
    --reps)      [[ $# -ge 2 ]] || die "--reps needs a value"; reps=$2; shift 2 ;;
    --yadokari)  [[ $# -ge 2 ]] || die "--yadokari needs a value"; yadokari=$2; shift 2 ;;
    --stats-dir) [[ $# -ge 2 ]] || die "--stats-dir needs a value"; stats_dir=$2; shift 2 ;;
    --timeout)   [[ $# -ge 2 ]] || die "--timeout needs a value"; timeout_s=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

[[ -n "$npb_build" ]] || die "no NPB build directory: pass --npb-build DIR or set NPB_DIR"
[[ -d "$npb_build" ]] || die "NPB build directory '$npb_build' does not exist (run build_npb.sh first)"
case "$mpi" in
  openmpi|mpich) flavours=("$mpi") ;;
  both) flavours=(openmpi mpich) ;;
  *) die "unknown --mpi '$mpi' (openmpi, mpich or both)" ;;
esac
case "$mode" in
  native) modes=(native) ;;
  yadokari) modes=(yadokari) ;;
  compare) modes=(native yadokari) ;;
  *) die "unknown --mode '$mode' (native, yadokari or compare)" ;;
esac
[[ "$ranks" =~ ^[1-9][0-9]*$ ]] || die "--ranks must be a positive integer, got '$ranks'"
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer, got '$reps'"
[[ "$timeout_s" =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a positive integer, got '$timeout_s'"
read -r -a kernel_list <<<"$kernels"
read -r -a class_list <<<"$classes"
[[ ${#kernel_list[@]} -gt 0 && ${#class_list[@]} -gt 0 ]] || die "--kernels and --classes must not be empty"
for k in "${kernel_list[@]}"; do
  case "$k" in bt|cg|ep|ft|is|lu|mg|sp) ;; *) die "unknown kernel '$k' (known: bt cg ep ft is lu mg sp)" ;; esac
done
if [[ " ${modes[*]} " == *" yadokari "* ]]; then
  [[ -x "$yadokari" ]] || die "yadokari CLI '$yadokari' not found (build it, or pass --yadokari)"
fi
command -v python3 >/dev/null || die "python3 is needed to summarize the results"

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-npb.XXXXXX")
trap 'rm -rf "$work"' EXIT
[[ -n "$stats_dir" ]] || stats_dir="$work/stats"
mkdir -p "$stats_dir"
stats_dir=$(cd "$stats_dir" && pwd)
results="$work/results.tsv"
: >"$results"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# run_one <flavour> <mode> <binary> <kernel.class> <rep>; appends "flavour kernel.class mode rep status
# time stats-dir" to the results
run_one() {
  local fl=$1 m=$2 bin=$3 tag=$4 rep=$5
  local log="$work/$fl.$tag.$m.$rep.log" stats="-" rc=0 t verified cmd
  case "$m" in
    native)
      if [[ $fl == openmpi ]]; then cmd=(mpirun.openmpi --oversubscribe -n "$ranks" "$bin")
      else cmd=(mpiexec.mpich -n "$ranks" "$bin"); fi ;;
    yadokari)
      stats="$stats_dir/$fl/$tag.$rep"
      rm -rf "$stats"
      mkdir -p "$stats"
      cmd=(env "YADOKARI_STATS=$stats" "$yadokari" run -n "$ranks" -- "$bin") ;;
  esac
  (cd "$work" && timeout -k 10 "$timeout_s" "${cmd[@]}") >"$log" 2>&1 || rc=$?
  t=$(awk '/Time in seconds =/ { print $NF; exit }' "$log")
  verified=$(grep -c 'Verification *= *SUCCESSFUL' "$log" || true)
  local status=ok
  if (( rc == 124 || rc == 137 )); then status="TIMEOUT"
  elif (( rc != 0 )); then status="EXIT-$rc"
  elif (( verified == 0 )); then status="UNVERIFIED"; fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$fl" "$tag" "$m" "$rep" "$status" "${t:--}" "$stats" >>"$results"
  printf '  %-8s %-7s %-9s rep %d: %-10s %8s s\n' "$fl" "$tag" "$m" "$rep" "$status" "${t:--}" >&2
  if [[ $status != ok ]]; then
    echo "  ---- ${cmd[*]} output (last 25 lines of $log) ----" >&2
    tail -n 25 "$log" | sed 's/^/  | /' >&2
    cp "$log" "$stats_dir/$fl.$tag.$m.$rep.log" 2>/dev/null || true
  fi
}

for fl in "${flavours[@]}"; do
  for k in "${kernel_list[@]}"; do
    for c in "${class_list[@]}"; do
      bin="$npb_build/$fl/bin/$k.$c.$ranks"
      if [[ ! -x "$bin" ]]; then
        echo "  $fl $k.$c: $bin missing (build_npb.sh --kernels $k --classes $c --ranks $ranks)" >&2
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$fl" "$k.$c" "-" 0 "MISSING" "-" "-" >>"$results"
        continue
      fi
      for ((r = 0; r < reps; r++)); do
        if (( r % 2 == 0 )); then order=("${modes[@]}"); else order=(); for ((i = ${#modes[@]} - 1; i >= 0; i--)); do order+=("${modes[i]}"); done; fi
        for m in "${order[@]}"; do run_one "$fl" "$m" "$bin" "$k.$c" "$r"; done
      done
    done
  done
done

python3 - "$results" "$ranks" <<'EOF'
import glob, json, os, statistics, sys
from collections import defaultdict

def comm_totals(stats_dir):
    """From every rank's stats file (pmpi-layer/README.md): point-to-point messages (sent + received,
    the shim's 'totals') and collectives started (summed over communicators).
    Returns (files, p2p, collectives)."""
    files = [f for f in glob.glob(os.path.join(stats_dir, "**", "*.json"), recursive=True) if os.path.isfile(f)]
    p2p = coll = 0
    for f in files:
        try:
            j = json.load(open(f))
            t = j.get("totals", {})
            p2p += int(t.get("messages_sent", 0)) + int(t.get("messages_received", 0))
            coll += sum(int(c.get("collectives", 0)) for c in j.get("communicators", []))
        except (OSError, ValueError, AttributeError, TypeError):
            pass
    return len(files), p2p, coll

rows = defaultdict(lambda: defaultdict(list))  # (fl, tag) -> mode -> [(status, time, stats)]
for line in open(sys.argv[1]):
    fl, tag, mode, rep, status, t, stats = line.rstrip("\n").split("\t")
    rows[(fl, tag)][mode].append((status, None if t == "-" else float(t), stats))

def fmt(v):
    return "-" if v is None else f"{v:.2f}"

ranks = int(sys.argv[2])
bad = 0
print(f"{'mpi':8} {'bench':7} {'native s':>9} {'yadokari s':>10} {'ratio':>6}  {'verification':28} {'stats: files / p2p msgs / colls':>30}")
for (fl, tag), modes in sorted(rows.items()):
    med = {}
    stat_txt = []
    for m, runs in modes.items():
        ok = [t for s, t, _ in runs if s == "ok" and t is not None]
        med[m] = statistics.median(ok) if ok else None
        fails = [s for s, _, _ in runs if s != "ok"]
        bad += len(fails)
        stat_txt.append(f"{m}:{len(runs) - len(fails)}/{len(runs)}" + (f"({','.join(sorted(set(fails)))})" if fails else ""))
    stats_txt = "-"
    if "yadokari" in modes:
        counts = [comm_totals(d) for s, _, d in modes["yadokari"] if d != "-" and s == "ok"]
        if counts:
            files, p2p, coll = counts[0]
            stats_txt = f"{files} / {p2p} / {coll}"
            if any(c[0] != ranks for c in counts):
                stat_txt.append("STATS-FILES!=RANKS")
            if any(c[1] + c[2] == 0 for c in counts):
                stat_txt.append("NO-COMM-IN-STATS")
    n, y = med.get("native"), med.get("yadokari")
    ratio = f"{y / n:6.3f}" if n and y else "     -"
    print(f"{fl:8} {tag:7} {fmt(n):>9} {fmt(y):>10} {ratio}  {' '.join(stat_txt):28} {stats_txt:>30}")
print("\ntimes are NPB's own 'Time in seconds' (median over reps); ratio = yadokari / native, same invocation;")
print("stats (first yadokari rep): rank files, point-to-point messages sent+received, collectives, summed over ranks")
sys.exit(1 if bad else 0)
EOF
