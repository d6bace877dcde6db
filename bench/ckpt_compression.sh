#!/usr/bin/env bash
# Which zstd level images should have by default (issue 16 item 4): the same NPB run checkpointed
# with each level, full images only, side by side in one invocation. Per MPI, benchmark and level:
#   yadokari run -n NP --ckpt-dir D --interval S --full-every 1 --compress L --stop-after-epoch K -- BIN
#   yadokari restart --ckpt-dir D
# then from every epoch's MANIFEST (docs/formats/manifest.md): the bytes of all ranks' images, the
# slowest rank's background write and its pause (GO to running again); from the restart, the slowest
# rank's restore of epoch K and NPB's verification. Levels run in an order rotated per round, so that
# none always comes first.
#
#   ckpt_compression.sh [--npb-dir DIR] [--mpi openmpi|mpich|both] [--benchmarks "cg.B.2 mg.B.2 lu.B.2"]
#                       [--levels "0 1 3"] [--epochs K] [--reps R] [--yadokari PATH] [--out FILE]
#
#   --npb-dir     NPB binaries as <dir>/<mpi>/bin/<kernel>.<class>.<ranks> (bench/npb/build_npb.sh's
#                 --out; default $NPB_DIR)
#   --levels      zstd levels, 0 = off (default "0 1 3")
#   --epochs      checkpoints per run (default 1); the interval is per kernel, MG 1.5 s, CG 5 s, LU 10 s,
#                 others 5 s, so that class B's first is taken in its iterations (MG fills its arrays
#                 in its first second: an image of it then is mostly zero pages, never written) and
#                 the runs of every level capture the same state
#   --out         JSON lines, one per run (default: a temporary file, removed at the end)
#
# Runs MPI jobs: take the shared test lock (flock /tmp/yadokari-tests.lock ...). Prints, per MPI and
# benchmark, each level's median image bytes, write, pause and restore, and the ratios to level 0.
# Exit status: 0 if every run committed its epochs and every restart verified, 1 otherwise, 2 on a
# usage error.
set -uo pipefail

prog=ckpt_compression.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

