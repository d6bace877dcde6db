#!/usr/bin/env bash
# Node-loss drill with unmodified NAS Parallel Benchmarks (issue 4): a kernel runs under
# 'yadokari run --sim' on a private simulated cluster with periodic checkpoints; once the first
# epoch is committed one node is killed ('yadokari sim kill'), and the job must restart itself
# from that epoch on the surviving nodes and still print "Verification = SUCCESSFUL".
# One JSON line per (mpi, kernel, scenario).
#
#   npb_node_loss.sh --npb-dir DIR [--mpi openmpi|mpich|both] [--kernels "cg ep is mg ft"] [--class A]
#                    [--scenarios "2+2->1 1+1+2->2"] [--interval S] [--no-native] [--timeout S]
#                    [--native-timeout S] [--max-minutes M] [--out FILE] [--keep-logs DIR]
#                    [--yadokari PATH] [--dry-run]
#
#   --npb-dir     directory with <dir>/<mpi>/bin/<k>.<class>.4 (build_npb.sh's --out), or its parent
#                 (<dir>/npb-build/<mpi>/bin/...) (default: $NPB_DIR). NPB itself is never part of the repo.
#   --mpi         flavours (default both)
#   --kernels     default "cg ep is mg ft" (any of bt cg ep ft is lu mg sp); --class default A; 4 ranks
#   --scenarios   "2+2->1":   2 nodes x 2 slots, default placement (2 ranks per node), kill n2, the job
#                             continues with all 4 ranks on n1;
#                 "1+1+2->2": 3 nodes x 2 slots, --hosts ykX-n1:1,ykX-n2:1,ykX-n3:2, kill n3, the job
#                             continues on n1 and n2.
#                 (default both)
#   --interval    checkpoint interval in seconds; default: a third of the native wall time of the same
#                 kernel on the same layout (measured first on the same cluster, see --no-native), min 1 s
#   --no-native   skip the native same-layout baseline (then --interval is required)
#   --timeout     watchdog of every yadokari run, seconds (default 300): a run past it is killed, status TIMEOUT
#   --native-timeout  watchdog of the native baseline (default 150)
#   --max-minutes no new run starts after this many minutes (default: no limit)
#   --out         JSON-lines file the records are appended to (default ./npb-node-loss.jsonl)
#   --keep-logs   keep every run's logs (yadokari run and native output) under DIR
#   --yadokari    the CLI (default <repo>/build/bin/yadokari, or $YADOKARI)
#   --dry-run     print the planned runs and exit
#
# Per run: 'sim up' of a private cluster (YADOKARI_SIM_DIR is a private temp dir), optional native
# baseline (mpirun/mpiexec with 'yadokari sim env' settings, same placement), then
#   yadokari run --sim NAME -n 4 --mpi M [--hosts ...] --ckpt-dir TMP --interval I [--mpi-args "--mca btl_base_verbose 100"] -- APP
# (Open MPI: btl verbosity; MPICH: UCX_LOG_LEVEL=info) with stdout+stderr in one log; wait for TMP/*/MANIFEST,
# 'sim kill' the node, time the "node nX lost" line, wait for the job to end by itself, parse the
# restart timeline line and the NPB verification, check the transports logged after the "restarting
# from epoch" line, 'sim down' and check that no holder process, namespace, interface, state
# directory or NPB process is left.
#
# A run (native or yadokari) that printed NPB's verification line but has not ended 10 s (native) / 30 s
# (yadokari) later is stopped and recorded as HUNG_AFTER_OUTPUT (MPICH over TCP may hang in MPI_Finalize,
# see docs/platform.md §1); its verification is still parsed. A job that ends before its first epoch is run
# (or hangs after its output) once more with a quarter of its own wall time (up to the verification
# line) as the interval (min 1 s).
#
# Record fields: mpi kernel class np scenario killed_node hosts interval_s native_{wall_s,exit_code,status,
# verification} status (ok | FAILED | TIMEOUT | HUNG_AFTER_OUTPUT | NO_EPOCH | NOT_DETECTED) exit_code
# verification npb_seconds attempt no_epoch_attempt_walls_s
# first_epoch_s (start -> MANIFEST) kill_at_s detect_s (kill -> "lost" line, measured by polling every 20 ms)
# restarts lost_line restart_plan_line restart_line timeline{detect stop plan stage launch MPI_Init restore}
# restart_epoch policy ranks_moved wall_s (whole job) output_complete_s (start -> NPB's last line) shm_after_restart tcp_after_restart
# traffic_to_killed_node leftovers tail (last lines of the log when status != ok).
#
# Exit status: 0 if every run verified after exactly one restart, 1 otherwise, 2 on a usage error.
set -uo pipefail

