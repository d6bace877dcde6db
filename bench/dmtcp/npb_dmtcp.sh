#!/usr/bin/env bash
# Side by side on the same NPB binary and rank count: one checkpoint taken by DMTCP (dmtcp_launch
# around the MPI launcher, `dmtcp_command --bcheckpoint`) and one by yadokari (`yadokari run`,
# `yadokari checkpoint`), the job stopped after it, then restarted from it by each tool until NPB
# prints its verification. One JSON line per tool and repetition.
#
#   DMTCP_ROOT=<DMTCP prefix> flock /tmp/yadokari-tests.lock bench/dmtcp/npb_dmtcp.sh --npb-dir DIR
#       [--mpi openmpi|mpich] [--kernels "cg mg"] [--classes B] [--np 2] [--reps R] [--after S]
#       [--tools "dmtcp dmtcp-nogzip yadokari yadokari-fg"] [--yadokari PATH] [--out FILE] [--keep-logs DIR]
#
# --npb-dir: NPB built by bench/npb/build_npb.sh (<dir>/<mpi>/bin/<kernel>.<class>.<np>; default $NPB_DIR);
# --after: seconds after NPB's "Number of processes" line at which the checkpoint is asked for (default 3);
# --tools: dmtcp (DMTCP's default, gzip'd images), dmtcp-nogzip (--no-gzip), yadokari (images written in
# the background, the default), yadokari-fg (YADOKARI_CKPT_BACKGROUND=off: written while the ranks wait);
# --reps: repetitions of every tool (default 1; they run one after the other, never two at once);
# --out: JSON lines appended there (default ./npb-dmtcp.jsonl); --keep-logs: every run's logs go there.
# Without DMTCP_ROOT it prints one line and exits 0 (DMTCP is not packaged for Debian 12 and is not a
# dependency; build its public source with ./configure --prefix=P && make && make install).
#
# Fields: pause_seconds — DMTCP: the wall time of `dmtcp_command --bcheckpoint` (DMTCP stops every
# process for the whole write); yadokari: the slowest rank's pause_seconds of the epoch's MANIFEST.
# ckpt_command_seconds — wall time of the checkpoint command. image_bytes_per_rank — the ranks' images
# (DMTCP's image of the launcher, mpirun/mpiexec, is launcher_image_bytes). gap_seconds/median_gap_seconds —
# longest and median interval between the job's progress lines, DMTCP runs only (CG prints one per
# iteration, so the difference is the stall the application saw; yadokari's job ends at its epoch). restart_resume_seconds — from the restart command to the
# job's first progress line (CG: an iteration); restart_seconds — to NPB's verification line of the
# restarted run; verification — NPB's, of the restarted run; finalize_hang — 1 when the restarted job was
# still alive 20 s after that line and was stopped.
#
# The MPIs are kept on transports DMTCP can checkpoint (the same options for both tools):
#  Open MPI 4.1: --mca btl tcp,self --mca pml ob1 (no shared-memory BTL, no UCX); --mca rtc ^hwloc (no
#    hwloc.sm shared-memory topology in mpirun's session directory: the ranks map it, and it is deleted
#    when mpirun ends, so `dmtcp_restart` stops with `File not found: path=/tmp/ompi.vm.0/pid.N/hwloc.sm`);
#    PMIX_MCA_gds=hash (no PMIx dstore shared memory); HWLOC_COMPONENTS=-linux (without it DMTCP's file
#    plugin stops mpirun at launch: `Unimplemented file type: path=vda`); DMTCP_SIGCKPT=40 (Open MPI uses
#    SIGUSR2, DMTCP's default checkpoint signal).
#  MPICH 4.0 (ch4:ucx): UCX_TLS=tcp,self UCX_NET_DEVICES=lo and UCX's memory hooks off (UCX_MEM_EVENTS=no
#    UCX_MEM_MALLOC_HOOKS=no UCX_MEM_MMAP_HOOK_MODE=none; with them the ranks die of SIGSEGV under
#    dmtcp_launch before the first iteration); hydra's -launcher fork. LU on MPICH is not checkpointed by
#    DMTCP even so: at start UCX asks for a huge-page SysV segment (refused here), then calls
#    shmctl(0, IPC_INFO), on which DMTCP's SysV IPC plugin asserts (`shmctl virtual id has no real
#    mapping: shmid=0`); UCX_ALLOC_PRIO does not avoid it and the plugin cannot be turned off.
set -uo pipefail
prog=npb_dmtcp.sh
if [[ -z "${DMTCP_ROOT:-}" ]]; then
  echo "bench: DMTCP_ROOT not set; skipping the DMTCP comparison"
  exit 0
