#!/usr/bin/env bash
# Seed experiment "per-process vs node-level re-placement" (issue 5; seed 000: 7 ranks on nodes of
# (2,2,3) slots, the 3-slot node lost; moving its 3 ranks to ONE survivor (0:3) took 212.85 s,
# spreading them rank by rank (1:2) 179.63 s, -15.6 %), with an N-queens master-worker program
# that gives every rank a fixed share of the tasks (examples/nqueens --static), so the most
# crowded node sets the pace.
# On a simulated cluster whose nodes get CPU in proportion to their slots (`sim up --cpu-per-slot
# F`: a CPU cgroup per node), 7 ranks run under `yadokari run --sim NAME --hosts ...` on:
#   before   n1:2, n2:2, n3:3  (the layout before the loss)
#   0:3      n1:2, n2:5        (policy node: the lost node's ranks all go to one survivor)
#   1:2      n1:3, n2:4        (policy balanced: rank by rank over the free slots)
#   2:1      n1:4, n2:3        (the mirror of 1:2)
# i.e. the placements the scheduler's policies produce after the loss (scheduler unit tests:
# node -> 0:3, balanced -> 1:2). This measures the placements themselves: the program has no MPI
# call during its compute phase, so it cannot be checkpointed there; the cost of the restart itself
# is measured by bench/npb_node_loss.sh. Placements run interleaved, REPS times. The metric is the
# program's own compute time ("nqueens: T s") and the job's wall time; every run must print the
# right solution count.
#
# usage: seed_replacement.sh [--mpi openmpi] [--n 16] [--reps 3] [--cpu-per-slot 0.25]
#                            [--out FILE] [--md FILE] [--name repl] [--yadokari PATH] [--timeout S]
#                            [--link RATE]   (every node's link rate-limited: `sim up --link "rate RATE"`)
#        seed_replacement.sh --report FILE.jsonl [--md OUT.md]   (only write the Markdown table)
# Needs root. Brings its own cluster up (private YADOKARI_SIM_DIR) and tears it down on every
# exit path. Exit: 0 all runs right, 1 otherwise, 2 usage.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

mpi=openmpi
n=16
reps=3
cpu=0.25
out=./seed-replacement.jsonl
md=""
name=repl
link=""
Y=${YADOKARI:-$repo/build/bin/yadokari}
timeout_s=600
report=""
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while (($#)); do
    case "$1" in
        --mpi) mpi=$2; shift 2 ;;
        --n) n=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --cpu-per-slot) cpu=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --md) md=$2; shift 2 ;;
        --name) name=$2; shift 2 ;;
        --link) link=$2; shift 2 ;;
        --yadokari) Y=$2; shift 2 ;;
        --timeout) timeout_s=$2; shift 2 ;;
        --report) report=$2; shift 2 ;;
        -h|--help) usage ;;
        *) echo "seed_replacement.sh: unknown argument $1" >&2; usage ;;
    esac
done

write_report() {  # JSONL -> Markdown table (stdout or --md)
    python3 - "$1" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
runs = [r for r in runs if r.get("record") == "run"]
order = ["before", "0:3", "1:2", "2:1"]
hosts = {}
print("| placement | hosts | compute s, median (range) | wall s, median | vs 0:3 | runs ok |")
print("|---|---|---|---|---|---|")
base = None
rows = []
for p in order:
    rs = [r for r in runs if r["placement"] == p]
    ok = [r for r in rs if r["ok"]]
    if not rs:
        continue
    comp = [r["compute_s"] for r in ok]
    wall = [r["wall_s"] for r in ok]
    med = statistics.median(comp) if comp else float("nan")
    if p == "0:3":
        base = med
    rows.append((p, rs[0]["hosts"], med, comp, statistics.median(wall) if wall else float("nan"), len(ok), len(rs)))
for p, h, med, comp, wall, good, total in rows:
    rel = f"{(med / base - 1) * 100:+.1f} %" if base and p != "0:3" else "–"
    rng = f"({min(comp):.2f}–{max(comp):.2f})" if comp else ""
    print(f"| {p} | {h} | {med:.2f} {rng} | {wall:.2f} | {rel} | {good}/{total} |")
if runs:
    r = runs[0]
    link = "" if r.get("link", "none") == "none" else f", links rate-limited to {r['link']}"
    print(f"\nnqueens --static {r['n']}, 7 ranks, {r['mpi']}, {r['cpu_per_slot']} CPU per slot{link}; seed 000: 0:3 212.85 s, 1:2 179.63 s (-15.6 %).")
PY
}

