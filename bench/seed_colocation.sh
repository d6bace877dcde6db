#!/usr/bin/env bash
# Seed experiment "intra-node transport after co-location" (issue 5): the seed paper (DMTCP on an
# Android cluster) found that once a restart has co-located ranks on one node, letting them talk
# through intra-node communication instead of TCP cut NPB run time (MG -42.2 %, CG -35.1 %).
# This script repeats the comparison on a simulated cluster (yadokari sim: 2 nodes x 2 slots,
# network namespaces + veth), with unmodified NPB binaries <npb-dir>/<mpi>/bin/<k>.<class>.4,
# launched natively inside the cluster (mpirun.openmpi / mpiexec.mpich, no yadokari shim):
#   a  4 ranks on ONE node, the library's default transports (Open MPI vader, MPICH/UCX sysv+cma)
#   b  4 ranks on ONE node, TCP forced (Open MPI --mca btl self,tcp; MPICH UCX_TLS=tcp,self)
#   c  2+2 ranks over two nodes (TCP between the nodes, shared memory within)
#   d  (--shim) 'yadokari run --sim NAME -n 4 --hosts <n1>:4 -- APP': variant a under the shim
# Variants run interleaved (a b c [d] a b c [d] ...) for every kernel and MPI. The metric is NPB's
# own "Time in seconds" (printed before MPI_Finalize); every run must print "Verification =
# SUCCESSFUL". MPICH with UCX_TLS=tcp may hang in MPI_Finalize after all output (docs/platform.md §1):
# a run whose report is complete is stopped GRACE seconds later and recorded with
# "finalize_hang": true; its NPB time is still valid.
#
# usage: seed_colocation.sh [--npb-dir DIR] [--mpi "openmpi mpich"] [--kernels "mg cg"] [--class A]
#                           [--reps 3] [--variants "a b c"] [--shim] [--out FILE] [--name coloc]
#                           [--link RATE]
#                           [--yadokari PATH] [--timeout S] [--grace S] [--max-minutes M]
#        seed_colocation.sh --report FILE.jsonl [--md OUT.md]   (only write the Markdown table)
#   --npb-dir   NPB build dir holding <mpi>/bin/<k>.<class>.4 (default $NPB_DIR)
#   --out       JSON-lines file, appended to (default ./seed-colocation.jsonl); one line per run,
#               plus one "record": "check" line per MPI and variant for placement/transport
#   --max-minutes  no new repetition starts after this many minutes
#   --link      rate-limit every node's link (`sim up --link "rate RATE"`, e.g. 15mbit: Wi-Fi-like;
#               a token bucket, no added delay); recorded as "link" in every record
# Needs root (the simulated cluster). Brings its own cluster up (private YADOKARI_SIM_DIR) and
# tears it down on every exit path. Exit: 0 all runs verified, 1 otherwise, 2 usage.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

npb_dir=${NPB_DIR:-}
mpis="openmpi mpich"
kernels="mg cg"
class=A
reps=3
variants="a b c"
out=./seed-colocation.jsonl
name=coloc
link=""
Y=${YADOKARI:-$repo/build/bin/yadokari}
timeout_s=300
grace=10
max_minutes=""
report=""
md=""
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while (($#)); do
    case "$1" in
        --npb-dir) npb_dir=$2; shift 2 ;;
        --mpi) mpis=$2; shift 2 ;;
        --kernels) kernels=$2; shift 2 ;;
        --class) class=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --variants) variants=$2; shift 2 ;;
        --shim) variants="$variants d"; shift ;;
        --out) out=$2; shift 2 ;;
        --name) name=$2; shift 2 ;;
        --link) link=$2; shift 2 ;;
        --yadokari) Y=$2; shift 2 ;;
        --timeout) timeout_s=$2; shift 2 ;;
        --grace) grace=$2; shift 2 ;;
        --max-minutes) max_minutes=$2; shift 2 ;;
        --report) report=$2; shift 2 ;;
        --md) md=$2; shift 2 ;;
        -h|--help) usage ;;
        *) echo "seed_colocation.sh: unknown option $1" >&2; usage ;;
    esac
