#!/usr/bin/env bash
# Batch driver for the NAS Parallel Benchmarks: native MPI vs. yadokari, interleaved, one JSON line per run.
#
#   npb.sh --npb-dir DIR [--mpi openmpi|mpich|both] [--kernels "cg mg ..."] [--classes "S A"] [--np 4]
#          [--reps R] [--modes "native shim ckpt restart"] [--interval "S ..."] [--out results.jsonl] [--quick]
#          [--sim NAME] [--hosts h1:s,h2:s] [--build] [--yadokari PATH] [--timeout S] [--max-minutes M]
#          [--finalize-grace S] [--keep-logs DIR] [--report DIR] [--dry-run]
#
#   --npb-dir     a directory holding NPB binaries: build_npb.sh's --out (<dir>/<mpi>/bin/<k>.<c>.<np>), or its
#                 parent (<dir>/npb-build/...), or the NPB3.4-MPI tree itself (binaries in <dir>/../npb-build)
#                 (default: $NPB_DIR)
#   --mpi         flavours (default both)
#   --kernels     default "cg ep ft is mg"; --classes default "S A"; --np ranks (default 4)
#   --reps        repetitions of every kernel x class x mpi (default 3)
#   --modes       any of native (mpirun/mpiexec alone), shim ('yadokari run', no checkpoints),
#                 ckpt ('yadokari run --ckpt-dir TMP --interval S'), restart ('yadokari run --ckpt-dir TMP
#                 --interval T --stop-after-epoch 1' with T = half the last native wall time of the same
#                 benchmark, then 'yadokari restart --ckpt-dir TMP'); default "native shim ckpt"
#   --interval    checkpoint interval of ckpt mode, seconds (default 10); several ("30 60") run ckpt mode once
#                 per interval in every group, each paired with the same rep's native and shim runs
#   --out         JSON-lines file the records are appended to (default ./npb-results.jsonl)
#   --quick       a set that finishes within 15 minutes on a 2-core machine, then writes the report:
#                 kernels "cg ep is mg", classes "S A", reps 2, modes "native shim ckpt restart",
#                 interval 2, timeout 120, max-minutes 11, out bench/results/<date>/npb.jsonl
#                 (explicit options given after --quick override these)
#   --sim NAME    run on the simulated cluster NAME ('yadokari sim up --name NAME ...'): native runs use the
#                 launch settings of 'yadokari sim env --name NAME --mpi M', yadokari runs get '--sim NAME';
#                 records get "experiment": NAME and placement "sim:NAME" (or the --hosts list)
#   --hosts       host list for both launchers (mpirun --host, mpiexec -hosts, yadokari --hosts); default local
#   --build       build missing binaries with npb/build_npb.sh first (needs the NPB3.4-MPI sources)
#   --yadokari    the CLI (default <repo>/build/bin/yadokari, or $YADOKARI)
#   --timeout     watchdog per run, seconds (default 600); a run past it is killed, status TIMEOUT
#   --finalize-grace  a run still alive S seconds after NPB printed its verification line is stopped and
#                 kept with finalize_hang 1 and its time up to that line (MPICH over TCP may hang in
#                 MPI_Finalize, docs/platform.md §1); default 20
#   --max-minutes no new benchmark (all modes of one kernel.class.mpi) starts after this many minutes, and
#                 the watchdog of every run ends at the latest 3 minutes after it (default: no limit)
#   --keep-logs   keep every run's output under DIR (default: only failing runs' tails are shown)
#   --report      write the Markdown report (bench/report) into DIR after the runs (--quick: the out dir)
#   --dry-run     print the planned runs (one line each) and exit without running anything
#
# Exit status: 0 if every run verified, 1 if any failed, 2 on a usage error.
set -uo pipefail

