#!/usr/bin/env bash
# Bytes written and write time of incremental images against full ones, at a few fractions of the
# memory changed between checkpoints, side by side in one invocation. The ranks
# (bench/ckpt_pause/dirty_steps.c) hold SIZE MiB each and rewrite PERCENT % of their pages between
# two pause points; the driver asks for a checkpoint at each pause point (`yadokari checkpoint`
# returns once the epoch is committed), once with --full-every 1 (every image full) and once with
# --full-every 1000 (epoch 1 full, every later one an increment), and reads each rank's image size
# and write time from the MANIFESTs (docs/formats/manifest.md).
# usage: bench/ckpt_incremental.sh [--build DIR] [--mpi openmpi|mpich] [--size MIB]
#                                  [--percents "1 10 100"] [--checkpoints N] [--out FILE.jsonl]
# Prints a table (median over epochs 2..N of the largest rank image and the slowest write; the
# ratio incremental/full); one JSON line per epoch goes to --out.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build" flavour=openmpi size=256 percents="1 10 100" checkpoints=4 out=""
while (($#)); do
    case "$1" in
        --build) build="$2"; shift 2 ;;
        --mpi) flavour="$2"; shift 2 ;;
        --size) size="$2"; shift 2 ;;
        --percents) percents="$2"; shift 2 ;;
        --checkpoints) checkpoints="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        *) echo "ckpt_incremental.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
yadokari="$build/bin/yadokari" program="$build/bench/$flavour/dirty_steps"
[[ -x "$yadokari" && -x "$program" ]] || { echo "ckpt_incremental.sh: build first ($yadokari, $program)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/yk-incr-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 YADOKARI_STATE_DIR="$work/state"
[[ -n "$out" ]] || out="$work/results.jsonl"
: >"$out"

wait_file() { for _ in $(seq 1200); do [[ -e "$1" ]] && return 0; sleep 0.25; done; return 1; }

one_run() {  # percent mode(full|incremental)
    local percent="$1" mode="$2" dir="$work/$1-$2" full_every=1
    [[ $mode == incremental ]] && full_every=1000
    mkdir -p "$dir"
    YK_BENCH_PAUSE="$dir/go" "$yadokari" run -n 2 --mpi "$flavour" --ckpt-dir "$dir/ckpt" --interval 0 \
        --keep $((checkpoints + 1)) --full-every "$full_every" -- "$program" "$size" "$percent" "$checkpoints" \
        >"$dir/run.out" 2>"$dir/run.err" &
    local job=$!
    for step in $(seq "$checkpoints"); do
        wait_file "$dir/go-$step.reached" || { echo "ckpt_incremental.sh: no pause point $step" >&2; kill $job; return 1; }
        for _ in $(seq 100); do  # the job registers with its coordinator around MPI_Init
            "$yadokari" checkpoint >>"$dir/checkpoint.out" 2>&1 && break
            sleep 0.2
        done
        touch "$dir/go-$step"
    done
    wait $job || { echo "ckpt_incremental.sh: the job failed ($percent %, $mode)" >&2; tail -n 5 "$dir/run.err" >&2; return 1; }
    /usr/bin/python3 - "$dir/ckpt" "$percent" "$mode" "$flavour" "$size" >>"$out" <<'PY'
import json, os, sys
ckpt, percent, mode, flavour, size = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
for epoch in sorted((int(e) for e in os.listdir(ckpt) if e.isdigit())):
    path = os.path.join(ckpt, str(epoch), "MANIFEST")
    if not os.path.exists(path):
        continue
    images = json.load(open(path))["images"]
    print(json.dumps({"mpi": flavour, "mib_per_rank": size, "percent": percent, "mode": mode, "epoch": epoch,
                      "increment": all(i.get("parent_epoch", 0) for i in images),
                      "image_bytes": max(i["size"] for i in images),
                      "write_s": max(i["write_seconds"] for i in images),
                      "pause_s": max(i["pause_seconds"] for i in images)}))
PY
}

for percent in $percents; do
    for mode in full incremental; do one_run "$percent" "$mode"; done
done
/usr/bin/python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def med(percent, mode, key):
    v = [r[key] for r in rows if r["percent"] == percent and r["mode"] == mode and r["epoch"] >= 2]
    return statistics.median(v) if v else float("nan")
print(f"{'changed %':>9} {'full MB':>8} {'incr MB':>8} {'bytes i/f':>9} {'full write s':>12} {'incr write s':>12} {'time i/f':>8}")
for percent in sorted({r["percent"] for r in rows}):
    fb, ib = med(percent, "full", "image_bytes"), med(percent, "incremental", "image_bytes")
    fw, iw = med(percent, "full", "write_s"), med(percent, "incremental", "write_s")
    print(f"{percent:>9} {fb / 1e6:>8.1f} {ib / 1e6:>8.1f} {ib / fb:>9.3f} {fw:>12.3f} {iw:>12.3f} {iw / fw:>8.2f}")
PY