prog=npb_node_loss.sh
usage_err() { echo "$prog: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

npb_dir=${NPB_DIR:-}
mpi=both
kernels="cg ep is mg ft"
class=A
np=4
scenarios="2+2->1 1+1+2->2"
interval=""
native=1
timeout_s=300
native_timeout=150
max_minutes=""
out=./npb-node-loss.jsonl
keep_logs=""
yadokari=${YADOKARI:-$repo/build/bin/yadokari}
dry_run=0

need() { [[ $2 -ge 2 ]] || usage_err "option $1 needs a value"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --npb-dir)        need "$1" $#; npb_dir=$2; shift 2 ;;
    --mpi)            need "$1" $#; mpi=$2; shift 2 ;;
    --kernels)        need "$1" $#; kernels=$2; shift 2 ;;
    --class)          need "$1" $#; class=$2; shift 2 ;;
    --scenarios)      need "$1" $#; scenarios=$2; shift 2 ;;
    --interval)       need "$1" $#; interval=$2; shift 2 ;;
    --no-native)      native=0; shift ;;
    --timeout)        need "$1" $#; timeout_s=$2; shift 2 ;;
    --native-timeout) need "$1" $#; native_timeout=$2; shift 2 ;;
    --max-minutes)    need "$1" $#; max_minutes=$2; shift 2 ;;
    --out)            need "$1" $#; out=$2; shift 2 ;;
    --keep-logs)      need "$1" $#; keep_logs=$2; shift 2 ;;
    --yadokari)       need "$1" $#; yadokari=$2; shift 2 ;;
    --dry-run)        dry_run=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) usage_err "unknown option $1" ;;
  esac
done

# ---- validate ------------------------------------------------------------------------------------
[[ $(id -u) == 0 ]] || usage_err "the simulated cluster needs root"
[[ -n "$npb_dir" ]] || usage_err "--npb-dir is required (or set NPB_DIR)"
[[ -d "$npb_dir" ]] || usage_err "--npb-dir '$npb_dir' is not a directory"
npb_dir=$(cd "$npb_dir" && pwd)
[[ -d "$npb_dir/npb-build" ]] && npb_dir=$npb_dir/npb-build
case "$mpi" in
  openmpi|mpich) flavours=("$mpi") ;;
  both) flavours=(openmpi mpich) ;;
  *) usage_err "--mpi must be openmpi, mpich or both, not '$mpi'" ;;
esac
[[ "$timeout_s" =~ ^[1-9][0-9]*$ ]] || usage_err "--timeout must be a positive integer"
[[ "$native_timeout" =~ ^[1-9][0-9]*$ ]] || usage_err "--native-timeout must be a positive integer"
[[ -z "$interval" || "$interval" =~ ^[0-9]+([.][0-9]+)?$ ]] || usage_err "--interval must be a number of seconds"
[[ $native == 1 || -n "$interval" ]] || usage_err "--no-native needs --interval"
[[ -z "$max_minutes" || "$max_minutes" =~ ^[0-9]+([.][0-9]+)?$ ]] || usage_err "--max-minutes must be a number"
[[ -x "$yadokari" ]] || usage_err "no yadokari CLI at $yadokari"
read -r -a kernel_list <<<"$kernels"
read -r -a scenario_list <<<"$scenarios"
for k in "${kernel_list[@]}"; do
  [[ "$k" =~ ^(bt|cg|ep|ft|is|lu|mg|sp)$ ]] || usage_err "unknown kernel '$k'"
