#!/usr/bin/env bash
# Seed experiment "consolidation vs spreading" (issue 5; seed 000 §5.7): 8 ranks either all on ONE
# node of 4 cores (2 ranks per core) or spread over TWO such nodes (1 rank per core), over a slow
# link. The seed measured the time ratio 2 nodes / 1 node: IS 738x, FT 221x, LU 21.8x, CG 21.0x,
# MG 13.7x, but EP 0.76 and N-queen 0.69 - communication-bound programs must be consolidated even
# at the price of oversubscription, compute-bound ones spread. This is the trade-off the scheduler's
# `auto` policy weighs (scheduler/README.md).
# Here: a simulated cluster of 2 nodes x SLOTS slots whose nodes get CPU per slot (`sim up
# --cpu-per-slot F`, so spreading really adds CPU) and whose links are rate-limited (`sim up --link
# "rate R"`, a token bucket: this kernel has no netem, so no added delay). For every link rate the
# cluster is brought up anew, its node-to-node throughput measured once, and every program runs
# natively (no shim: this compares placements) in both variants, interleaved:
#   one     RANKS ranks on n1 (oversubscribed: RANKS > SLOTS)
#   spread  RANKS/2 ranks on n1 and on n2
# Programs: NPB kernels <npb-dir>/<mpi>/bin/<k>.<class>.4 (NPB 3.4 takes the rank count at run time;
# BT/SP need square counts and are left out, like in the seed) and examples/nqueens (the seed's
# N-queen: a master-worker, its own compute time). Open MPI gets --mca mpi_yield_when_idle 1 in both
# variants: told RANKS slots it would otherwise busy-poll, and oversubscribed ranks would steal the
# CPU from the peers they wait for. Every NPB run must print "Verification = SUCCESSFUL", every
# nqueens run the right count. A run that printed its report and then hangs in MPI_Finalize (MPICH
# over TCP, docs/platform.md §1) is stopped GRACE s later; its time is kept ("finalize_hang": true).
#
# usage: seed_consolidation.sh [--npb-dir DIR] [--mpi "openmpi"] [--kernels "is ft lu cg mg ep"]
#                              [--class W] [--nqueens 16] [--links "1gbit 15mbit"] [--ranks 8]
#                              [--slots 4] [--cpu-per-slot 0.25] [--reps 2] [--out FILE] [--md FILE]
#                              [--name cons] [--yadokari PATH] [--timeout S] [--grace S]
#        seed_consolidation.sh --report FILE.jsonl [--md OUT.md]   (only write the Markdown table)
#   --nqueens 0 leaves N-queen out; --kernels "" leaves NPB out (then --npb-dir is not needed)
# Needs root. Brings its own cluster up (private YADOKARI_SIM_DIR) and tears it down on every exit
# path. Exit: 0 all runs right, 1 otherwise, 2 usage.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

npb_dir=${NPB_DIR:-}
mpis=openmpi
kernels="is ft lu cg mg ep"
class=W
nq=16
links="1gbit 15mbit"
ranks=8
slots=4
cpu=0.25
reps=2
out=./seed-consolidation.jsonl
md=""
name=cons
Y=${YADOKARI:-$repo/build/bin/yadokari}
timeout_s=900
grace=10
report=""
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while (($#)); do
    (($# >= 2)) || [[ $1 == -h || $1 == --help ]] || { echo "seed_consolidation.sh: option $1 needs a value" >&2; exit 2; }
    case "$1" in
        --npb-dir) npb_dir=$2; shift 2 ;;
        --mpi) mpis=$2; shift 2 ;;
        --kernels) kernels=$2; shift 2 ;;
        --class) class=$2; shift 2 ;;
        --nqueens) nq=$2; shift 2 ;;
        --links) links=$2; shift 2 ;;
        --ranks) ranks=$2; shift 2 ;;
        --slots) slots=$2; shift 2 ;;
        --cpu-per-slot) cpu=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --md) md=$2; shift 2 ;;
        --name) name=$2; shift 2 ;;
        --yadokari) Y=$2; shift 2 ;;
        --timeout) timeout_s=$2; shift 2 ;;
        --grace) grace=$2; shift 2 ;;
        --report) report=$2; shift 2 ;;
        -h|--help) usage ;;
        *) echo "seed_consolidation.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