fi
repo=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "$prog: error: $*" >&2; exit 2; }
npb_dir=${NPB_DIR:-}; mpi=openmpi; kernels="cg mg"; classes="B"; np=2; reps=1; after=3
tools="dmtcp dmtcp-nogzip yadokari yadokari-fg"; yadokari="${YADOKARI:-$repo/build/bin/yadokari}"
out="$PWD/npb-dmtcp.jsonl"; keep=""
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || die "$1 needs a value"
  case "$1" in
    --npb-dir) npb_dir=$2 ;; --mpi) mpi=$2 ;; --kernels) kernels=$2 ;; --classes) classes=$2 ;;
    --np) np=$2 ;; --reps) reps=$2 ;; --after) after=$2 ;; --tools) tools=$2 ;; --yadokari) yadokari=$2 ;;
    --out) out=$2 ;; --keep-logs) keep=$2 ;;
    *) die "unknown option $1" ;;
  esac
  shift 2
done
[[ -n "$npb_dir" ]] || die "--npb-dir (or NPB_DIR) is required"
D="$DMTCP_ROOT/bin"
for tool in dmtcp_launch dmtcp_command dmtcp_restart; do [[ -x "$D/$tool" ]] || die "$D/$tool not found"; done
[[ -x "$yadokari" ]] || die "$yadokari not built"
bindir=$npb_dir; [[ -d "$npb_dir/npb-build" ]] && bindir="$npb_dir/npb-build"
[[ -n "$keep" ]] && mkdir -p "$keep"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GFORTRAN_UNBUFFERED_PRECONNECTED=y
case "$mpi" in
  openmpi)
    export HWLOC_COMPONENTS=-linux PMIX_MCA_gds=hash DMTCP_SIGCKPT=40
    mpi_args=(--oversubscribe --mca btl "tcp,self" --mca pml ob1 --mca rtc "^hwloc"
              -x HWLOC_COMPONENTS -x PMIX_MCA_gds -x GFORTRAN_UNBUFFERED_PRECONNECTED)
    launcher=mpirun.openmpi ;;
  mpich)
    export UCX_TLS=tcp,self UCX_NET_DEVICES=lo UCX_MEM_EVENTS=no UCX_MEM_MALLOC_HOOKS=no \
           UCX_MEM_MMAP_HOOK_MODE=none HWLOC_COMPONENTS=-linux DMTCP_SIGCKPT=40
    mpi_args=(-launcher fork -genvall)
    launcher=mpiexec.mpich ;;
  *) die "--mpi must be openmpi or mpich" ;;
esac

# Every output line with the time it arrived: "<epoch seconds> <line>".
stamp() { python3 -u -c 'import sys, time
for line in sys.stdin: sys.stdout.write(f"{time.time():.3f} {line}"); sys.stdout.flush()'; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# Wait until FILE has a line matching RE, or PID ended; 1 if it never came.
wait_line() { for _ in $(seq 3000); do grep -qE "$2" "$1" 2>/dev/null && return 0; kill -0 "$3" 2>/dev/null || break; sleep 0.1; done
  grep -qE "$2" "$1" 2>/dev/null; }
header='Number of processes|Total number of processes'
# Wait for the restarted job (pipeline PID, its LOG); once NPB printed its verification, give it
# $grace seconds to end, then stop it with the rest of the arguments (MPICH over TCP may hang in
# MPI_Finalize, docs/platform.md §1): finalize_hang=1, and the restart counts as ended at that line.
grace=20; finalize_hang=0
wait_end() {
  local pid=$1 log=$2 seen=""; shift 2; pids+=("$pid")
  while kill -0 "$pid" 2>/dev/null; do
    [[ -z $seen ]] && grep -qiE "verification *(= *)?(SUCCESSFUL|UNSUCCESSFUL|FAILED)" "$log" 2>/dev/null && seen=$SECONDS
    if [[ -n $seen ]] && ((SECONDS - seen >= grace)); then
      "$@" >/dev/null 2>&1; finalize_hang=1; wait "$pid"; return 0
    fi
    sleep 0.2
  done
  wait "$pid"
}
dmtcp_stop() { [[ -s "$1" ]] && "$D/dmtcp_command" --coord-port "$(cat "$1")" --quit; }
yadokari_stop() { [[ -s "$1" ]] && kill -TERM "$(cat "$1")"; }

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -- "$p" 2>/dev/null; done
  [[ -n "${work:-}" && -d "$work" ]] && rm -rf "$work"
}
trap cleanup EXIT