done
for s in "${scenario_list[@]}"; do
  [[ "$s" == "2+2->1" || "$s" == "1+1+2->2" ]] || usage_err "unknown scenario '$s'"
done

plan=()
for k in "${kernel_list[@]}"; do
  for fl in "${flavours[@]}"; do
    bin=$npb_dir/$fl/bin/$k.$class.$np
    [[ -x "$bin" ]] || usage_err "missing NPB binary $bin"
    for s in "${scenario_list[@]}"; do plan+=("$fl $k $s"); done
  done
done
if ((dry_run)); then
  printf '%s\n' "${plan[@]}"
  exit 0
fi

mkdir -p "$(dirname "$out")"
[[ -z "$keep_logs" ]] || mkdir -p "$keep_logs"
git_rev=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
export YADOKARI_SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/yk-nl-sim.XXXXXX")
export YADOKARI_STATE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/yk-nl-state.XXXXXX")
ROOT_LINKS_BEFORE=$(ip -o link show | awk -F': ' '{print $2}' | sort)
ROOT_NETNS_BEFORE=$(ip netns list 2>/dev/null | sort)
current_name=""
job_pid=""
on_exit() {
  [[ -n "$job_pid" ]] && kill -- "$job_pid" 2>/dev/null
  [[ -n "$current_name" ]] && "$yadokari" sim down --name "$current_name" >/dev/null 2>&1
  rm -rf "$YADOKARI_SIM_DIR" "$YADOKARI_STATE_DIR"
}
trap on_exit EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# leftovers NAME BIN: what the cluster NAME left behind after 'sim down' (one word per kind; empty = clean)
leftovers() {
  local name=$1 bin=$2 left=()
  pgrep -f "^yadokari-sim:$YADOKARI_SIM_DIR/$name:" >/dev/null && left+=("holders:$(pgrep -f "^yadokari-sim:$YADOKARI_SIM_DIR/$name:" | paste -sd/)")
  [[ -e "$YADOKARI_SIM_DIR/$name" ]] && left+=("state-dir")
  [[ "$(ip -o link show | awk -F': ' '{print $2}' | sort)" == "$ROOT_LINKS_BEFORE" ]] || left+=("root-links")
  [[ "$(ip netns list 2>/dev/null | sort)" == "$ROOT_NETNS_BEFORE" ]] || left+=("named-netns")
  pgrep -f "^$bin" >/dev/null && left+=("npb-procs:$(pgrep -f "^$bin" | paste -sd/)")
  pgrep -f "yadokari run --sim $name " >/dev/null && left+=("yadokari-run")
  echo "${left[*]}"
}

source "$here/lib/finalize_grace.sh"  # wait_with_grace

