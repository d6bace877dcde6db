#!/usr/bin/env bash
# What a kept rank's pause costs when its MPI library is swapped in place (issue 20;
# pmpi-layer/README.md, "Swapping the MPI library in a running process"), whether it grows with the
# memory the process holds, and what a full checkpoint + restart of the same memory costs. On a
# simulated cluster of its own (2 nodes x 2 slots), 2 ranks, one per node, of
# bench/migration/swap_pause.c holding MB megabytes each:
#   swap       the ranks call yadokari_swap_library() SWAPS times, driven by hand as
#              tests/sim/sim_library_swap.sh does: launch 0 under the shim (LD_PRELOAD) with
#              YADOKARI_SWAP_DIR; at each swap, once both ranks wait (DIR/rank-L.pid), the ranks'
#              node daemons (orted, hydra_pmi_proxy) and then the launch are killed, and the next
#              launch starts the program under the shim with YADOKARI_KEPT_RANKS=0,1 (the stand-ins).
#              Each rank times the call inside the process (CLOCK_MONOTONIC) and checks its checksum
#              over the new world; YADOKARI_STATS gives the phases of each rank's last swap
#              (cut, finalize, wait_launch, load, bind, init, objects).
#   rebalance  (unless --no-rebalance) the same memory under `yadokari run --sim ... --ckpt-dir`,
#              then `yadokari rebalance`: a checkpoint and a restart; its pause is the sum of the
#              phases of the front end's line "restart 1 (rebalance): ...".
# Needs root (the simulated nodes are namespaces). Run it under the tests' lock on a shared machine:
#
#   flock /tmp/yadokari-tests.lock bench/migration/swap_pause.sh [--build DIR] [--mpi openmpi|mpich|both]
#                                       [--mb "0 50 500"] [--swaps 3] [--no-rebalance]
#
#   --build         build tree holding bin/yadokari and lib/libyadokari-<mpi>.so (default: <repo>/build)
#   --mpi           MPIs to measure (default both)
#   --mb            megabytes per rank, one run of each (default "0 50 500")
#   --swaps         swaps per run (default 3; at most 11, what a process can load)
#   --no-rebalance  only the swaps
#
# Prints one line per run (the pauses of every rank and swap, the rebalance's timeline line), then a
# table per MPI: MB, the median kept-rank pause over swaps and ranks (with its range), the medians
# over the ranks of the last swap's phases, the driver's share of wait_launch (median over the swaps
# from the later rank's pid file to the next launch's start: its polling every 20 ms and the kills),
# the rebalance's pause (its timeline's sum), the longest of the rebalanced processes' 50 ms rounds
# as they timed it (the slower rank's), and the ratio swap pause / rebalance's timeline.
# Exit 1 if a run failed (its output is shown, and where its processes are when gdb is installed).
# Nothing is kept; one to two minutes with the defaults here.
set -uo pipefail
prog=swap_pause.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../../build"
mpi=both
mbs="0 50 500"
swaps=3
rebalance=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) [[ $# -ge 2 ]] || die "--build needs a value"; build=$2; shift 2 ;;
    --mpi) [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    --mb) [[ $# -ge 2 ]] || die "--mb needs a value"; mbs=$2; shift 2 ;;
    --swaps) [[ $# -ge 2 ]] || die "--swaps needs a value"; swaps=$2; shift 2 ;;
    --no-rebalance) rebalance=""; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
case "$mpi" in
  openmpi | mpich) flavours=("$mpi") ;;
  both) flavours=(openmpi mpich) ;;
  *) die "unknown --mpi '$mpi' (openmpi, mpich or both)" ;;
esac
if ! [[ "$swaps" =~ ^[1-9][0-9]*$ ]] || ((swaps > 11)); then die "--swaps needs a whole number from 1 to 11, got '$swaps'"; fi
for mb in $mbs; do [[ "$mb" =~ ^[0-9]+$ ]] || die "--mb needs whole numbers of megabytes, got '$mb'"; done
[[ -n "${mbs// /}" ]] || die "--mb needs at least one size"
build=$(cd "$build" 2>/dev/null && pwd) || die "no build tree $build"
yk="$build/bin/yadokari"
[[ -x "$yk" ]] || die "no $yk (build first, or pass --build)"
for fl in "${flavours[@]}"; do
  [[ -f "$build/lib/libyadokari-$fl.so" ]] || die "no $build/lib/libyadokari-$fl.so"