npb_dir=${NPB_DIR:-}
mpi=both
benchmarks="cg.B.2 mg.B.2 lu.B.2"
levels="0 1 3"
epochs=1
reps=1
yadokari=${YADOKARI:-$repo/build/bin/yadokari}
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --npb-dir) [[ $# -ge 2 ]] || die "--npb-dir needs a value"; npb_dir=$2; shift 2 ;;
    --mpi) [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    --benchmarks) [[ $# -ge 2 ]] || die "--benchmarks needs a value"; benchmarks=$2; shift 2 ;;
    --levels) [[ $# -ge 2 ]] || die "--levels needs a value"; levels=$2; shift 2 ;;
    --epochs) [[ $# -ge 2 ]] || die "--epochs needs a value"; epochs=$2; shift 2 ;;
    --reps) [[ $# -ge 2 ]] || die "--reps needs a value"; reps=$2; shift 2 ;;
    --yadokari) [[ $# -ge 2 ]] || die "--yadokari needs a value"; yadokari=$2; shift 2 ;;
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
[[ "$epochs" =~ ^[1-9][0-9]*$ ]] || die "--epochs needs a positive whole number, got '$epochs'"
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || die "--reps needs a positive whole number, got '$reps'"
for level in $levels; do
  [[ "$level" =~ ^[0-9]+$ ]] && ((level <= 19)) || die "--levels: '$level' is not a zstd level (0-19)"
done
[[ -n "$npb_dir" ]] || die "no NPB binaries: pass --npb-dir or set NPB_DIR"
[[ -x "$yadokari" ]] || die "yadokari CLI '$yadokari' not found (build first, or pass --yadokari)"
for fl in "${flavours[@]}"; do
  for b in $benchmarks; do
    [[ -x "$npb_dir/$fl/bin/$b" ]] || die "$npb_dir/$fl/bin/$b not found (bench/npb/build_npb.sh builds it)"
  done
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-compression.XXXXXX")
trap 'rm -rf "$work"' EXIT
[[ -n "$out" ]] || out="$work/runs.jsonl"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export YADOKARI_STATE_DIR="$work/state" EPOCHS="$epochs"

interval_of() {
  case "${1%%.*}" in
    mg) echo 1.5 ;;
    lu) echo 10 ;;
    *) echo 5 ;;
  esac
}

# run_one <flavour> <benchmark> <level> <round>: appends one JSON line to $out.
failed=0
run_one() {
  local fl=$1 b=$2 level=$3 round=$4 np=${2##*.} dir rc
  dir=$(mktemp -d "$work/run.XXXXXX")
  timeout -k 10 900 "$yadokari" run -n "$np" --mpi "$fl" --ckpt-dir "$dir/ckpt" --interval "$(interval_of "$b")" \
    --full-every 1 --compress "$level" --keep "$epochs" --stop-after-epoch "$epochs" -- "$npb_dir/$fl/bin/$b" \
    >"$dir/run.out" 2>"$dir/run.err" </dev/null
  rc=$?
  if ((rc != 75)); then
    echo "$prog: $fl $b level $level: exited $rc before epoch $epochs; last lines:" >&2
    tail -n 5 "$dir/run.err" | sed 's/^/  | /' >&2
    failed=1
  fi
  local restore="null" verified=false
  if ((rc == 75)); then
    timeout -k 10 900 "$yadokari" restart --ckpt-dir "$dir/ckpt" >"$dir/restart.out" 2>"$dir/restart.err" </dev/null
    restore=$(sed -n 's/.*restored from their images: .*, restore \([0-9.]*\) s.*/\1/p' "$dir/restart.err")
    restore=${restore:-null}
    grep -q 'Verification *= *SUCCESSFUL' "$dir/restart.out" && verified=true
    [[ $verified == true ]] || { echo "$prog: $fl $b level $level: the restart did not verify" >&2; failed=1; }
  fi
  /usr/bin/python3 - "$dir/ckpt" "$fl" "$b" "$level" "$round" "$rc" "$restore" "$verified" >>"$out" <<'PY'
import json, os, sys
ckpt, fl, b, level, rnd, rc, restore, verified = sys.argv[1:]
epochs = []
for name in sorted((e for e in os.listdir(ckpt) if e.isdigit()) if os.path.isdir(ckpt) else [], key=int):
    path = os.path.join(ckpt, name, "MANIFEST")
    if os.path.exists(path) and int(name) <= int(os.environ["EPOCHS"]):  # not the restart's own
        images = json.load(open(path))["images"]
        epochs.append({"epoch": int(name), "bytes": sum(i["size"] for i in images),
                       "write_s": max(i["write_seconds"] for i in images),
                       "pause_s": max(i["pause_seconds"] for i in images)})
print(json.dumps({"mpi": fl, "benchmark": b, "level": int(level), "round": int(rnd), "exit": int(rc),
                  "epochs": epochs, "restore_s": json.loads(restore), "verified": verified == "true"}))
PY
  rm -rf "$dir"
  echo "$fl $b round $round level $level: exit $rc, restart verified: $verified" >&2
}

read -r -a level_list <<<"$levels"
echo "$prog: load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for ((round = 1; round <= reps; round++)); do
  for fl in "${flavours[@]}"; do
    for b in $benchmarks; do
      for ((i = 0; i < ${#level_list[@]}; i++)); do
        run_one "$fl" "$b" "${level_list[$(((i + round) % ${#level_list[@]}))]}" "$round"
      done
    done
  done
done
echo "$prog: load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

/usr/bin/python3 - "$out" <<'PY'
import collections, json, statistics, sys
rows = collections.defaultdict(lambda: collections.defaultdict(list))  # (mpi, benchmark) -> level -> epochs
restores = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows[(r["mpi"], r["benchmark"])][r["level"]].extend(r["epochs"])
    if r.get("restore_s") is not None:
        restores[(r["mpi"], r["benchmark"])][r["level"]].append({"restore_s": r["restore_s"]})
print("| MPI | benchmark | zstd level | images, all ranks (MB) | write, slowest rank (s) | pause (s) | restore (s) "
      "| bytes / level 0 | write / level 0 | restore / level 0 |")
print("|---|---|---|---|---|---|---|---|---|---|")
for (fl, b), by_level in sorted(rows.items()):
    med = {}
    for lvl, eps in by_level.items():
        if not eps:
            continue
        med[lvl] = {k: statistics.median(e[k] for e in eps) for k in ("bytes", "write_s", "pause_s")}
        got = restores[(fl, b)].get(lvl)
        med[lvl]["restore_s"] = statistics.median(e["restore_s"] for e in got) if got else None
    base = med.get(0)
    for lvl in sorted(med):
        m = med[lvl]
        ratio = lambda k: "%.2f" % (m[k] / base[k]) if base and base[k] and m[k] is not None else "-"
        restore = "%.3f" % m["restore_s"] if m["restore_s"] is not None else "-"
        print("| %s | %s | %d | %.1f | %.2f | %.3f | %s | %s | %s | %s |" % (
            fl, b, lvl, m["bytes"] / 1e6, m["write_s"], m["pause_s"], restore, ratio("bytes"), ratio("write_s"),
            ratio("restore_s")))
PY
exit $failed