done

# ---------------------------------------------------------------- Markdown table from the JSONL
write_report() {
    python3 - "$1" "${2:-}" <<'EOF'
import json, statistics, sys
src, dst = sys.argv[1], sys.argv[2]
runs = [json.loads(l) for l in open(src) if l.strip()]
runs = [r for r in runs if r.get("record") == "run"]
seed = {"mg": "−42.2 %", "cg": "−35.1 %"}
order_k = ["mg", "cg", "is", "ft", "lu"]
keys = sorted({(r["mpi"], r["kernel"], r.get("link", "none")) for r in runs},
              key=lambda k: (["openmpi", "mpich"].index(k[0]) if k[0] in ("openmpi", "mpich") else 9,
                             order_k.index(k[1]) if k[1] in order_k else 99, k[2]))
def cell(vals):
    if not vals:
        return "–", None
    m = statistics.median(vals)
    return f"{m:.2f} ({min(vals):.2f}–{max(vals):.2f}, n={len(vals)})", m
def pct(x, y):
    return "–" if x is None or y is None else f"{(x / y - 1) * 100:+.1f} %".replace("-", "−")
has_d = any(r["variant"] == "d" for r in runs)
hdr = ("| MPI | kernel | a: 1 node, shm [s] | b: 1 node, TCP [s] | c: 2+2 nodes [s] |"
       + (" d: a under yadokari [s] |" if has_d else "")
       + " a vs b | a vs c | seed (intra-node vs TCP) | failed runs |")
lines = [hdr, "|" + "---|" * (hdr.count("|") - 1)]
for mpi, k, link in keys:
    rs = [r for r in runs if r["mpi"] == mpi and r["kernel"] == k and r.get("link", "none") == link]
    ok = lambda v: [r["npb_seconds"] for r in rs if r["variant"] == v and r["status"] == "ok"]
    bad = [f'{r["variant"]}:{r["status"]}' for r in rs if r["status"] != "ok"]
    hangs = sum(1 for r in rs if r.get("finalize_hang"))
    ca, ma = cell(ok("a")); cb, mb = cell(ok("b")); cc, mc = cell(ok("c")); cd, _ = cell(ok("d"))
    label = f"{k.upper()} {rs[0]['class']}" + ("" if link == "none" else f", link {link}")
    row = f"| {mpi} | {label} | {ca} | {cb} | {cc} |" + (f" {cd} |" if has_d else "")
    row += f" {pct(ma, mb)} | {pct(ma, mc)} | {seed.get(k, '–')} | {', '.join(bad) or '0'}"
    row += f" |" if not hangs else f" ({hangs} finalize hang(s), time kept) |"
    lines.append(row)
text = "\n".join(lines) + "\n"
if dst:
    open(dst, "w").write(text)
print(text, end="")
EOF
}
if [[ -n "$report" ]]; then write_report "$report" "$md"; exit $?; fi

# ---------------------------------------------------------------- checks
[[ $(id -u) == 0 ]] || { echo "seed_colocation.sh: the simulated cluster needs root" >&2; exit 2; }
[[ -n "$npb_dir" ]] || { echo "seed_colocation.sh: --npb-dir or \$NPB_DIR needed" >&2; exit 2; }
[[ -x "$Y" ]] || { echo "seed_colocation.sh: no yadokari CLI at $Y" >&2; exit 2; }
[[ "$name" =~ ^[a-z0-9]{1,12}$ ]] || { echo "seed_colocation.sh: --name: 1-12 lowercase letters/digits" >&2; exit 2; }
for m in $mpis; do
    [[ $m == openmpi || $m == mpich ]] || { echo "seed_colocation.sh: --mpi: openmpi or mpich" >&2; exit 2; }
    for k in $kernels; do
        [[ -x "$npb_dir/$m/bin/$k.$class.4" ]] || { echo "seed_colocation.sh: missing $npb_dir/$m/bin/$k.$class.4" >&2; exit 2; }
    done