done
(( EUID == 0 )) || die "needs root (simulated nodes are namespaces)"

name=sp$$
work=$(mktemp -d "${TMPDIR:-/tmp}/swap-pause.XXXXXX")
chmod 755 "$work"  # the nodes' processes run the program and use the kept processes' sockets
export YADOKARI_STATE_DIR="$work/state"  # `yadokari rebalance` finds this script's job only
unset YADOKARI_FAULT_HOLD_FINALIZE
launcher="" job=""
cleanup() {
  [[ -n "$launcher" ]] && kill -9 "$launcher" 2>/dev/null
  [[ -n "$job" ]] && kill -9 "$job" 2>/dev/null
  "$yk" sim down --name "$name" >/dev/null 2>&1  # every process left in the cluster's namespaces
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
"$yk" sim up --nodes 2 --slots 2 --name "$name" >/dev/null || die "sim up failed"
# swap FL MB RANK SWAP PAUSE | phases FL MB RANK SWAPS JSON | driver FL MB SWAP NOTICED LAUNCHED |
# rebalance FL MB TOTAL LONGEST
results="$work/results"
: >"$results"
failed=0

show() { local f; for f in "$@"; do [[ -s "$f" ]] && { echo "  --- ${f#"$work"/}"; tail -n 15 "$f" | sed 's/^/  | /'; }; done; }
# backtraces D: where the program's processes of run D are (gdb, when installed).
backtraces() {
  local pid
  command -v gdb >/dev/null || return 0
  for pid in $(pgrep -x swap_pause); do
    grep -qzx "YADOKARI_SWAP_DIR=$1/swap" "/proc/$pid/environ" 2>/dev/null || continue
    echo "  --- backtrace of pid $pid"
    timeout 30 gdb -batch -p "$pid" -ex 'thread apply all bt 20' 2>/dev/null | grep -E '^(#|Thread)' | sed 's/^/  | /'
  done
}
# ended_within S: waits up to S seconds for $launcher to end; its exit status, or 124.
ended_within() {
  local s=$1
  for _ in $(seq $((s * 10))); do kill -0 "$launcher" 2>/dev/null || { wait "$launcher"; return; }; sleep 0.1; done
  return 124
}

# launch FL D OUT MB ENV...: one rank per node, in the background, under the cluster's settings
# (sim env, evaluated by the caller); the launcher's pid in $launcher. The variables are set in the
# launch's subshell only (the driver's own commands must not load the shim).
launch() {
  local fl=$1 d=$2 out=$3 mb=$4 e forward=()
  shift 4
  (
    [[ -n "${nap:-}" ]] && exec {nap}<&-
    cd "$d" || exit 1
    if [[ $fl == openmpi ]]; then
      for e in "$@"; do export "${e?}"; forward+=(-x "${e%%=*}"); done
      # shellcheck disable=SC2086,SC2154  # sim_launch and sim_launcher_args come from sim env
      exec $sim_launch mpirun.openmpi $sim_launcher_args -n 2 --map-by node "${forward[@]}" \
        "$d/swap_pause" "$mb" "$swaps" >"$d/$out.out" 2>"$d/$out.err"
    else
      for e in "$@"; do forward+=(-genv "${e%%=*}" "${e#*=}"); done
      # shellcheck disable=SC2086
      exec $sim_launch mpiexec.mpich $sim_launcher_args -n 2 -ppn 1 "${forward[@]}" \
        "$d/swap_pause" "$mb" "$swaps" >"$d/$out.out" 2>"$d/$out.err"
    fi
  ) &
  launcher=$!
}

# swap_run FL MB: launch 0 and $swaps later launches; the pauses and phases into $results.
swap_run() {
  local fl=$1 mb=$2 d="$work/$1/swap-$2" s f e pid parent comm procs environ rc seen launched waited shim="$build/lib/libyadokari-$1.so"
  mkdir -p "$d/swap" "$d/stats" && chmod 755 "$d" "$d/swap" && chmod 777 "$d/stats"
  cp "$work/$fl/swap_pause" "$d/swap_pause"
  local envs=("LD_PRELOAD=$shim" "YADOKARI_SWAP_DIR=$d/swap" "YADOKARI_STATS=$d/stats")
  launch "$fl" "$d" launch-0 "$mb" "${envs[@]}"
  # Between a swap's pid files and the next launch the driver forks as little as it can (a fork
  # costs 10-50 ms on this machine under load): bash globs, reads and a sleep on a silent pipe.
  local nap pidfiles kept=() first="" doomed
  exec {nap}<> <(:)
  for s in $(seq "$swaps"); do mkdir "$d/seen-$s"; done
  for s in $(seq "$swaps"); do
    for _ in $(seq 3000); do
      shopt -s nullglob
      pidfiles=("$d"/swap/rank-*.pid)
      shopt -u nullglob
      ((${#pidfiles[@]} == 2)) && break
      kill -0 "$launcher" 2>/dev/null || break
      read -rt 0.02 -u "$nap" || :
    done
    seen=$EPOCHREALTIME
    if ((${#pidfiles[@]} != 2)); then
      echo "$fl $mb MB: launch $((s - 1)): the ranks did not wait for a stand-in within a minute" \
        "(waiting: $(cd "$d/swap" && ls rank-*.pid 2>/dev/null | paste -sd, -))"
      show "$d"/launch-*.out "$d"/launch-*.err
      backtraces "$d"
      kill -9 "$launcher" 2>/dev/null
      launcher=""
      exec {nap}<&-
      return 1
    fi
    kept=()
    for f in "${pidfiles[@]}"; do read -r pid <"$f"; kept+=("$pid"); done
    [[ -z "$first" ]] && first="${kept[*]}"
    if [[ "${kept[*]}" != "$first" ]]; then
      echo "$fl $mb MB: other processes waited at swap $s (${kept[*]}, not $first)"
      kill -9 "$launcher" "${kept[@]}" 2>/dev/null
      launcher=""
      exec {nap}<&-
      return 1
    fi
    # The node daemons above the launch's ranks first (the kept processes at the first swap, the
    # stand-ins later), then the rest of the launch, launcher last (sim_library_swap.sh: a daemon
    # that sees its launcher gone signals the ranks it started; Open MPI's orted is not below it).
    procs=$(ps -e -o pid=,ppid=,comm=)
    local -A ppid_of=() comm_of=()
    while read -r pid parent comm; do ppid_of[$pid]=$parent comm_of[$pid]=$comm; done <<<"$procs"
    for pid in "${!comm_of[@]}"; do
      [[ ${comm_of[$pid]} == swap_pause ]] || continue
      mapfile -d '' -t environ 2>/dev/null <"/proc/$pid/environ" || continue
      for e in "${environ[@]}"; do
        [[ "$e" == "YADOKARI_SWAP_DIR=$d/swap" ]] || continue
        parent=${ppid_of[$pid]}
        [[ ${comm_of[$parent]:-} =~ ^(orted|hydra_pmi_proxy)$ ]] && kill -9 "$parent"
        break
      done
    done
    doomed=()
    for pid in "${!ppid_of[@]}"; do
      [[ " ${kept[*]} " == *" $pid "* || $pid == "$launcher" ]] && continue
      parent=${ppid_of[$pid]}
      while [[ -n "${ppid_of[$parent]:-}" && $parent != "$launcher" ]]; do parent=${ppid_of[$parent]}; done
      [[ $parent == "$launcher" ]] && doomed+=("$pid")
    done
    kill -9 "${doomed[@]}" "$launcher" 2>/dev/null
    wait "$launcher" 2>/dev/null
    for pid in "${kept[@]}"; do
      kill -0 "$pid" 2>/dev/null || { echo "$fl $mb MB: kept process $pid died with launch $((s - 1))"; exec {nap}<&-; return 1; }
    done
    mv -t "$d/seen-$s" "${pidfiles[@]}"
    launched=$EPOCHREALTIME
    launch "$fl" "$d" "launch-$s" "$mb" "${envs[@]}" "YADOKARI_KEPT_RANKS=0,1"
    # The driver's share of the ranks' wait_launch: from the later rank's pid file (written once
    # its library is finalized) to the pid files seen, and to the next launch's start.
    waited=$(stat -c %.9Y "$d/seen-$s"/rank-*.pid | sort -n | tail -n 1)
    echo "driver $fl $mb $s $(awk -v w="$waited" -v s="$seen" -v l="$launched" 'BEGIN { printf "%.3f %.3f", s - w, l - w }')" >>"$results"
  done
  exec {nap}<&-
  printf '%s\n' "${kept[@]}" >"$d/kept.pids"
  ended_within 120
  rc=$?
  launcher=""
  while read -r pid; do  # left over only if the last launch failed
    grep -qzx "YADOKARI_SWAP_DIR=$d/swap" "/proc/$pid/environ" 2>/dev/null && kill -9 "$pid"
  done <"$d/kept.pids"
  local pauses checks
  pauses=$(cat "$d"/launch-*.out | grep -c '^pause rank [01] swap [0-9]*: ')
  checks=$(cat "$d"/launch-*.out | grep -c '^checksum ok rank [01] after swap ')
  if ((rc != 0 || pauses != 2 * swaps || checks != 2 * swaps)); then
    echo "$fl $mb MB: the last launch exited $rc; $pauses pause lines and $checks checksums ok of $((2 * swaps))"
    show "$d"/launch-*.out "$d"/launch-*.err
    return 1
  fi
  cat "$d"/launch-*.out | awk -v fl="$fl" -v mb="$mb" '$1 == "pause" { sub(":", "", $5); print "swap", fl, mb, $3, $5, $6 }' >>"$results"
  local r line
  for r in 0 1; do
    [[ -s "$d/stats/rank-$r.json" ]] || { echo "$fl $mb MB: no stats of rank $r"; return 1; }
    line=$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(j["library_swaps"], json.dumps(j["last_library_swap_seconds"], separators=(",", ":")))' "$d/stats/rank-$r.json")
    [[ "${line%% *}" == "$swaps" ]] || { echo "$fl $mb MB: rank $r's stats count ${line%% *} swaps, not $swaps"; return 1; }
    echo "phases $fl $mb $r $line" >>"$results"
  done
  printf '%-7s %4s MB swap: pauses (s) %s; checksums ok; pids %s kept; driver (s, per swap): pid files seen after %s, next launch after %s\n' \
    "$fl" "$mb" \
    "$(awk -v fl="$fl" -v mb="$mb" '$1 == "swap" && $2 == fl && $3 == mb { printf "%sr%s/s%s=%s", sep, $4, $5, $6; sep = " " }' "$results")" \
    "$(paste -sd, "$d/kept.pids")" \
    "$(awk -v fl="$fl" -v mb="$mb" '$1 == "driver" && $2 == fl && $3 == mb { printf "%s%s", sep, $5; sep = "," }' "$results")" \
    "$(awk -v fl="$fl" -v mb="$mb" '$1 == "driver" && $2 == fl && $3 == mb { printf "%s%s", sep, $6; sep = "," }' "$results")"
}

# rebalance_run FL MB: the same memory under yadokari run, one rebalance; its pause into $results.
rebalance_run() {
  local fl=$1 mb=$2 d="$work/$1/rebalance-$2" reply line total longest code=""
  mkdir -p "$d" && chmod 755 "$d"
  timeout -k 5 300 "$yk" run --sim "$name" --hosts n1:1,n2:1 -n 2 --mpi "$fl" --ckpt-dir "$d/ckpt" -- \
    "$work/$fl/swap_pause" "$mb" 0 "$d/stop" >"$d/run.out" 2>"$d/run.err" </dev/null &
  job=$!
  # Both ranks hold their memory (its checksum agreed), then the rebalance, asked until the job answers.
  for _ in $(seq 1200); do
    (($(grep -c '^rank [01] of 2 holds' "$d/run.out") == 2)) && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  for _ in $(seq 600); do
    reply=$("$yk" rebalance 2>&1) && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  if [[ "$reply" != "yadokari: rebalance of job "*" started: "* ]]; then
    echo "$fl $mb MB: rebalance not started: $reply"
    show "$d/run.out" "$d/run.err"
    kill -9 "$job" 2>/dev/null; job=""
    return 1
  fi
  for _ in $(seq 2400); do
    grep -q '^yadokari: restart 1 (rebalance): ' "$d/run.err" && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  touch "$d/stop"
  # The end: both checksums, then the job's exit (MPICH's finalize over TCP: 30 s of grace, as
  # tests/sim/sim_common.sh's wait_job gives it).
  local since=""
  while kill -0 "$job" 2>/dev/null; do
    [[ -z "$since" ]] && (($(grep -c '^checksum ok rank [01] after' "$d/run.out") == 2)) && since=$SECONDS
    if [[ -n "$since" ]] && ((SECONDS - since >= 30)); then
      kill -TERM "$job" 2>/dev/null
      sleep 5
      kill -9 "$job" 2>/dev/null
      code=124
      break
    fi
    sleep 0.2
  done
  wait "$job"
  [[ -z "$code" ]] && code=$?
  job=""
  line=$(grep '^yadokari: restart 1 (rebalance): ' "$d/run.err" | head -n 1)
  if [[ -z "$line" || $(grep -c '^checksum ok rank [01] after' "$d/run.out") != 2 ]]; then
    echo "$fl $mb MB: rebalance: exit $code, no restart line or no checksums"
    show "$d/run.out" "$d/run.err"
    return 1
  fi
  # The sum of the timeline's phases up to the restore (those that are '-' count nothing).
  total=$(sed 's/; epoch .*//' <<<"$line" | grep -o '[0-9.]* s' | awk '{ t += $1 } END { printf "%.3f", t }')
  # As the processes saw it: the longest of their 50 ms rounds, the slower rank's.
  longest=$(awk '$1 == "longest" && $2 == "round" { if ($5 > m) m = $5 } END { printf "%.3f", m }' "$d/run.out")
  echo "rebalance $fl $mb $total $longest" >>"$results"
  printf '%-7s %4s MB rebalance: %.3f s, longest round %.3f s, exit %s, checksums ok: %s\n' "$fl" "$mb" "$total" "$longest" \
    "$code" "${line#yadokari: }"
  grep '^yadokari: rebalance; restarting from' "$d/run.err" | head -n 1 | sed "s/^yadokari: /                  /"
}

for fl in "${flavours[@]}"; do
  mkdir -p "$work/$fl" && chmod 755 "$work/$fl"
  "mpicc.$fl" -O2 -o "$work/$fl/swap_pause" "$here/swap_pause.c" || die "mpicc.$fl failed"
  (
    eval "$("$yk" sim env --mpi "$fl" --name "$name" --job-dir "$work/$fl")" || exit 1
    bad=0
    for mb in $mbs; do swap_run "$fl" "$mb" || bad=1; done
    exit $bad
  ) || failed=1
  if [[ -n "$rebalance" ]]; then
    for mb in $mbs; do rebalance_run "$fl" "$mb" || failed=1; done
  fi
done

echo
python3 - "$results" "$swaps" <<'PY'
import json, statistics, sys
rows = [l.split(maxsplit=5) for l in open(sys.argv[1])]
swaps = sys.argv[2]
phases = ["cut", "finalize", "wait_launch", "load", "bind", "init", "objects"]
for fl in dict.fromkeys(r[1] for r in rows):
    print(f"{fl}: 2 ranks on 2 simulated nodes; pause = one rank's yadokari_swap_library() call, median over "
          f"{swaps} swaps x 2 ranks [min-max]; phases = medians over the 2 ranks of their last swap (stats); "
          "driver = median over the swaps from the later rank's pid file to the next launch's start "
          "(part of wait_launch); rebalance = the sum of the restart's timeline; longest round = the "
          "rebalanced processes' longest 50 ms round as they timed it (the slower rank)")
    print(f"| MB | swap pause (s) | " + " | ".join(phases) + " | driver | rebalance (s) | longest round (s) | swap / rebalance |")
    print("|---:|---:|" + "---:|" * len(phases) + "---:|---:|---:|---:|")
    for mb in sorted({int(r[2]) for r in rows if r[1] == fl}):
        p = [float(r[5]) for r in rows if r[0] == "swap" and r[1] == fl and int(r[2]) == mb]
        ph = [json.loads(r[5]) for r in rows if r[0] == "phases" and r[1] == fl and int(r[2]) == mb and r[4] == swaps]
        rb = [float(r[3]) for r in rows if r[0] == "rebalance" and r[1] == fl and int(r[2]) == mb]
        lr = [float(r[4]) for r in rows if r[0] == "rebalance" and r[1] == fl and int(r[2]) == mb]
        dr = [float(r[5]) for r in rows if r[0] == "driver" and r[1] == fl and int(r[2]) == mb]
        pause = f"{statistics.median(p):.3f} [{min(p):.3f}-{max(p):.3f}]" if p else "failed"
        cells = [f"{statistics.median(x[k] for x in ph):.3f}" if ph else "-" for k in phases]
        rebal = f"{rb[0]:.3f}" if rb else "-"
        ratio = f"{statistics.median(p) / rb[0]:.3f}" if p and rb and rb[0] > 0 else "-"
        driver = f"{statistics.median(dr):.3f}" if dr else "-"
        longest = f"{lr[0]:.3f}" if lr else "-"
        print(f"| {mb} | {pause} | " + " | ".join(cells) + f" | {driver} | {rebal} | {longest} | {ratio} |")
    print()
PY
exit $failed