if [[ -n "$report" ]]; then
    [[ -f "$report" ]] || { echo "seed_replacement.sh: no such file $report" >&2; exit 2; }
    if [[ -n "$md" ]]; then write_report "$report" >"$md"; else write_report "$report"; fi
    exit 0
fi
[[ $(id -u) == 0 ]] || { echo "seed_replacement.sh: needs root (the simulated cluster)" >&2; exit 2; }
[[ -x "$Y" ]] || { echo "seed_replacement.sh: no yadokari at $Y (build it or give --yadokari)" >&2; exit 2; }
[[ "$mpi" == openmpi || "$mpi" == mpich ]] || { echo "seed_replacement.sh: --mpi must be openmpi or mpich" >&2; exit 2; }
app=$(dirname "$Y")/../examples/$mpi/nqueens
[[ -x "$app" ]] || { echo "seed_replacement.sh: no $app (build the examples)" >&2; exit 2; }
app=$(cd "$(dirname "$app")" && pwd)/nqueens

export YADOKARI_SIM_DIR=$(mktemp -d /tmp/yk-seed-repl.XXXXXX)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d /tmp/yk-seed-repl-work.XXXXXX)
cleanup() { "$Y" sim down --name "$name" >/dev/null 2>&1; rm -rf "$YADOKARI_SIM_DIR" "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
link_args=()
[[ -n "$link" ]] && link_args=(--link "rate $link")
"$Y" sim up --nodes 2 --slots 2 --cpu-per-slot "$cpu" "${link_args[@]}" --name "$name" >/dev/null || exit 1
"$Y" sim add --slots 3 --name "$name" >/dev/null || exit 1

# The count for N, from a run without any limit (N-queens solutions: 14 -> 365596, 15 -> 2279184...).
expected=$(timeout "$timeout_s" "$Y" run -n 7 --mpi "$mpi" -- "$app" --static "$n" 2>/dev/null | awk '/^final/ {print $2}')
[[ -n "$expected" ]] || { echo "seed_replacement.sh: the reference run failed" >&2; exit 1; }

h="yk$name"
declare -A layout=([before]="$h-n1:2,$h-n2:2,$h-n3:3" ["0:3"]="$h-n1:2,$h-n2:5" ["1:2"]="$h-n1:3,$h-n2:4" ["2:1"]="$h-n1:4,$h-n2:3")
failures=0
for rep in $(seq "$reps"); do
    for placement in before 0:3 1:2 2:1; do
        hosts=${layout[$placement]}
        start=$(date +%s.%N)
        timeout -k 5 "$timeout_s" "$Y" run --sim "$name" --hosts "$hosts" -n 7 --mpi "$mpi" -- "$app" --static --timing "$n" \
            >"$work/out" 2>"$work/err" </dev/null
        code=$?
        wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
        count=$(awk '/^final/ {print $2}' "$work/out")
        compute=$(awk '/^nqueens: [0-9.]+ s$/ {print $2}' "$work/err")  # --timing writes to stderr
        ok=false
        [[ $code == 0 && "$count" == "$expected" && -n "$compute" ]] && ok=true
        $ok || failures=$((failures + 1))
        printf '{"record": "run", "experiment": "seed-replacement", "placement": "%s", "hosts": "%s", "rep": %d, "mpi": "%s", "n": %d, "cpu_per_slot": %s, "link": "%s", "exit": %d, "ok": %s, "count": "%s", "compute_s": %s, "wall_s": %s}\n' \
            "$placement" "${hosts//$h-/}" "$rep" "$mpi" "$n" "$cpu" "${link:-none}" "$code" "$ok" "$count" "${compute:-null}" "$wall" >>"$out"
        echo "rep $rep $placement ($hosts): compute ${compute:-?} s, wall $wall s, $( $ok && echo ok || echo "FAILED (exit $code)")" >&2
    done
done
if [[ -n "$md" ]]; then write_report "$out" >"$md"; else write_report "$out"; fi
((failures == 0))
