#!/usr/bin/env bash
# What checkpointing costs while no checkpoint is taken, on NPB (issue 21): native runs, the plain
# shim ('yadokari run') and the armed shim ('yadokari run --ckpt-dir <fresh dir>', no --interval),
# paired and interleaved, judged on NPB's own "Time in seconds" (start-up and teardown excluded).
#
# Issue 21's whole measurement (CG, MG, LU class B, both MPIs, 2 ranks = one per core and 4 ranks),
# on a quiet machine, is the default (6 benchmarks x 2 MPIs x 3 variants per round); it runs MPI
# jobs, so under the shared test lock, with the binaries of bench/npb/build_npb.sh in $NPB_DIR:
#   flock /tmp/yadokari-tests.lock bench/npb_armed.sh --npb-dir "$NPB_DIR" --reps 10 --out armed.jsonl
#
#   npb_armed.sh [--npb-dir DIR] [--mpi openmpi|mpich|both] [--benchmarks "cg.B.2 ... lu.B.4"]
#                [--reps R] [--yadokari PATH] [--timeout S] [--out FILE]
#
#   --npb-dir     NPB binaries as <dir>/<mpi>/bin/<kernel>.<class>.<ranks> (build_npb.sh's --out;
#                 default $NPB_DIR); without one for the rank count asked for, one of the same kernel
#                 and class built for another count runs with it (NPB 3.4 takes the count at run time)
#   --benchmarks  binary names; the rank count is the last field (default
#                 "cg.B.2 mg.B.2 lu.B.2 cg.B.4 mg.B.4 lu.B.4"; class A for a quick look)
#   --reps        rounds (default 5); in round r the three variants run in an order rotated by r, so
#                 that each variant comes first, second and third equally often
#   --yadokari    the CLI (default <repo>/build/bin/yadokari, or $YADOKARI)
#   --timeout     watchdog per run, seconds (default 900)
#   --out         JSON lines, one per run (default: a temporary file, removed at the end)
#
# Prints, per MPI and benchmark, the median over rounds of the paired ratios shim/native, armed/native
# and armed/shim (each round's runs against each other), with the bootstrap rule of
# shim_overhead/target_verdict.py: armed/shim against the issue's 1 % target, shim/native against 3 %.
# A run that fails or does not verify is reported and left out of its round's ratios.
# Exit status: 0 if every run verified, 1 otherwise, 2 on a usage error.
set -uo pipefail

prog=npb_armed.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