done
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")

export YADOKARI_SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/yk-coloc-sim.XXXXXX")
work=$(mktemp -d "${TMPDIR:-/tmp}/yk-coloc-work.XXXXXX")
cleanup() {
    "$Y" sim down --name "$name" >/dev/null 2>&1 || echo "seed_colocation.sh: sim down failed" >&2
    rm -rf "$YADOKARI_SIM_DIR" "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
link_args=()
[[ -n "$link" ]] && link_args=(--link "rate $link")
"$Y" sim up --nodes 2 --slots 2 "${link_args[@]}" --name "$name" >/dev/null || { echo "seed_colocation.sh: sim up failed" >&2; exit 1; }
n1=yk$name-n1
git=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
start=$SECONDS
failures=0

# cmd MPI VARIANT: the launch command (array "cmd") and environment (array "envs") of one variant
cmd_for() {
    local m=$1 v=$2
    eval "$("$Y" sim env --mpi "$m" --name "$name" --job-dir "$work")"
    envs=()
    if [[ $v == d ]]; then
        cmd=("$Y" run --sim "$name" --mpi "$m" -n 4 --hosts "$n1:4" --)
        return
    fi
    if [[ $m == openmpi ]]; then
        case $v in
            a) cmd=($sim_launch mpirun.openmpi $sim_launcher_args -n 4 --host "$n1:4") ;;
            b) cmd=($sim_launch mpirun.openmpi $sim_launcher_args -n 4 --host "$n1:4" --mca btl self,tcp) ;;
            c) cmd=($sim_launch mpirun.openmpi $sim_launcher_args -n 4 --map-by slot) ;;
        esac
    else
        # Hydra refuses -hosts together with -f: drop the hostfile for the one-node variants.
        local one_node
        one_node=$(sed 's/ -f [^ ]*//' <<<"$sim_launcher_args")
        case $v in
            a) cmd=($sim_launch mpiexec.mpich $one_node -hosts "$n1:4" -n 4) ;;
            b) cmd=($sim_launch mpiexec.mpich $one_node -hosts "$n1:4" -n 4); envs=(UCX_TLS=tcp,self) ;;
            c) cmd=($sim_launch mpiexec.mpich $sim_launcher_args -n 4) ;;
        esac
    fi
}
describe() {
    case $1 in
        a) echo "1 node x 4 ranks, default transports" ;;
        b) echo "1 node x 4 ranks, TCP forced" ;;
        c) echo "2 nodes x 2 ranks" ;;
        d) echo "1 node x 4 ranks under yadokari run" ;;
    esac
}
json_str() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }

# One placement + transport check per MPI and variant (not for d): hostnames of the ranks, and the
# library's transport log of a short NPB class S run.
check() {
    local m=$1 v=$2 hosts log transport
    cmd_for "$m" "$v"
    hosts=$(cd "$work" && env "${envs[@]}" timeout --kill-after=5 60 "${cmd[@]}" hostname </dev/null 2>/dev/null |
            sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd+)
    log=$work/check.log
    if [[ $m == openmpi ]]; then
        (cd "$work" && env "${envs[@]}" timeout --kill-after=5 120 "${cmd[@]}" --mca btl_base_verbose 100 \
            "$npb_dir/$m/bin/cg.S.4" >"$log" 2>&1 </dev/null)
        transport=$(grep -Eo 'Using [a-z]+ btl for send to .* on node [a-z0-9-]+' "$log" |
                    sed -E 's/Using ([a-z]+) btl for send to .* on node/\1 to/' | sort | uniq -c |
                    awk '{print $2 " " $3 " " $4 " x" $1}' | paste -sd';')
    else
        (cd "$work" && env "${envs[@]}" UCX_LOG_LEVEL=info timeout --kill-after=5 60 "${cmd[@]}" \
            "$npb_dir/$m/bin/cg.S.4" >"$log" 2>&1 </dev/null)
        transport=$(grep -Eo 'ep_cfg\[[0-9]+\]: tag\([^)]*\)' "$log" | sed 's/.*: //' | sort | uniq -c |
                    awk '{$1 = $1 "x"; print}' | paste -sd';')
    fi
    rm -f "$log"
    echo "check $m $v: placement $hosts; transport $transport" >&2
    printf '{"record": "check", "experiment": "seed-colocation", "link": "%s", "mpi": "%s", "variant": "%s", "placement": %s, "transport": %s, "timestamp": "%s", "git": "%s"}\n' \
        "${link:-none}" "$m" "$v" "$(json_str "$hosts")" "$(json_str "$transport")" "$(date -u +%FT%TZ)" "$git" >>"$out"
}