start_epoch=$(date +%s)
seq_no=0
failures=0
echo "$prog: ${#plan[@]} runs planned -> $out (timeout ${timeout_s}s per run${max_minutes:+, no new run after $max_minutes min})" >&2
for item in "${plan[@]}"; do
  read -r fl k scen <<<"$item"
  if [[ -n "$max_minutes" ]] && awk -v s="$start_epoch" -v n="$(date +%s)" -v m="$max_minutes" 'BEGIN { exit !(n - s > m * 60) }'; then
    echo "$prog: --max-minutes $max_minutes reached, skipping $fl $k $scen" >&2
    continue
  fi
  seq_no=$((seq_no + 1))
  bin=$npb_dir/$fl/bin/$k.$class.$np
  name="nl$((RANDOM % 1000))r$seq_no"; name=${name:0:12}
  work=$(mktemp -d "${TMPDIR:-/tmp}/yk-nl-work.XXXXXX")
  if [[ "$scen" == "2+2->1" ]]; then
    nodes=2; victim=n2; hosts=""
  else
    nodes=3; victim=n3; hosts="yk$name-n1:1,yk$name-n2:1,yk$name-n3:2"
  fi
  echo "$prog: [$seq_no/${#plan[@]}] $fl $k.$class.$np $scen (cluster $name)" >&2
  current_name=$name
  for _ in 1 2 3 4 5 6 7 8; do   # retried like 'sim down' below
    "$yadokari" sim up --nodes "$nodes" --slots 2 --name "$name" >"$work/simup.log" 2>&1 && break
    echo "$prog: sim up failed ($(tail -1 "$work/simup.log")), retrying in 15 s" >&2
    sleep 15
  done

  # ---- native baseline on the same cluster and layout ---------------------------------------------
  native_wall=""; native_rc=""; native_status="skipped"; native_ver=""; native_npb=""
  if ((native)); then
    (
      eval "$("$yadokari" sim env --mpi "$fl" --name "$name" --job-dir "$work/native")" || exit 99
      mkdir -p "$work/native"; cd "$work/native" || exit 99
      if [[ "$fl" == openmpi ]]; then
        exec timeout -k 5 "$native_timeout" $sim_launch mpirun.openmpi $sim_launcher_args -n "$np" ${hosts:+--host "$hosts"} "$bin"
      else
        # Hydra rejects a host list next to a host file: drop '-f HOSTFILE' when --hosts places the ranks
        [[ -n "$hosts" ]] && sim_launcher_args=${sim_launcher_args% -f *}
        exec timeout -k 5 "$native_timeout" $sim_launch mpiexec.mpich $sim_launcher_args -n "$np" ${hosts:+-hosts "$hosts"} "$bin"
      fi
    ) >"$work/native.log" 2>&1 </dev/null &
    npid=$!
    t0=$(now); t1=""
    wait_with_grace "$npid" "$work/native.log" 10
    native_rc=$rc; t1=$(now)
    [[ -n "$hung" ]] && t1=$output_at   # hung in MPI_Finalize: the time until NPB's output was complete
    native_wall=$(elapsed "$t0" "$t1")
    [[ -n "$hung" ]] && native_rc=hung
    native_ver=$(grep -Eo 'Verification += +[A-Z]+' "$work/native.log" | awk '{print $NF}' | tail -1)
    native_npb=$(awk -F= '/Time in seconds/ { gsub(/ /, "", $2); print $2 }' "$work/native.log" | tail -1)
    if [[ $native_rc == 0 && "$native_ver" == SUCCESSFUL ]]; then native_status=ok
    elif [[ $native_rc == hung ]]; then native_status=HUNG_AFTER_OUTPUT; native_rc=""
    elif [[ $native_rc == 124 || $native_rc == 137 ]]; then native_status=TIMEOUT
    else native_status=FAILED; fi
    rm -rf "$work/native"
  fi
  if [[ -n "$interval" ]]; then
    run_interval=$interval
  else
    # a third of the native wall time; if the native run did not end cleanly (MPICH may hang in
    # MPI_Finalize over TCP), a third of NPB's own time, else 5 s
    base=""
    [[ $native_status == ok ]] && base=$native_wall
    [[ -z "$base" && -n "$native_npb" ]] && base=$native_npb
    run_interval=$(awk -v b="${base:-15}" 'BEGIN { i = b / 3; if (i < 1) i = 1; printf "%.1f", i }')
  fi

  # ---- the drill -----------------------------------------------------------------------------------
  # A job that ends before its first epoch (noisy machine: faster than the native run) is run once
  # more on the same (untouched) cluster with a quarter of its own wall time as the interval.
  no_epoch_walls=""
  for attempt in 1 2; do
  ckpt=$work/ckpt
  rm -rf "$ckpt"
  log=$work/run.log
  extra=()
  envs=()
  if [[ "$fl" == openmpi ]]; then extra=(--mpi-args "--mca btl_base_verbose 100"); else envs=(UCX_LOG_LEVEL=info); fi
  cmd=("$yadokari" run --sim "$name" -n "$np" --mpi "$fl" ${hosts:+--hosts "$hosts"} --ckpt-dir "$ckpt"
       --interval "$run_interval" "${extra[@]}" -- "$bin")
  printf -v cmd_str '%q ' "${cmd[@]}"
  t_start=$(now)
  (cd "$work" && exec env "${envs[@]}" timeout -k 10 "$timeout_s" "${cmd[@]}") >"$log" 2>&1 </dev/null &
  job_pid=$!
  t_epoch=""; t_kill=""; t_lost=""
  while kill -0 "$job_pid" 2>/dev/null; do
    ls "$ckpt"/*/MANIFEST >/dev/null 2>&1 && { t_epoch=$(now); break; }
    grep -Eq "Verification +=" "$log" && break   # finished computing before the first epoch
    sleep 0.05
  done
  if [[ -n "$t_epoch" ]]; then
    "$yadokari" sim kill --name "$name" "$victim" >"$work/kill.log" 2>&1 || echo "$prog: sim kill failed: $(cat "$work/kill.log")" >&2
    t_kill=$(now)
    while kill -0 "$job_pid" 2>/dev/null; do
      grep -q "node $victim lost" "$log" && { t_lost=$(now); break; }
      sleep 0.02
      awk -v a="$t_kill" -v b="$(now)" 'BEGIN { exit !(b - a > 60) }' && break
    done
    [[ -z "$t_lost" ]] && grep -q "node $victim lost" "$log" && t_lost=$(now)
  fi
  wait_with_grace "$job_pid" "$log" 30
  job_pid=""
  t_end=$(now); t_output=$output_at
  [[ -z "$t_epoch" && ( $rc == 0 || -n "$hung" ) && $attempt == 1 && -z "$interval" ]] || break
  w=$(elapsed "$t_start" "${output_at:-$t_end}")
  no_epoch_walls+="${no_epoch_walls:+,}$w"
  new_interval=$(awk -v w="$w" 'BEGIN { i = w / 4; if (i < 1) i = 1; printf "%.1f", i }')
  awk -v a="$new_interval" -v b="$run_interval" 'BEGIN { exit !(a < b) }' || break
  echo "$prog:   no epoch before the end (wall ${w}s, interval $run_interval): again with interval $new_interval" >&2
  run_interval=$new_interval
  done
  # the CLI may be missing for a moment while build/ is rebuilt: retry for up to ~2 minutes
  for _ in 1 2 3 4 5 6 7 8; do
    "$yadokari" sim down --name "$name" >"$work/simdown.log" 2>&1 && break
    echo "$prog: sim down failed ($(tail -1 "$work/simdown.log")), retrying in 15 s" >&2
    sleep 15
  done
  sleep 0.5
  left=$(leftovers "$name" "$bin")
  current_name=""
  if [[ -n "$left" ]]; then
    echo "$prog: left behind after $name: $left" >&2
  fi
  ver=$(grep -Eo 'Verification += +[A-Z]+' "$log" | awk '{print $NF}' | tail -1)
  restarts=$(grep -c '^yadokari: restart [0-9]* (' "$log")
  if [[ -n "$hung" ]]; then status=HUNG_AFTER_OUTPUT
  elif [[ $rc == 124 || $rc == 137 ]]; then status=TIMEOUT
  elif [[ -z "$t_epoch" ]]; then status=NO_EPOCH
  elif [[ -z "$t_lost" ]]; then status=NOT_DETECTED
  elif [[ $rc == 0 && "$ver" == SUCCESSFUL && $restarts == 1 ]]; then status=ok
  else status=FAILED; fi
  [[ $status == ok ]] || failures=$((failures + 1))

  NL_CMD=$cmd_str python3 - "$log" <<PY >>"$out"
import json, os, re, sys
log = open(sys.argv[1], errors="replace").read().splitlines()
def f(x):
    return None if x in ("", None) else float(x)
rec = dict(
    run=$seq_no, timestamp="$(date -u +%Y-%m-%dT%H:%M:%SZ)", git="$git_rev", mpi="$fl", kernel="$k",
    **{"class": "$class"}, np=$np, scenario="$scen", nodes=$nodes, slots=2, hosts="$hosts" or "default (2 per node)",
    killed_node="$victim", binary="$bin", command=os.environ["NL_CMD"].strip(),
    interval_s=f("$run_interval"), native_wall_s=f("$native_wall"), native_exit_code=(int("$native_rc") if "$native_rc" else None),
    native_status="$native_status", native_verification="$native_ver" or None, native_npb_seconds=f("$native_npb"),
    status="$status", exit_code=$rc, verification="$ver" or None,
    first_epoch_s=(round(f("$t_epoch") - f("$t_start"), 3) if "$t_epoch" else None),
    kill_at_s=(round(f("$t_kill") - f("$t_start"), 3) if "$t_kill" else None),
    detect_s=(round(f("$t_lost") - f("$t_kill"), 3) if "$t_lost" and "$t_kill" else None),
    wall_s=round(f("$t_end") - f("$t_start"), 3),
    output_complete_s=(round(f("$t_output") - f("$t_start"), 3) if "$t_output" else None), restarts=$restarts, attempt=$attempt,
    no_epoch_attempt_walls_s=[float(x) for x in "$no_epoch_walls".split(",") if x], leftovers="$left".split(),
)
m = [l for l in log if "Time in seconds" in l]
rec["npb_seconds"] = float(m[-1].split("=")[1]) if m else None
lost = [l for l in log if re.search(r"^yadokari: node \S+ lost: ", l)]
plan = [l for l in log if re.search(r"^yadokari: node \S+ lost; restarting from epoch", l)]
line = [l for l in log if re.search(r"^yadokari: restart \d+ \(", l)]
rec["lost_line"] = lost[0] if lost else None
rec["restart_plan_line"] = plan[0] if plan else None
rec["restart_line"] = line[0] if line else None
if plan:
    m = re.search(r"restarting from epoch (\d+) on (\S+)", plan[0])
    if m: rec["restart_hosts"] = m.group(2)
if line:
    rec["timeline"] = {p: float(v) for p, v in re.findall(r"(detect|settle|stop|plan|stage|launch|MPI_Init|restore) ([0-9.]+) s", line[0])}
    m = re.search(r"; epoch (\d+);", line[0]); rec["restart_epoch"] = int(m.group(1)) if m else None
    m = re.search(r"policy (\S+?),", line[0]); rec["policy"] = m.group(1) if m else None
    m = re.search(r"ranks moved: ([0-9,]+|none)", line[0]); rec["ranks_moved"] = m.group(1) if m else None
# transports logged by the restarted incarnation (after the "restarting from epoch" line)
idx = next((i for i, l in enumerate(log) if "restarting from epoch" in l), None)
if idx is not None:
    after = log[idx + 1:]
    if "$fl" == "openmpi":
        vader = sorted({m.group(1) for l in after for m in [re.search(r"Using vader btl for send to .* on node (\S+)", l)] if m})
        tcp = sorted({m.group(1) for l in after for m in [re.search(r"Using tcp btl for send to .* on node (\S+)", l)] if m})
        rec["shm_after_restart"] = vader           # nodes on which ranks talk over vader
        rec["tcp_after_restart"] = tcp
        rec["traffic_to_killed_node"] = any(re.search(r"btl for send to .* on node yk$name-$victim\b", l) for l in after)
    else:
        rec["shm_after_restart"] = sum(bool(re.search(r"ep_cfg\[\d+\]: tag\([^)]*(sysv|posix|xpmem|cma)/memory", l)) for l in after)
        rec["tcp_after_restart"] = sum(bool(re.search(r"ep_cfg\[\d+\]: tag\(tcp/", l)) for l in after)
        rec["traffic_to_killed_node"] = None
if rec["status"] != "ok":
    rec["tail"] = [l for l in log if not re.search(r"btl for send to|ep_cfg\[|mca: bml|select: init|btl: tcp|btl:.*component|mca: base", l)][-25:]
print(json.dumps(rec))
PY
  echo "$prog:   -> $status exit=$rc verification=${ver:-none} interval=$run_interval native=${native_wall:-} detect=$( [[ -n $t_lost ]] && elapsed "$t_kill" "$t_lost") restarts=$restarts" >&2
  if [[ -n "$keep_logs" ]]; then
    d="$keep_logs/$fl-$k-${scen//[^0-9a-z]/_}"; mkdir -p "$d"
    cp "$work"/*.log "$d"/ 2>/dev/null
  fi
  rm -rf "$work"
done
((failures == 0))