prog=npb.sh
usage_err() { echo "$prog: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
source "$here/lib/finalize_grace.sh"  # wait_with_grace

npb_dir=${NPB_DIR:-}
mpi=both
kernels="cg ep ft is mg"
classes="S A"
np=4
reps=3
modes="native shim ckpt"
interval=10
out=""
sim=""
hosts=""
build=0
yadokari=${YADOKARI:-$repo/build/bin/yadokari}
timeout_s=600
finalize_grace=20
max_minutes=""
keep_logs=""
report_dir=""
dry_run=0
quick=0

need() { [[ $2 -ge 2 ]] || usage_err "option $1 needs a value"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --npb-dir)     need "$1" $#; npb_dir=$2; shift 2 ;;
    --mpi)         need "$1" $#; mpi=$2; shift 2 ;;
    --kernels)     need "$1" $#; kernels=$2; shift 2 ;;
    --classes)     need "$1" $#; classes=$2; shift 2 ;;
    --np)          need "$1" $#; np=$2; shift 2 ;;
    --reps)        need "$1" $#; reps=$2; shift 2 ;;
    --modes)       need "$1" $#; modes=$2; shift 2 ;;
    --interval)    need "$1" $#; interval=$2; shift 2 ;;
    --out)         need "$1" $#; out=$2; shift 2 ;;
    --sim)         need "$1" $#; sim=$2; shift 2 ;;
    --hosts)       need "$1" $#; hosts=$2; shift 2 ;;
    --yadokari)    need "$1" $#; yadokari=$2; shift 2 ;;
    --timeout)     need "$1" $#; timeout_s=$2; shift 2 ;;
    --max-minutes) need "$1" $#; max_minutes=$2; shift 2 ;;
    --finalize-grace) need "$1" $#; finalize_grace=$2; shift 2 ;;
    --keep-logs)   need "$1" $#; keep_logs=$2; shift 2 ;;
    --report)      need "$1" $#; report_dir=$2; shift 2 ;;
    --build)       build=1; shift ;;
    --dry-run)     dry_run=1; shift ;;
    --quick)
      quick=1
      kernels="cg ep is mg"; classes="S A"; reps=2; modes="native shim ckpt restart"
      interval=2; timeout_s=120; max_minutes=11
      shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) usage_err "unknown option $1" ;;
  esac
done

# ---- validate ------------------------------------------------------------------------------------
[[ -n "$npb_dir" ]] || usage_err "--npb-dir is required (or set NPB_DIR)"
[[ -d "$npb_dir" ]] || usage_err "--npb-dir '$npb_dir' is not a directory"
npb_dir=$(cd "$npb_dir" && pwd)
case "$mpi" in
  openmpi|mpich) flavours=("$mpi") ;;
  both) flavours=(openmpi mpich) ;;
  *) usage_err "--mpi must be openmpi, mpich or both, not '$mpi'" ;;