# ---------------------------------------------------------------- Markdown table from the JSONL
write_report() {  # JSONL -> Markdown (stdout)
    python3 - "$1" <<'PY'
import json, statistics, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
runs = [r for r in recs if r.get("record") == "run"]
links = {r["link"]: r for r in recs if r.get("record") == "link"}
seed = {"is": "738", "ft": "221", "lu": "21.8", "cg": "21.0", "mg": "13.7", "ep": "0.76", "nqueens": "0.69"}
order = ["is", "ft", "lu", "cg", "mg", "ep", "nqueens"]
def med(vals):
    return statistics.median(vals) if vals else None
def cell(vals):
    return f"{med(vals):.3g} ({min(vals):.3g}–{max(vals):.3g})" if vals else "–"
print("| MPI | link (measured) | program | 1 node [s] | 2 nodes [s] | ratio 2/1 | seed 000 ratio | failed |")
print("|---|---|---|---|---|---|---|---|")
keys = sorted({(r["mpi"], r["link"], r["program"]) for r in runs},
              key=lambda k: (k[0], -float(links.get(k[1], {}).get("bytes_per_second", 0)),
                             order.index(k[2]) if k[2] in order else 99))
for mpi, link, prog in keys:
    rs = [r for r in runs if (r["mpi"], r["link"], r["program"]) == (mpi, link, prog)]
    one = [r["seconds"] for r in rs if r["variant"] == "one" and r["status"] == "ok"]
    spread = [r["seconds"] for r in rs if r["variant"] == "spread" and r["status"] == "ok"]
    ratio = f"{med(spread) / med(one):.2f}" if one and spread else "–"
    bad = [f'{r["variant"]}:{r["status"]}' for r in rs if r["status"] != "ok"]
    hangs = sum(1 for r in rs if r.get("finalize_hang"))
    measured = links.get(link, {}).get("measured_mbit")
    lk = f"{link} ({measured:.0f} Mbit/s)" if measured and measured >= 100 else (f"{link} ({measured:.3g} Mbit/s)" if measured else link)
    label = prog.upper() + " " + rs[0]["class"] if prog != "nqueens" else f"N-queen {rs[0]['class']}"
    print(f"| {mpi} | {lk} | {label} | {cell(one)} | {cell(spread)} | {ratio} | {seed.get(prog, '–')} |"
          f" {', '.join(bad) or '0'}{f' ({hangs} finalize hangs, time kept)' if hangs else ''} |")
if runs:
    r = runs[0]
    print(f"\n{r['ranks']} ranks; 1 node = {r['ranks']} ranks on one node of {r['slots']} slots, 2 nodes = "
          f"{r['ranks'] // 2} + {r['ranks'] // 2}; {r['cpu_per_slot']} CPU per slot; times: NPB's own, N-queen's "
          "compute time; median (range). Seed 000: 8 ranks, 4-core PCs, ratio of the 2-node to the 1-node time.")
PY
}
if [[ -n "$report" ]]; then
    [[ -f "$report" ]] || { echo "seed_consolidation.sh: no such file $report" >&2; exit 2; }
    if [[ -n "$md" ]]; then write_report "$report" >"$md"; else write_report "$report"; fi
    exit 0
fi

# ---------------------------------------------------------------- checks
bad() { echo "seed_consolidation.sh: $*" >&2; exit 2; }
[[ $ranks =~ ^[0-9]+$ && $ranks -ge 2 && $((ranks % 2)) == 0 ]] || bad "--ranks must be an even number >= 2"
[[ $slots =~ ^[0-9]+$ && $slots -ge 1 ]] || bad "--slots must be a positive number"
[[ $reps =~ ^[0-9]+$ && $reps -ge 1 ]] || bad "--reps must be a positive number"
[[ $nq =~ ^[0-9]+$ && ($nq == 0 || ($nq -ge 4 && $nq -le 20)) ]] || bad "--nqueens must be 0 (none) or 4..20"
[[ -n "$links" ]] || bad "--links needs at least one rate"
[[ -n "$kernels" || $nq != 0 ]] || bad "nothing to run (--kernels \"\" and --nqueens 0)"
[[ "$name" =~ ^[a-z0-9]{1,12}$ ]] || bad "--name: 1-12 lowercase letters/digits"
[[ $(id -u) == 0 ]] || bad "the simulated cluster needs root"
[[ -x "$Y" ]] || bad "no yadokari CLI at $Y (build it or give --yadokari)"
for m in $mpis; do
    [[ $m == openmpi || $m == mpich ]] || bad "--mpi: openmpi or mpich, not $m"
    if [[ -n "$kernels" ]]; then
        [[ -n "$npb_dir" ]] || bad "--npb-dir or \$NPB_DIR needed for --kernels"
        for k in $kernels; do
            [[ -x "$npb_dir/$m/bin/$k.$class.4" ]] || bad "missing $npb_dir/$m/bin/$k.$class.4"
        done
    fi
    if [[ $nq != 0 ]]; then
        [[ -x "$(dirname "$Y")/../examples/$m/nqueens" ]] || bad "no $(dirname "$Y")/../examples/$m/nqueens (build the examples)"
    fi
