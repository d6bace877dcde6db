#!/usr/bin/env bash
# Cut latency: how long a checkpoint takes from its request to every rank parked at the cut (the
# MANIFEST's cut_seconds, on the front end's clock, docs/formats/manifest.md), while the ranks
# spend their time in blocking point-to-point calls (bench/cut_latency/pingpong_until.c). Not a
# timed test: a report, and with --compare-build a before/after of a shim change.
#
#   cut_latency.sh [--build DIR] [--mpi openmpi|mpich|both] [--ranks N] [--checkpoints C] [--jobs J]
#                  [--compare-build OLD]
#
#   --build          build tree (bin/yadokari, lib/, bench/<flavour>/pingpong_until; default <repo>/build)
#   --ranks          ranks per job (default 2)
#   --checkpoints    checkpoints asked for per job, one after the other (default 10)
#   --jobs           jobs per side (default 3); with --compare-build the sides alternate job by job
#   --compare-build  also run OLD's shim (YADOKARI_SHIM_DIR=OLD/lib, --build's front end and program)
#
# Prints, per MPI and side, the median, quartiles and range of cut_seconds over every checkpoint.
# Runs MPI jobs: under the shared test lock, e.g.
#   flock /tmp/yadokari-tests.lock bench/cut_latency.sh --mpi both --compare-build <old build>
set -euo pipefail
prog=cut_latency.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build" mpi=both ranks=2 checkpoints=10 jobs=3 compare=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) [[ $# -ge 2 ]] || die "--build needs a value"; build=$2; shift 2 ;;
    --mpi) [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    --ranks) [[ $# -ge 2 ]] || die "--ranks needs a value"; ranks=$2; shift 2 ;;
    --checkpoints) [[ $# -ge 2 ]] || die "--checkpoints needs a value"; checkpoints=$2; shift 2 ;;
    --jobs) [[ $# -ge 2 ]] || die "--jobs needs a value"; jobs=$2; shift 2 ;;
    --compare-build) [[ $# -ge 2 ]] || die "--compare-build needs a value"; compare=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
case "$mpi" in
  openmpi | mpich) flavours=("$mpi") ;;
  both) flavours=(openmpi mpich) ;;
  *) die "unknown --mpi '$mpi' (openmpi, mpich or both)" ;;
esac
for v in "$ranks" "$checkpoints" "$jobs"; do [[ "$v" =~ ^[1-9][0-9]*$ ]] || die "positive whole number expected, got '$v'"; done
build=$(cd "$build" && pwd) || die "no build tree '$build'"
[[ -z "$compare" ]] || compare=$(cd "$compare" && pwd) || die "no build tree '$compare'"
yadokari="$build/bin/yadokari"
[[ -x "$yadokari" ]] || die "$yadokari not built"

work=$(mktemp -d "${TMPDIR:-/tmp}/yk-cut-latency.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 YADOKARI_STATE_DIR="$work/state"
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
export UCX_TLS=${UCX_TLS:-sm,self}
results="$work/results.txt"
: >"$results"

wait_file() { for _ in $(seq 600); do [[ -e "$1" ]] && return 0; sleep 0.2; done; return 1; }

# one_job <flavour> <side> <shim lib dir> <n>: appends "<flavour> <side> <cut_seconds>" per epoch.
one_job() {
  local fl=$1 side=$2 lib=$3 n=$4 dir="$work/$1-$2-$4" app="$build/bench/$1/pingpong_until"
  [[ -x "$app" ]] || die "$app not built (cmake --build $build --target pingpong_until-$fl)"
  mkdir -p "$dir"
  YADOKARI_SHIM_DIR="$lib" YK_BENCH_READY="$dir/ready" \
    "$yadokari" run -n "$ranks" --mpi "$fl" --ckpt-dir "$dir/ckpt" --keep $((checkpoints + 1)) -- "$app" \
    >"$dir/run.out" 2>"$dir/run.err" &
  local job=$!
  wait_file "$dir/ready" || { echo "$prog: $fl $side: the ranks never started" >&2; kill "$job"; return 1; }
  for _ in $(seq "$checkpoints"); do
    "$yadokari" checkpoint >>"$dir/checkpoint.out" 2>&1 ||
      { echo "$prog: $fl $side: checkpoint failed:" >&2; tail -n 3 "$dir/checkpoint.out" >&2; }
  done
  touch "$dir/ready.done"
  wait "$job" || { echo "$prog: $fl $side: the job failed:" >&2; tail -n 5 "$dir/run.err" >&2; return 1; }
  python3 - "$dir/ckpt" "$fl" "$side" >>"$results" <<'PY'
import json, os, sys
ckpt, fl, side = sys.argv[1:]
for epoch in sorted(int(e) for e in os.listdir(ckpt) if e.isdigit()):
    path = os.path.join(ckpt, str(epoch), "MANIFEST")
    if os.path.exists(path):
        print(fl, side, json.load(open(path)).get("cut_seconds", 0.0))
PY
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for fl in "${flavours[@]}"; do
  for n in $(seq "$jobs"); do
    if [[ -n "$compare" ]] && (( n % 2 == 1 )); then
      one_job "$fl" old "$compare/lib" "$n"; one_job "$fl" new "$build/lib" "$n"
    elif [[ -n "$compare" ]]; then
      one_job "$fl" new "$build/lib" "$n"; one_job "$fl" old "$compare/lib" "$n"
    else
      one_job "$fl" new "$build/lib" "$n"
    fi
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" "$ranks" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
groups = {}
for fl, side, s in rows:
    groups.setdefault((fl, side), []).append(float(s) * 1000)
print(f"cut latency, request -> every rank parked (ms), {sys.argv[2]} ranks")
print("| MPI | shim | checkpoints | median | quartiles | range |")
print("|---|---|---|---|---|---|")
for (fl, side), v in sorted(groups.items()):
    q = statistics.quantiles(v, n=4) if len(v) > 1 else [v[0]] * 3
    print(f"| {fl} | {side} | {len(v)} | {statistics.median(v):.2f} | {q[0]:.2f}..{q[2]:.2f} | {min(v):.2f}..{max(v):.2f} |")
PY