# run MPI KERNEL VARIANT REP: one NPB run, one JSON line
run_one() {
    local m=$1 k=$2 v=$3 rep=$4 bin o e pid t0 t1 seen=0 code hang=false status secs verif load
    bin=$npb_dir/$m/bin/$k.$class.4
    cmd_for "$m" "$v"
    o=$work/run.out e=$work/run.err
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(date +%s.%N)
    (cd "$work" && exec env "${envs[@]}" timeout --kill-after=5 "$timeout_s" "${cmd[@]}" "$bin" >"$o" 2>"$e" </dev/null) &
    pid=$!
    # NPB's report ends with "npb@nas.nasa.gov"; a launcher still alive GRACE s later hangs in finalize.
    while kill -0 "$pid" 2>/dev/null; do
        if ((seen == 0)) && grep -q 'npb@nas.nasa.gov' "$o" 2>/dev/null; then seen=$SECONDS; t1=$(date +%s.%N); fi
        if ((seen > 0 && SECONDS - seen >= grace)); then
            hang=true
            kill -TERM "$pid" 2>/dev/null   # the watchdog (timeout) passes it on to the launcher
            break
        fi
        sleep 0.5
    done
    wait "$pid"
    code=$?
    [[ $hang == true ]] || t1=$(date +%s.%N)
    secs=$(awk -F= '/Time in seconds/ {gsub(/ /, "", $2); print $2}' "$o" | head -1)
    verif=$(awk -F= '/Verification *=/ {gsub(/ /, "", $2); print $2}' "$o" | head -1)
    if [[ $verif == SUCCESSFUL && -n $secs && ($code == 0 || $hang == true) ]]; then
        status=ok
    elif ((code == 124 || code == 137)); then
        status=TIMEOUT
    else
        status=FAILED
    fi
    if [[ $status != ok ]]; then
        failures=$((failures + 1))
        echo "--- $m $k $v rep $rep: $status (exit $code)" >&2
        tail -5 "$e" >&2
    fi
    printf '{"record": "run", "experiment": "seed-colocation", "link": "%s", "kernel": "%s", "class": "%s", "mpi": "%s", "variant": "%s", "variant_desc": "%s", "rep": %d, "ranks": 4, "status": "%s", "exit_code": %d, "finalize_hang": %s, "npb_seconds": %s, "verification": "%s", "wall_seconds": %.3f, "load_before": %s, "timestamp": "%s", "git": "%s", "binary": "%s"}\n' \
        "${link:-none}" "$k" "$class" "$m" "$v" "$(describe "$v")" "$rep" "$status" "$code" "$hang" "${secs:-null}" "${verif:-}" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$load" "$(date -u +%FT%TZ)" "$git" "$bin" >>"$out"
    echo "$m $k $v rep $rep: $status npb ${secs:-?} s (exit $code, finalize hang: $hang)" >&2
    rm -f "$o" "$e"
}

for m in $mpis; do
    for v in $variants; do [[ $v == d ]] || check "$m" "$v"; done
    for k in $kernels; do
        for ((rep = 0; rep < reps; rep++)); do
            if [[ -n $max_minutes ]] && (((SECONDS - start) / 60 >= max_minutes)); then
                echo "seed_colocation.sh: --max-minutes $max_minutes reached, stopping" >&2
                break 3
            fi
            for v in $variants; do run_one "$m" "$k" "$v" "$rep"; done
        done
    done
done
((failures == 0))
