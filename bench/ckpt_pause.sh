#!/usr/bin/env bash
# How long a checkpoint stops the application, against the image size per rank, with images
# written in the background (the default) and in the foreground (YADOKARI_CKPT_BACKGROUND=off),
# side by side in one invocation. The ranks (bench/ckpt_pause/memory_ranks.c) hold SIZE MiB each and
# keep rewriting 10 % of it; the driver asks for CHECKPOINTS checkpoints while they compute and reads
# each rank's pause and write time from the MANIFESTs (docs/formats/manifest.md).
# usage: bench/ckpt_pause.sh [--build DIR] [--mpi openmpi|mpich] [--sizes "1 64 256 1024"]
#                            [--checkpoints N] [--out FILE.jsonl]
# Prints a table (median over the checkpoints of the slowest rank's pause and write, and the ratio
# background/foreground); one JSON line per checkpoint goes to --out.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build" flavour=openmpi sizes="1 64 256 1024" checkpoints=3 out=""
while (($#)); do
    case "$1" in
        --build) build="$2"; shift 2 ;;
        --mpi) flavour="$2"; shift 2 ;;
        --sizes) sizes="$2"; shift 2 ;;
        --checkpoints) checkpoints="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        *) echo "ckpt_pause.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
yadokari="$build/bin/yadokari" program="$build/bench/$flavour/memory_ranks"
[[ -x "$yadokari" && -x "$program" ]] || { echo "ckpt_pause.sh: build first ($yadokari, $program)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/yk-pause.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 YADOKARI_STATE_DIR="$work/state"
[[ -n "$out" ]] || out="$work/results.jsonl"
: >"$out"

wait_file() { for _ in $(seq 600); do [[ -e "$1" ]] && return 0; sleep 0.5; done; return 1; }

one_run() {  # size mode
    local size="$1" mode="$2" dir="$work/$1-$2"
    mkdir -p "$dir"
    YADOKARI_CKPT_BACKGROUND="$mode" YK_BENCH_READY="$dir/ready" \
        "$yadokari" run -n 2 --mpi "$flavour" --ckpt-dir "$dir/ckpt" --interval 0 --keep $((checkpoints + 1)) \
        -- "$program" "$size" 20 >"$dir/run.out" 2>"$dir/run.err" &
    local job=$!
    wait_file "$dir/ready" || { echo "ckpt_pause.sh: the ranks never got ready ($size MiB)" >&2; kill $job; return 1; }
    for _ in $(seq "$checkpoints"); do
        "$yadokari" checkpoint >>"$dir/checkpoint.out" 2>&1 || { echo "ckpt_pause.sh: checkpoint failed:" >&2; tail -n 3 "$dir/checkpoint.out" >&2; }
    done
    touch "$dir/ready.done"
    wait $job || { echo "ckpt_pause.sh: the job failed ($size MiB, background $mode)" >&2; tail -n 5 "$dir/run.err" >&2; return 1; }
    /usr/bin/python3 - "$dir/ckpt" "$size" "$mode" "$flavour" >>"$out" <<'PY'
import json, os, sys
ckpt, size, mode, flavour = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
for epoch in sorted((int(e) for e in os.listdir(ckpt) if e.isdigit())):
    path = os.path.join(ckpt, str(epoch), "MANIFEST")
    if not os.path.exists(path):
        continue
    images = json.load(open(path))["images"]
    print(json.dumps({"mpi": flavour, "mib_per_rank": size, "background": mode, "epoch": epoch,
                      "pause_s": max(i["pause_seconds"] for i in images),
                      "write_s": max(i["write_seconds"] for i in images),
                      "image_bytes": max(i["size"] for i in images)}))
PY
}

for size in $sizes; do
    for mode in off on; do one_run "$size" "$mode"; done
done
/usr/bin/python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def med(size, mode, key):
    v = [r[key] for r in rows if r["mib_per_rank"] == size and r["background"] == mode]
    return statistics.median(v) if v else float("nan")
print(f"{'MiB/rank':>8} {'pause fg':>9} {'pause bg':>9} {'bg/fg':>6} {'write fg':>9} {'write bg':>9}")
for size in sorted({r["mib_per_rank"] for r in rows}):
    fg, bg = med(size, "off", "pause_s"), med(size, "on", "pause_s")
    print(f"{size:>8} {fg:>9.3f} {bg:>9.3f} {bg / fg if fg else float('nan'):>6.2f} "
          f"{med(size, 'off', 'write_s'):>9.3f} {med(size, 'on', 'write_s'):>9.3f}")
PY