npb_dir=${NPB_DIR:-}
mpi=both
benchmarks="cg.B.2 mg.B.2 lu.B.2 cg.B.4 mg.B.4 lu.B.4"
reps=5
yadokari=${YADOKARI:-$repo/build/bin/yadokari}
timeout_s=900
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --npb-dir) [[ $# -ge 2 ]] || die "--npb-dir needs a value"; npb_dir=$2; shift 2 ;;
    --mpi) [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    --benchmarks) [[ $# -ge 2 ]] || die "--benchmarks needs a value"; benchmarks=$2; shift 2 ;;
    --reps) [[ $# -ge 2 ]] || die "--reps needs a value"; reps=$2; shift 2 ;;
    --yadokari) [[ $# -ge 2 ]] || die "--yadokari needs a value"; yadokari=$2; shift 2 ;;
    --timeout) [[ $# -ge 2 ]] || die "--timeout needs a value"; timeout_s=$2; shift 2 ;;
    --out) [[ $# -ge 2 ]] || die "--out needs a value"; out=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
case "$mpi" in
  openmpi | mpich) flavours=("$mpi") ;;
  both) flavours=(openmpi mpich) ;;
  *) die "unknown --mpi '$mpi' (openmpi, mpich or both)" ;;
esac
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || die "--reps needs a positive whole number, got '$reps'"
[[ "$timeout_s" =~ ^[1-9][0-9]*$ ]] || die "--timeout needs a positive whole number, got '$timeout_s'"
[[ -n "$npb_dir" ]] || die "no NPB binaries: pass --npb-dir or set NPB_DIR"
[[ -d "$npb_dir" ]] || die "--npb-dir '$npb_dir' is not a directory"
[[ -x "$yadokari" ]] || die "yadokari CLI '$yadokari' not found (build first, or pass --yadokari)"
# binary_of <flavour> <kernel.class.ranks>: the binary built for that rank count, else one of the same
# kernel and class built for another (NPB 3.4 takes the process count at run time; build_npb.sh's
# suffix is only the count it was checked against), else nothing.
binary_of() {
  local exact="$npb_dir/$1/bin/$2" other
  if [[ -x "$exact" ]]; then echo "$exact"; return; fi
  for other in "$npb_dir/$1/bin/${2%.*}".*; do
    [[ -x "$other" ]] && { echo "$other"; return; }
  done
}
for fl in "${flavours[@]}"; do
  for b in $benchmarks; do
    [[ "${b##*.}" =~ ^[1-9][0-9]*$ ]] || die "benchmark '$b' does not end in its rank count (e.g. cg.B.4)"
    [[ -n "$(binary_of "$fl" "$b")" ]] || die "$npb_dir/$fl/bin/$b not found (bench/npb/build_npb.sh builds it)"
  done
done

work=$(mktemp -d "${TMPDIR:-/tmp}/npb-armed.XXXXXX")
trap 'rm -rf "$work"' EXIT
[[ -n "$out" ]] || out="$work/runs.jsonl"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# run_one <flavour> <benchmark> <variant> <round>: appends one JSON line to $out.
run_one() {
  local fl=$1 b=$2 variant=$3 round=$4 np=${2##*.} cmd=() log="$work/run.log" rc seconds status
  local bin
  bin=$(binary_of "$fl" "$b")
  case "$variant" in
    native)
      if [[ $fl == openmpi ]]; then cmd=(mpirun.openmpi --oversubscribe -n "$np" "$bin")
      else cmd=(mpiexec.mpich -n "$np" "$bin"); fi ;;
    shim) cmd=("$yadokari" run -n "$np" --mpi "$fl" -- "$bin") ;;
    armed) cmd=("$yadokari" run -n "$np" --mpi "$fl" --ckpt-dir "$(mktemp -d "$work/ckpt.XXXXXX")" -- "$bin") ;;
  esac
  (cd "$work" && exec timeout -k 10 "$timeout_s" "${cmd[@]}") >"$log" 2>&1 </dev/null
  rc=$?
  seconds=$(awk -F= '/Time in seconds/ { gsub(/ /, "", $2); v = $2 } END { print v }' "$log")
  if ((rc == 124 || rc == 137)); then status=TIMEOUT
  elif ((rc != 0)); then status="EXIT-$rc"
  elif ! grep -q 'Verification *= *SUCCESSFUL' "$log"; then status=UNVERIFIED
  else status=ok; fi
  if [[ $status != ok ]]; then
    echo "$prog: $fl $b $variant round $round: $status; last lines:" >&2
    tail -n 5 "$log" | sed 's/^/  | /' >&2
    failed=1
  fi
  printf '{"mpi":"%s","benchmark":"%s","variant":"%s","round":%d,"status":"%s","npb_seconds":%s}\n' \
    "$fl" "$b" "$variant" "$round" "$status" "${seconds:-null}" >>"$out"
  echo "$fl $b round $round $variant: $status ${seconds:-?} s" >&2
}

failed=0
variants=(native shim armed)
echo "$prog: load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for ((round = 1; round <= reps; round++)); do
  for fl in "${flavours[@]}"; do
    for b in $benchmarks; do
      for ((i = 0; i < 3; i++)); do run_one "$fl" "$b" "${variants[$(((i + round) % 3))]}" "$round"; done
    done
  done
done
echo "$prog: load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 - "$out" "$here/shim_overhead" <<'EOF'
import collections, json, statistics, sys
sys.path.insert(0, sys.argv[2])
from target_verdict import iqr, median_ci, verdict

runs = collections.defaultdict(dict)  # (mpi, benchmark) -> round -> variant -> seconds
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["status"] == "ok" and r["npb_seconds"]:
        runs[(r["mpi"], r["benchmark"])].setdefault(r["round"], {})[r["variant"]] = r["npb_seconds"]
pairs = (("shim", "native", 3.0), ("armed", "native", None), ("armed", "shim", 1.0))
print("NPB 'Time in seconds', paired per round: median added % [bootstrap 95 % CI] (IQR) n")
for (fl, b), rounds in sorted(runs.items()):
    for a, base, target in pairs:
        added = [100.0 * (v[a] / v[base] - 1.0) for v in rounds.values() if a in v and base in v]
        if not added:
            print(f"{fl:8} {b:9} {a}/{base}: no complete pair")
            continue
        low, high = median_ci(added)
        q1, q3 = iqr(added)
        text = f"{fl:8} {b:9} {a + '/' + base:13} {statistics.median(added):+6.2f} % [{low:+.2f}..{high:+.2f}] ({q1:+.2f}..{q3:+.2f}) n={len(added)}"
        if target is not None and len(added) < 3:
            text += " -> too few rounds for a verdict"  # a bootstrap of one or two values is no interval
        elif target is not None:
            text += f" -> {verdict((low, high), target)} (<= {target:g} %)"
        print(text)
EOF
exit "$failed"