done
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")

export YADOKARI_SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/yk-cons-sim.XXXXXX")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d "${TMPDIR:-/tmp}/yk-cons-work.XXXXXX")
cleanup() {
    "$Y" sim down --name "$name" >/dev/null 2>&1
    rm -rf "$YADOKARI_SIM_DIR" "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
git=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
n1=yk$name-n1 n2=yk$name-n2
half=$((ranks / 2))
failures=0

# Node-to-node throughput n2 -> n1 over the shaped link (8 MB through a TCP socket), in Mbit/s.
measure_link() {
    cat >"$work/tput.py" <<'PY'
import socket, sys, time
if sys.argv[1] == "serve":
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 5999)); s.listen(1)
    c, _ = s.accept()
    while c.recv(1 << 20):
        pass
    c.sendall(b"x"); c.close()
else:
    c = socket.create_connection((sys.argv[2], 5999)); chunk = b"\0" * 65536; sent = 0; t = time.time()
    while sent < 8_000_000:
        c.sendall(chunk); sent += len(chunk)
    c.shutdown(socket.SHUT_WR); c.recv(1)
    print(f"{sent * 8 / (time.time() - t) / 1e6:.1f}")
PY
    timeout 60 "$Y" sim exec n1 --name "$name" -- python3 "$work/tput.py" serve &
    local server=$!
    sleep 1
    timeout 60 "$Y" sim exec n2 --name "$name" -- python3 "$work/tput.py" send 10.213.0.1
    wait "$server"
}

# launch MPI VARIANT: the native launch command inside the cluster (array "cmd")
launch_for() {
    local m=$1 v=$2 hosts
    eval "$("$Y" sim env --mpi "$m" --name "$name" --job-dir "$work")"
    if [[ $m == openmpi ]]; then
        hosts="$n1:$ranks"
        [[ $v == spread ]] && hosts="$n1:$half,$n2:$half"
        cmd=($sim_launch mpirun.openmpi $sim_launcher_args -n "$ranks" --host "$hosts" --mca mpi_yield_when_idle 1)
    else
        hosts="$n1:$ranks"
        [[ $v == spread ]] && hosts="$n1:$half,$n2:$half"
        # Hydra refuses -hosts together with -f.
        cmd=($sim_launch mpiexec.mpich $(sed 's/ -f [^ ]*//' <<<"$sim_launcher_args") -hosts "$hosts" -n "$ranks")
    fi
}