esac
[[ "$np" =~ ^[1-9][0-9]*$ ]] || usage_err "--np must be a positive integer, not '$np'"
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || usage_err "--reps must be a positive integer, not '$reps'"
[[ "$timeout_s" =~ ^[1-9][0-9]*$ ]] || usage_err "--timeout must be a positive integer, not '$timeout_s'"
[[ "$finalize_grace" =~ ^[1-9][0-9]*$ ]] || usage_err "--finalize-grace must be a positive integer, not '$finalize_grace'"
read -r -a interval_list <<<"$interval"
[[ ${#interval_list[@]} -gt 0 ]] || usage_err "--interval is empty"
for iv in "${interval_list[@]}"; do
  if ! [[ "$iv" =~ ^[0-9]+([.][0-9]+)?$ ]] || ! awk -v x="$iv" 'BEGIN { exit !(x > 0) }'; then
    usage_err "--interval must be positive numbers of seconds, not '$interval'"
  fi
done
[[ -z "$max_minutes" || "$max_minutes" =~ ^[0-9]+([.][0-9]+)?$ ]] ||
  usage_err "--max-minutes must be a number, not '$max_minutes'"
read -r -a kernel_list <<<"$kernels"
read -r -a class_list <<<"$classes"
read -r -a mode_list <<<"$modes"
[[ ${#kernel_list[@]} -gt 0 ]] || usage_err "--kernels is empty"
[[ ${#class_list[@]} -gt 0 ]] || usage_err "--classes is empty"
[[ ${#mode_list[@]} -gt 0 ]] || usage_err "--modes is empty"
for k in "${kernel_list[@]}"; do
  case "$k" in bt|cg|ep|ft|is|lu|mg|sp) ;; *) usage_err "unknown kernel '$k' (bt cg ep ft is lu mg sp)" ;; esac
done
for c in "${class_list[@]}"; do
  case "$c" in S|W|A|B|C|D|E|F) ;; *) usage_err "unknown class '$c' (S W A B C D E F)" ;; esac
done
need_yadokari=0
for m in "${mode_list[@]}"; do
  case "$m" in native) ;; shim|ckpt|restart) need_yadokari=1 ;;
    *) usage_err "unknown mode '$m' (native shim ckpt restart)" ;; esac
done

# Where the binaries (and, for --build, the sources) are.
npb_src=""
if [[ -f "$npb_dir/config/make.def.template" ]]; then
  npb_src=$npb_dir; bindir="$(dirname "$npb_dir")/npb-build"
elif [[ -d "$npb_dir/npb-build" ]]; then
  bindir="$npb_dir/npb-build"
  for s in "$npb_dir"/NPB3.4*-MPI "$npb_dir"/NPB*/NPB3.4*-MPI; do
    [[ -f "$s/config/make.def.template" ]] && { npb_src=$s; break; }
  done
else
  bindir=$npb_dir
  [[ -f "$(dirname "$npb_dir")/NPB3.4-MPI/config/make.def.template" ]] && npb_src="$(dirname "$npb_dir")/NPB3.4-MPI"
fi

if (( quick )) && [[ -z "$out" ]]; then out="$repo/bench/results/$(date -u +%F)/npb.jsonl"; fi
[[ -n "$out" ]] || out="$PWD/npb-results.jsonl"
if (( quick )) && [[ -z "$report_dir" ]]; then report_dir=$(dirname "$out"); fi
placement=${hosts:-local}
[[ -z "$sim" || -n "$hosts" ]] || placement="sim:$sim"

binary() { echo "$bindir/$1/bin/$2.$3.$np"; }

# ---- plan ------------------------------------------------------------------------------------------
# ckpt mode runs once per interval: its plan entries are ckpt@<interval>.
planned_modes=()
for m in "${mode_list[@]}"; do
  if [[ $m == ckpt ]]; then for iv in "${interval_list[@]}"; do planned_modes+=("ckpt@$iv"); done
  else planned_modes+=("$m"); fi
done
# Repetitions are the outer loop, then kernel, class and MPI; the modes of one benchmark (a "group") run
# back to back, in --modes order on even reps and reversed on odd reps (restart then uses the previous rep's
# native time). --max-minutes stops before the next group once the time is up, so a group is never split.
plan=()
for ((r = 0; r < reps; r++)); do
  if (( r % 2 == 0 )); then order=("${planned_modes[@]}")
  else order=(); for ((i = ${#planned_modes[@]} - 1; i >= 0; i--)); do order+=("${planned_modes[i]}"); done; fi
  for k in "${kernel_list[@]}"; do
    for c in "${class_list[@]}"; do
      for fl in "${flavours[@]}"; do
        for m in "${order[@]}"; do plan+=("$r $fl $k $c $m"); done
      done
    done
  done
done

if (( dry_run )); then
  echo "# npb.sh dry run: ${#plan[@]} runs, binaries under $bindir, out $out, placement $placement"
  for p in "${plan[@]}"; do
    read -r r fl k c m <<<"$p"
    bin=$(binary "$fl" "$k" "$c")
    note=""; [[ -x "$bin" ]] || note="  (missing binary)"
    case "$m" in
      ckpt@*) extra=" --interval ${m#ckpt@}"; m=ckpt ;;
      restart) extra=" --stop-after-epoch 1 at half-time, then restart" ;;
      *) extra="" ;;
    esac
    echo "rep $r $fl $k.$c np=$np $m$extra: $bin$note"
  done
  exit 0
fi

command -v python3 >/dev/null || usage_err "python3 is needed"
if (( need_yadokari )); then [[ -x "$yadokari" ]] || usage_err "yadokari CLI '$yadokari' not found (pass --yadokari)"; fi
for fl in "${flavours[@]}"; do
  if [[ $fl == openmpi ]]; then command -v mpirun.openmpi >/dev/null || usage_err "mpirun.openmpi not found"
  else command -v mpiexec.mpich >/dev/null || usage_err "mpiexec.mpich not found"; fi
done

if (( build )); then
  for fl in "${flavours[@]}"; do
    missing_k=()
    for k in "${kernel_list[@]}"; do
      for c in "${class_list[@]}"; do
        [[ -x "$(binary "$fl" "$k" "$c")" ]] || { missing_k+=("$k"); break; }
      done
    done
    (( ${#missing_k[@]} )) || continue
    [[ -n "$npb_src" ]] || usage_err "--build: no NPB3.4-MPI source tree found near '$npb_dir'"
    echo "$prog: building ${missing_k[*]} for $fl" >&2
    "$here/npb/build_npb.sh" --npb-dir "$npb_src" --out "$bindir" --mpi "$fl" --kernels "${missing_k[*]}" \
      --classes "$classes" --ranks "$np" >&2 || echo "$prog: warning: some builds failed" >&2
  done
fi

mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
work=$(mktemp -d "${TMPDIR:-/tmp}/npb-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
[[ -z "$keep_logs" ]] || { mkdir -p "$keep_logs"; keep_logs=$(cd "$keep_logs" && pwd); }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
host=$(hostname)
git_rev=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
run_id="$(date -u +%Y%m%dT%H%M%SZ)-$$"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
load1() { cut -d' ' -f1 /proc/loadavg; }

declare -A sim_prefix sim_args
if [[ -n "$sim" ]]; then  # the simulated cluster's launch settings, per flavour (exports its environment)
  for fl in "${flavours[@]}"; do
    settings=$("$yadokari" sim env --name "$sim" --mpi "$fl") || usage_err "--sim $sim: 'yadokari sim env' failed"
    eval "$settings"
    sim_prefix[$fl]=${sim_launch:-}; sim_args[$fl]=${sim_launcher_args:-}
  done
fi
native_cmd() { # flavour bin -> ncmd array
  ncmd=()
  if [[ -n "$sim" ]]; then
    local pre args
    read -r -a pre <<<"${sim_prefix[$1]}"; read -r -a args <<<"${sim_args[$1]}"
    ncmd=("${pre[@]}")
    if [[ $1 == openmpi ]]; then ncmd+=(mpirun.openmpi --oversubscribe "${args[@]}" -n "$np")
    else ncmd+=(mpiexec.mpich "${args[@]}" -n "$np"); fi
    ncmd+=("$2")
    return
  fi
  if [[ $1 == openmpi ]]; then
    ncmd+=(mpirun.openmpi --oversubscribe -n "$np")
    [[ -z "$hosts" ]] || ncmd+=(--host "$hosts")
  else
    ncmd+=(mpiexec.mpich -n "$np")
    [[ -z "$hosts" ]] || ncmd+=(-hosts "$hosts")
  fi
  ncmd+=("$2")
}
# run_timed LOG CMD... : runs CMD under the watchdog in $work, sets rc, wall and hung (stopped after its
# complete output: rc 0, wall up to the output)
run_timed() {
  local log=$1; shift
  local t0 t1 limit=$timeout_s
  if [[ -n "$max_minutes" ]]; then  # hard stop 3 minutes after --max-minutes: shorten the watchdog
    local left
    left=$(awk -v s="$t_start" -v m="$max_minutes" -v n="$(date +%s)" 'BEGIN { printf "%d", s + m * 60 + 180 - n }')
    (( left < limit )) && limit=$(( left > 5 ? left : 5 ))
  fi
  t0=$(now)
  (cd "$work" && exec timeout -k 10 "$limit" "$@") >"$log" 2>&1 </dev/null &
  wait_with_grace $! "$log" "$finalize_grace"
  t1=$(now)
  if [[ -n "$hung" ]]; then rc=0; t1=$output_at; stop_leftovers "$bin"; fi
  wall=$(elapsed "$t0" "$t1")
}
# stop_leftovers BINARY: after a run was stopped for hanging, processes still running the binary (a
# launcher stopped in the middle of its teardown can leave ranks behind) would disturb the next run.
stop_leftovers() {
  local i
  for ((i = 0; i < 50; i++)); do pgrep -f -- "$1" >/dev/null || return 0; sleep 0.1; done
  echo "$prog: killing processes of $1 left behind by a stopped run: $(pgrep -f -- "$1" | paste -sd' ')" >&2
  pkill -KILL -f -- "$1"
}
status_of() { # rc log expected_rc
  if (( $1 == 124 || $1 == 137 )); then echo TIMEOUT
  elif (( $1 != ${3:-0} )); then echo "EXIT-$1"
  elif ! grep -q 'Verification *= *SUCCESSFUL' "$2"; then echo UNVERIFIED
  else echo ok; fi
}

declare -A last_native   # "fl k c" -> last native wall seconds
failures=0
nruns=0
t_start=$(date +%s)
cur_group=""
echo "$prog: ${#plan[@]} runs planned -> $out (timeout ${timeout_s}s per run${max_minutes:+, no new benchmark after $max_minutes min})" >&2
for p in "${plan[@]}"; do
  read -r r fl k c m <<<"$p"
  if [[ "$r $fl $k $c" != "$cur_group" ]]; then
    cur_group="$r $fl $k $c"
    if [[ -n "$max_minutes" ]] && (( nruns > 0 )) &&
       awk -v e="$(( $(date +%s) - t_start ))" -v m="$max_minutes" 'BEGIN { exit !(e > m * 60) }'; then
      echo "$prog: --max-minutes $max_minutes reached; stopping before rep $r $fl $k.$c" >&2
      break
    fi
  fi
  bin=$(binary "$fl" "$k" "$c")
  tag="$fl.$k.$c.${m/@/}.$r"
  iv=""
  [[ $m == ckpt@* ]] && { iv=${m#ckpt@}; m=ckpt; }
  log="$work/$tag.log"
  ck="$work/ckpt.$tag"
  sets=(--set "run_id=$run_id" --set "kernel=$k" --set "class=$c" --set "mpi=$fl" --set "mode=$m"
        --set "placement=$placement" --set "host=$host" --set "git=$git_rev"
        --set "timestamp=$(date -u +%FT%TZ)" --set "binary=$bin")
  [[ -n "$sim" ]] && sets+=(--set "experiment=$sim")
  nums=(--num "ranks=$np" --num "rep=$r" --num "load_before=$(load1)")
  parse_extra=()
  if [[ ! -x "$bin" ]]; then
    echo "  $tag: missing binary $bin (use --build)" >&2
    python3 "$here/npb_parse.py" --log /dev/null "${sets[@]}" "${nums[@]}" --set status=MISSING >>"$out"
    failures=$((failures + 1)); continue
  fi
  native_cmd "$fl" "$bin"
  yk_common=(-n "$np")
  [[ -z "$hosts" ]] || yk_common+=(--hosts "$hosts")
  [[ -z "$sim" ]] || yk_common+=(--sim "$sim")
  rc=0; wall=0; hung=""
  case "$m" in
    native)
      run_timed "$log" "${ncmd[@]}"
      st=$(status_of "$rc" "$log")
      [[ $st == ok ]] && last_native["$fl $k $c"]=$wall ;;
    shim)
      run_timed "$log" "$yadokari" run "${yk_common[@]}" -- "$bin"
      st=$(status_of "$rc" "$log") ;;
    ckpt)
      rm -rf "$ck"
      run_timed "$log" "$yadokari" run "${yk_common[@]}" --ckpt-dir "$ck" --interval "$iv" -- "$bin"
      st=$(status_of "$rc" "$log")
      nums+=(--num "interval=$iv")
      parse_extra=(--ckpt-dir "$ck") ;;
    restart)
      rm -rf "$ck"
      half=$(awk -v w="${last_native["$fl $k $c"]:-}" -v i="${interval_list[0]}" \
        'BEGIN { h = (w == "" ? i : w / 2); if (h < 0.5) h = 0.5; printf "%.2f", h }')
      run_timed "$log.stop" "$yadokari" run "${yk_common[@]}" --ckpt-dir "$ck" --interval "$half" \
        --stop-after-epoch 1 -- "$bin"
      stop_rc=$rc; stop_wall=$wall
      nums+=(--num "stop_interval=$half" --num "stop_exit_code=$stop_rc" --num "stop_wall_seconds=$stop_wall")
      parse_extra=(--ckpt-dir "$ck" --log2 "$log.stop")
      if (( stop_rc == 75 )); then
        run_timed "$log" "$yadokari" restart --ckpt-dir "$ck" ${sim:+--sim "$sim"}
        st=$(status_of "$rc" "$log")
        nums+=(--num "restart_wall_seconds=$wall")
        wall=$(awk -v a="$stop_wall" -v b="$wall" 'BEGIN { printf "%.3f", a + b }')
      elif (( stop_rc == 0 )); then
        # finished before the first epoch committed: nothing to restart (class S is too short)
        cp "$log.stop" "$log"; st=NO-EPOCH; rc=0
      else
        cp "$log.stop" "$log"; st=$(status_of "$stop_rc" "$log.stop" 75); rc=$stop_rc
      fi ;;
  esac
  [[ -n "$hung" ]] && nums+=(--num "finalize_hang=1")  # the last part of the run; its time is up to the output
  nruns=$((nruns + 1))
  rec=$(python3 "$here/npb_parse.py" --log "$log" "${parse_extra[@]}" "${sets[@]}" "${nums[@]}" \
        --set "status=$st" --num "exit_code=$rc" --num "wall_seconds=$wall" --num "load_after=$(load1)")
  echo "$rec" >>"$out"
  npbt=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get("npb_seconds","-"))' "$rec")
  printf '  rep %d %-8s %-5s %-8s %-10s npb %8s s  wall %8s s\n' "$r" "$fl" "$k.$c" "$m${iv:+@$iv}" "$st" "$npbt" "$wall" >&2
  if [[ $st != ok && $st != NO-EPOCH ]]; then
    failures=$((failures + 1))
    echo "  ---- last 15 lines of $tag ----" >&2
    tail -n 15 "$log" | sed 's/^/  | /' >&2
  fi
  if [[ -n "$keep_logs" ]]; then cp "$log" "$keep_logs/$tag.log"; [[ -f "$log.stop" ]] && cp "$log.stop" "$keep_logs/$tag.stop.log"; fi
  rm -rf "$ck" "$log" "$log.stop"
done

echo "$prog: $nruns runs, $failures failed; records appended to $out" >&2
if [[ -n "$report_dir" ]]; then
  "$here/report" --out-dir "$report_dir" "$out" || failures=$((failures + 1))
fi
(( failures == 0 ))
