#!/usr/bin/env bash
# Heartbeats under load (issue 18 item 3): false losses on a loaded machine, and the detection time
# of a real loss. For each repetition: a 3-node simulated cluster (2 slots each), a 6-rank job of
# examples/ring under `yadokari run --sim` checkpointing every 5 s (image writes included), held at
# MPI_Finalize for --seconds while `stress-ng --cpu N` loads the machine; every "suspect" and "lost"
# line of the front end is counted (a lost node there is a false loss). Then, still under load, n3
# is killed (`sim kill`) and the time from the kill to the "node n3 lost" line is measured.
# One JSON line per repetition, then a summary line.
#
# usage: bench/heartbeat_load.sh [--mpi openmpi|mpich] [--seconds S] [--cpu N] [--reps R] [--build DIR]
#                                [--out FILE]      (defaults openmpi, 120, 4, 1, <repo>/build)
#   YADOKARI_BENCH_LOCK=FILE   take this lock (flock) around each repetition
# Needs root and stress-ng (ci/install-deps.sh installs it).
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
mpi=openmpi seconds=120 cpu=4 reps=1 build="$repo/build" out=""
while (($#)); do
    case "$1" in
        --mpi) mpi=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --cpu) cpu=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) echo "heartbeat_load.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
for value in "$seconds" "$cpu" "$reps"; do
    [[ $value =~ ^[0-9]+$ ]] || { echo "heartbeat_load.sh: '$value' is not a whole number" >&2; exit 2; }
done
[[ $(id -u) == 0 ]] || { echo "heartbeat_load.sh: the simulated cluster needs root" >&2; exit 2; }
command -v stress-ng >/dev/null || { echo "heartbeat_load.sh: no stress-ng (run ci/install-deps.sh)" >&2; exit 2; }
Y="$build/bin/yadokari" ring="$build/examples/$mpi/ring"
[[ -x "$Y" && -x "$ring" ]] || { echo "heartbeat_load.sh: build yadokari and ring-$mpi first" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/yk-heartbeat.XXXXXX")
export YADOKARI_SIM_DIR="$work/sim" YADOKARI_STATE_DIR="$work/jobs"
[[ -n "$out" ]] || out="$work/heartbeat_load.jsonl"
: >"$out"
NAME="hb$$"
NAME=${NAME:0:12}
stress=""
cleanup() {
    [[ -n "$stress" ]] && kill "$stress" 2>/dev/null && wait "$stress" 2>/dev/null
    "$Y" sim down --name "$NAME" >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

one_rep() {
    local rep=$1 dir="$work/rep"
    rm -rf "$dir"
    mkdir -p "$dir" "$YADOKARI_STATE_DIR"
    "$Y" sim up --nodes 3 --slots 2 --name "$NAME" >/dev/null || { echo "sim up failed" >&2; return 1; }
    stress-ng --cpu "$cpu" --timeout $((seconds + 60))s >/dev/null 2>&1 &
    stress=$!
    YADOKARI_FAULT_HOLD_FINALIZE="$dir/release" timeout -k 5 $((seconds + 120)) "$Y" run --sim "$NAME" -n 6 --mpi "$mpi" \
        --ckpt-dir "$dir/ckpt" --interval 5 -- "$ring" 6000 400 5 >"$dir/run.out" 2>"$dir/run.err" </dev/null &
    local job=$!
    sleep "$seconds"
    local load suspect lost killed detected="" delay=""
    load=$(cut -d' ' -f1 /proc/loadavg)
    suspect=$(grep -c "is suspect" "$dir/run.err")
    lost=$(grep -c " lost: no heartbeat" "$dir/run.err")
    local epochs
    epochs=$(ls -d "$dir"/ckpt/*/MANIFEST 2>/dev/null | wc -l)
    if kill -0 "$job" 2>/dev/null && ((lost == 0)); then
        "$Y" sim kill --name "$NAME" n3 >/dev/null
        killed=$(date +%s.%N)
        for _ in $(seq 500); do
            grep -q "node n3 lost" "$dir/run.err" && { detected=$(date +%s.%N); break; }
            sleep 0.02
        done
        [[ -n "$detected" ]] && delay=$(awk -v a="$killed" -v b="$detected" 'BEGIN { printf "%.2f", b - a }')
    fi
    local silence
    silence=$(sed -n 's/.*node n3 lost: no heartbeat for \([0-9.]*\) s.*/\1/p' "$dir/run.err" | head -1)
    touch "$dir/release"
    kill "$stress" 2>/dev/null
    wait "$stress" 2>/dev/null
    stress=""
    kill -TERM "$job" 2>/dev/null
    wait "$job" 2>/dev/null
    "$Y" sim down --name "$NAME" >/dev/null 2>&1
    python3 - "$out" <<PY
import json, sys
record = {"bench": "heartbeat_load", "rep": $rep, "mpi": "$mpi", "seconds": $seconds, "stress_cpu": $cpu,
          "load_1min": float("$load"), "epochs_committed": $epochs, "suspect_lines": $suspect,
          "false_losses": $lost, "kill_detected_s": float("$delay") if "$delay" else None,
          "kill_silence_s": float("$silence") if "$silence" else None}
open(sys.argv[1], "a").write(json.dumps(record) + "\n")
print(json.dumps(record))
PY
    [[ $lost -gt 0 ]] && grep -E "suspect|lost" "$dir/run.err" | head -5 >&2
    return 0
}

for rep in $(seq "$reps"); do
    if [[ -n "${YADOKARI_BENCH_LOCK:-}" ]]; then
        exec {lock}>"$YADOKARI_BENCH_LOCK"
        flock "$lock"
        one_rep "$rep"
        exec {lock}>&-
    else
        one_rep "$rep"
    fi
done
python3 - "$out" <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
detected = [r["kill_detected_s"] for r in records if r["kill_detected_s"] is not None]
print(json.dumps({"summary": True, "reps": len(records), "seconds_each": records[0]["seconds"] if records else 0,
                  "false_losses": sum(r["false_losses"] for r in records),
                  "suspect_lines": sum(r["suspect_lines"] for r in records),
                  "kill_detected_max_s": max(detected) if detected else None}))
PY