# run_one MPI LINK PROGRAM VARIANT REP: one run, one JSON line
run_one() {
    local m=$1 link=$2 prog=$3 v=$4 rep=$5 o=$work/run.out e=$work/run.err pid t0 seen=0 code hang=false
    local status secs check end_marker args=()
    launch_for "$m" "$v"
    if [[ $prog == nqueens ]]; then
        args=("$(cd "$(dirname "$Y")/../examples/$m" && pwd)/nqueens" --timing "$nq")
        end_marker='^final '
    else
        args=("$npb_dir/$m/bin/$prog.$class.4")
        end_marker='npb@nas.nasa.gov'
    fi
    local load
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(date +%s.%N)
    (cd "$work" && exec timeout --kill-after=5 "$timeout_s" "${cmd[@]}" "${args[@]}" >"$o" 2>"$e" </dev/null) &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        if ((seen == 0)) && grep -q "$end_marker" "$o" 2>/dev/null; then seen=$SECONDS; fi
        if ((seen > 0 && SECONDS - seen >= grace)); then
            hang=true
            kill -TERM "$pid" 2>/dev/null
            break
        fi
        sleep 0.5
    done
    wait "$pid"
    code=$?
    if [[ $prog == nqueens ]]; then
        secs=$(awk '/^nqueens: [0-9.]+ s$/ {print $2}' "$e" | head -1)
        check=$(awk '/^final/ {print $2}' "$o")
        [[ $check == "$expected_count" ]] || check="count ${check:-missing}, expected $expected_count"
        [[ $check == "$expected_count" ]] && check=SUCCESSFUL
    else
        secs=$(awk -F= '/Time in seconds/ {gsub(/ /, "", $2); print $2}' "$o" | head -1)
        check=$(awk -F= '/Verification *=/ {gsub(/ /, "", $2); print $2}' "$o" | head -1)
    fi
    if [[ $check == SUCCESSFUL && -n $secs && ($code == 0 || $hang == true) ]]; then
        status=ok
    elif ((code == 124 || code == 137)); then
        status=TIMEOUT
    else
        status=FAILED
    fi
    if [[ $status != ok ]]; then
        failures=$((failures + 1))
        echo "--- $m $link $prog $v rep $rep: $status (exit $code, check ${check:-none})" >&2
        tail -5 "$e" >&2
    fi
    printf '{"record": "run", "experiment": "seed-consolidation", "program": "%s", "class": "%s", "mpi": "%s", "link": "%s", "variant": "%s", "rep": %d, "ranks": %d, "slots": %d, "cpu_per_slot": %s, "status": "%s", "exit_code": %d, "finalize_hang": %s, "seconds": %s, "wall_seconds": %.3f, "load_before": %s, "timestamp": "%s", "git": "%s"}\n' \
        "$prog" "$([[ $prog == nqueens ]] && echo "N=$nq" || echo "$class")" "$m" "$link" "$v" "$rep" "$ranks" "$slots" "$cpu" \
        "$status" "$code" "$hang" "${secs:-null}" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')" \
        "$load" "$(date -u +%FT%TZ)" "$git" >>"$out"
    echo "$m $link $prog $v rep $rep: $status ${secs:-?} s (exit $code, finalize hang: $hang)" >&2
    rm -f "$o" "$e"
}

programs=$kernels
[[ $nq != 0 ]] && programs="$programs nqueens"
for link in $links; do
    "$Y" sim down --name "$name" >/dev/null 2>&1
    "$Y" sim up --nodes 2 --slots "$slots" --cpu-per-slot "$cpu" --link "rate $link" --name "$name" >/dev/null ||
        { echo "seed_consolidation.sh: sim up with --link 'rate $link' failed" >&2; exit 1; }
    measured=$(measure_link)
    bytes=$(python3 -c "
import re,sys
m = re.fullmatch(r'([0-9.]+)([a-z]*)', sys.argv[1].lower())
u = {'': 1, 'bit': 1/8, 'kbit': 125, 'mbit': 125e3, 'gbit': 125e6, 'bps': 1, 'kbps': 1e3, 'mbps': 1e6, 'gbps': 1e9}
print(int(float(m[1]) * u[m[2]]))" "$link")
    echo "link rate $link: measured ${measured:-?} Mbit/s n2 -> n1" >&2
    printf '{"record": "link", "experiment": "seed-consolidation", "link": "%s", "bytes_per_second": %s, "measured_mbit": %s, "timestamp": "%s"}\n' \
        "$link" "$bytes" "${measured:-null}" "$(date -u +%FT%TZ)" >>"$out"
    for m in $mpis; do
        if [[ $nq != 0 ]]; then
            # The solution count, from an unlimited local run (14 -> 365596, 15 -> 2279184, ...).
            expected_count=$(timeout "$timeout_s" "$Y" run -n 2 --mpi "$m" -- "$(dirname "$Y")/../examples/$m/nqueens" "$nq" 2>/dev/null | awk '/^final/ {print $2}')
        fi
        for ((rep = 0; rep < reps; rep++)); do
            for prog in $programs; do
                if ((rep % 2 == 0)); then variants="one spread"; else variants="spread one"; fi
                for v in $variants; do run_one "$m" "$link" "$prog" "$v" "$rep"; done
            done
        done
    done
done
if [[ -n "$md" ]]; then write_report "$out" >"$md"; else write_report "$out"; fi
((failures == 0))
