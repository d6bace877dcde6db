#!/usr/bin/env bash
# Incremental images on NPB kernels: bytes written per epoch after the first against a full image,
# and a restart from a chain of increments that must verify. Per MPI and kernel, one run:
#   yadokari run -n NP --ckpt-dir D --interval S --full-every 1000 --stop-after-epoch K -- BIN
# (epoch 1 a full image, epochs 2..K increments of the epoch before), then
#   yadokari restart --ckpt-dir D
# which restores every rank from epoch K's chain (base 1 + K-1 increments) and runs NPB to its end.
# Reads every image's size and parent from the MANIFESTs (docs/formats/manifest.md) and checks the
# chain with `yadokari inspect --verify` of epoch K's rank-0 image.
# NPB stays outside the repository: binaries from bench/npb/build_npb.sh (DIR/<mpi>/bin/<k>.<c>.<np>).
# usage: bench/npb_incremental.sh --npb-build DIR [--mpi "openmpi mpich"] [--benchmarks "lu.B cg.A"]
#                                 [--np 4] [--interval S] [--epochs K] [--build BUILD] [--out FILE.jsonl]
#                                 [--keep-rank0 DIR]
# --keep-rank0 copies rank 0's images of epochs 1..K (before the restart) to DIR/<mpi>-<benchmark>/, for
# bench/incremental_pages.py (what each increment stores, area by area, against what changed).
# Prints one line per run: full image bytes (all ranks), the mean increment (all ranks), their ratio,
# the chain length restored and NPB's verification after the restart. One JSON line per run to --out.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
npb_build="" flavours="openmpi mpich" benchmarks="lu.B" np=4 interval=10 epochs=6 build="$here/../build" out="" keep_rank0=""
while (($#)); do
    case "$1" in
        --npb-build) npb_build="$2"; shift 2 ;;
        --mpi) flavours="$2"; shift 2 ;;
        --benchmarks) benchmarks="$2"; shift 2 ;;
        --np) np="$2"; shift 2 ;;
        --interval) interval="$2"; shift 2 ;;
        --epochs) epochs="$2"; shift 2 ;;
        --build) build="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --keep-rank0) keep_rank0="$2"; shift 2 ;;
        *) echo "npb_incremental.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
yadokari="$build/bin/yadokari"
[[ -x "$yadokari" ]] || { echo "npb_incremental.sh: build first ($yadokari)" >&2; exit 2; }
[[ -d "$npb_build" ]] || { echo "npb_incremental.sh: --npb-build DIR (bench/npb/build_npb.sh --out) is required" >&2; exit 2; }
((epochs >= 2)) || { echo "npb_incremental.sh: --epochs must be at least 2" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/yk-npb-incr.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export YADOKARI_STATE_DIR="$work/state"
[[ -n "$out" ]] || out="$work/results.jsonl"
status=0

for flavour in $flavours; do
    for benchmark in $benchmarks; do
        bin="$npb_build/$flavour/bin/$benchmark.$np"
        [[ -x "$bin" ]] || { echo "npb_incremental.sh: no $bin" >&2; status=1; continue; }
        dir="$work/$flavour-$benchmark"
        mkdir -p "$dir"
        start=$(date +%s.%N)
        timeout -k 10 1800 "$yadokari" run -n "$np" --mpi "$flavour" --ckpt-dir "$dir/ckpt" --interval "$interval" \
            --full-every 1000 --keep $((epochs + 1)) --stop-after-epoch "$epochs" -- "$bin" >"$dir/run.out" 2>"$dir/run.err"
        rc=$?
        if [[ $rc != 75 ]]; then
            echo "npb_incremental.sh: $flavour $benchmark: the run exited $rc before epoch $epochs (too short for --interval $interval?)" >&2
            tail -n 5 "$dir/run.err" >&2
            status=1
            continue
        fi
        chain=$("$yadokari" inspect --verify --json "$dir/ckpt/$epochs/rank-0.img" |
            /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin).get("chain", [])) or 1)')
        if [[ -n "$keep_rank0" ]]; then
            for ((e = 1; e <= epochs; e++)); do
                mkdir -p "$keep_rank0/$flavour-$benchmark/$e"
                cp "$dir/ckpt/$e/rank-0.img" "$keep_rank0/$flavour-$benchmark/$e/"
            done
        fi
        timeout -k 10 1800 "$yadokari" restart --ckpt-dir "$dir/ckpt" >"$dir/restart.out" 2>"$dir/restart.err"
        restart_rc=$?
        verified=UNVERIFIED
        grep -q 'Verification *= *SUCCESSFUL' "$dir/restart.out" && [[ $restart_rc == 0 ]] && verified=SUCCESSFUL
        [[ $verified == SUCCESSFUL ]] || { status=1; tail -n 5 "$dir/restart.err" >&2; }
        /usr/bin/python3 - "$dir/ckpt" "$flavour" "$benchmark" "$np" "$interval" "$chain" "$verified" \
            "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')" >>"$out" <<'PY'
import json, os, sys
ckpt, flavour, benchmark, np, interval, chain, verified, seconds = sys.argv[1:]
epochs = []
for name in sorted((e for e in os.listdir(ckpt) if e.isdigit()), key=int):
    path = os.path.join(ckpt, name, "MANIFEST")
    if not os.path.exists(path):
        continue
    images = json.load(open(path))["images"]
    # Only the first run's epochs: the restart's own are full images again.
    if epochs and not all(i.get("parent_epoch", 0) for i in images):
        break
    epochs.append({"epoch": int(name), "bytes": sum(i["size"] for i in images),
                   "increment": all(i.get("parent_epoch", 0) for i in images),
                   "write_s": max(i["write_seconds"] for i in images),
                   "pause_s": max(i["pause_seconds"] for i in images)})
full = epochs[0]["bytes"]
increments = [e["bytes"] for e in epochs[1:] if e["increment"]]
mean = sum(increments) / len(increments) if increments else float("nan")
print(json.dumps({"mpi": flavour, "benchmark": benchmark, "np": int(np), "interval_s": float(interval) if "." in interval else int(interval),
                  "full_bytes": full, "increment_bytes": increments, "mean_increment_over_full": mean / full,
                  "chain_images": int(chain), "restart_verification": verified, "seconds": int(seconds),
                  "epochs": epochs}))
PY
        tail -n 1 "$out" | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
ratio = r["mean_increment_over_full"]
print("%-8s %-6s full %8.1f MB  increment %8.1f MB  ratio %.3f  chain %d images  restart: %s" % (
    r["mpi"], r["benchmark"], r["full_bytes"] / 1e6, ratio * r["full_bytes"] / 1e6, ratio, r["chain_images"],
    r["restart_verification"]))'
    done
done
exit $status