one() {  # tool kernel class rep
  local tool=$1 k=$2 c=$3 rep=$4
  local bin="$bindir/$mpi/bin/$k.$c.$np" status=ok; finalize_hang=0
  [[ -x "$bin" ]] || die "$bin not found"
  work=$(mktemp -d "${TMPDIR:-/tmp}/npb-dmtcp.XXXXXX")
  local t0 t1 ckpt_rc rs restart_rc pause="" images="" launcher_img="" cmd_s
  cd "$work" || die "cannot enter $work"
  if [[ $tool == dmtcp* ]]; then
    local gz=--gzip; [[ $tool == dmtcp-nogzip ]] && gz=--no-gzip
    ( timeout -k 5 1200 "$D/dmtcp_launch" --new-coordinator --coord-port 0 --port-file "$work/port" --ckptdir "$work" \
        "$gz" "$launcher" -n "$np" "${mpi_args[@]}" "$bin" 2>&1 | stamp >"$work/run.log" ) &
    local job=$!; pids+=("$job")
    wait_line "$work/run.log" "$header" "$job" || { status=NO-START; }
    if [[ $status == ok ]]; then
      sleep "$after"
      t0=$(now); timeout 600 "$D/dmtcp_command" --coord-port "$(cat "$work/port")" --bcheckpoint >"$work/ckpt.txt" 2>&1
      ckpt_rc=$?; t1=$(now); cmd_s=$(elapsed "$t0" "$t1"); pause=$cmd_s
      sleep 2   # a few iterations after the checkpoint, for the output gap
      "$D/dmtcp_command" --coord-port "$(cat "$work/port")" --quit >/dev/null 2>&1
      ((ckpt_rc == 0)) || status=CKPT-FAILED
    fi
    wait "$job" 2>/dev/null
    mapfile -t rank_imgs < <(find "$work" -maxdepth 1 -name "ckpt_$k.$c.${np}_*.dmtcp" | sort)
    mapfile -t all_imgs < <(find "$work" -maxdepth 1 -name 'ckpt_*.dmtcp' | sort)
    images=$(for f in "${rank_imgs[@]}"; do stat -c %s "$f"; done | paste -sd, -)
    launcher_img=$(for f in "${all_imgs[@]}"; do [[ $f == *"ckpt_$k.$c.$np"_* ]] || stat -c %s "$f"; done | paste -sd, -)
    if [[ $status == ok && ${#all_imgs[@]} -gt 0 ]]; then
      rs=$(now)
      { timeout -k 5 1200 "$D/dmtcp_restart" --new-coordinator --coord-port 0 --port-file "$work/rport" "${all_imgs[@]}" &
        echo $! >"$work/rpid"; wait $!; } 2>&1 | stamp >"$work/restart.log" &
      wait_end $! "$work/restart.log" dmtcp_stop "$work/rport"; restart_rc=$?
    fi
  else
    local bg=on; [[ $tool == yadokari-fg ]] && bg=off
    export YADOKARI_STATE_DIR="$work/state"
    ( YADOKARI_CKPT_BACKGROUND=$bg timeout -k 5 1200 "$yadokari" run -n "$np" --mpi "$mpi" --ckpt-dir "$work/ckpt" \
        --interval 0 --stop-after-epoch 1 --mpi-args "${mpi_args[*]}" -- "$bin" 2>&1 | stamp >"$work/run.log" ) &
    local job=$!; pids+=("$job")
    wait_line "$work/run.log" "$header" "$job" || { status=NO-START; }
    if [[ $status == ok ]]; then
      sleep "$after"
      t0=$(now); timeout 600 "$yadokari" checkpoint >"$work/ckpt.txt" 2>&1; ckpt_rc=$?; t1=$(now)
      cmd_s=$(elapsed "$t0" "$t1")
      ((ckpt_rc == 0)) || status=CKPT-FAILED
    fi
    wait "$job" 2>/dev/null
    if [[ -f "$work/ckpt/1/MANIFEST" ]]; then
      pause=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(max(i.get("pause_seconds",0) for i in m["images"]))' "$work/ckpt/1/MANIFEST")
      images=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(",".join(str(i["size"]) for i in sorted(m["images"], key=lambda i: i["rank"])))' "$work/ckpt/1/MANIFEST")
      rs=$(now)
      { YADOKARI_CKPT_BACKGROUND=$bg timeout -k 5 1200 "$yadokari" restart --ckpt-dir "$work/ckpt" &
        echo $! >"$work/rpid"; wait $!; } 2>&1 | stamp >"$work/restart.log" &
      wait_end $! "$work/restart.log" yadokari_stop "$work/rpid"; restart_rc=$?
    elif [[ $status == ok ]]; then status=NO-EPOCH
    fi
  fi
  [[ $status == ok && ${restart_rc:-1} -ne 0 ]] && status="RESTART-EXIT-$restart_rc"
  # The restarted part: NPB's result lines (stamps removed) for npb_parse.py, and its times.
  sed -E 's/^[0-9.]+ //' "$work/restart.log" >"$work/restart.txt" 2>/dev/null || : >"$work/restart.txt"
  grep -q "Verification *= *SUCCESSFUL\|VERIFICATION SUCCESSFUL" "$work/restart.txt" || { [[ $status == ok ]] && status=NOT-VERIFIED; }
  local rec
  rec=$(python3 "$repo/bench/npb_parse.py" --log "$work/restart.txt" --set "kernel=$k" --set "class=$c" --set "mpi=$mpi" \
        --set "mode=$tool" --set placement=local --set "status=$status" --num "ranks=$np" --num "rep=$rep" \
        --num "finalize_hang=$finalize_hang")
  python3 - "$rec" "$work" "${rs:-}" "${pause:-}" "${cmd_s:-}" "$images" "$launcher_img" >>"$out" <<'PY'
import json, re, statistics, sys
rec, work, rs, pause, cmd, images, launcher = sys.argv[1:8]
r = json.loads(rec)
def lines(name):
    try:
        return [(float(l.split(" ", 1)[0]), l.split(" ", 1)[1] if " " in l else "") for l in open(f"{work}/{name}")]
    except OSError:
        return []
num = lambda s: float(s) if s else None
ints = lambda s: [int(x) for x in s.split(",") if x]
r["load_after"] = float(open("/proc/loadavg").read().split()[0])  # 1-minute load average at the end
r["pause_seconds"] = num(pause)
r["ckpt_command_seconds"] = num(cmd)
r["image_bytes_per_rank"] = ints(images) or None
r["launcher_image_bytes"] = ints(launcher) or None
# NPB's progress lines: CG's per-iteration line, MG's "iter N", LU's "Time step N".
npb = lambda l: re.match(r"^\s+\d+\s+-?\d*\.\d|^\s*iter\s+\d+\s*$|^\s*Time step\s+\d+\s*$", l)
run = [t for t, l in lines("run.log") if npb(l)]
# yadokari's job stops once its epoch commits (--stop-after-epoch 1): no line after the checkpoint.
gaps = [b - a for a, b in zip(run, run[1:])] if r["mode"].startswith("dmtcp") else []
r["gap_seconds"] = round(max(gaps), 3) if gaps else None
r["median_gap_seconds"] = round(statistics.median(gaps), 3) if gaps else None
rest = [t for t, l in lines("restart.log") if npb(l)]
r["restart_resume_seconds"] = round(rest[0] - float(rs), 3) if rest and rs else None
end = [t for t, l in lines("restart.log") if re.search(r"verification", l, re.I)]
r["restart_seconds"] = round(end[-1] - float(rs), 3) if end and rs else None
print(json.dumps(r))
PY
  echo "$prog: $mpi $k.$c.$np $tool rep $rep: $status pause ${pause:-?}s images ${images:-none}" >&2
  cd / || true
  if [[ -n "$keep" ]]; then
    local dest="$keep/$k.$c.$np-$mpi-$tool-$rep"; mkdir -p "$dest"
    cp "$work"/*.log "$work"/ckpt.txt "$dest/" 2>/dev/null; cp "$work"/ckpt/1/MANIFEST "$dest/" 2>/dev/null
  fi
  rm -rf "$work"; work=""
  [[ $status == ok ]]
}

rc_all=0
for k in $kernels; do
  for c in $classes; do
    for rep in $(seq 0 $((reps - 1))); do
      for tool in $tools; do
        one "$tool" "$k" "$c" "$rep" || rc_all=1
      done
    done
  done
done
exit "$rc_all"
