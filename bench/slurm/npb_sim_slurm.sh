#!/usr/bin/env bash
# NPB submitted to the simulated Slurm (issue 17): every run is one batch job on a fresh 3-node cluster
# with a real Slurm (`yadokari sim up --slurm --nodes 3 --slots 2`), 4 ranks on the allocation's 6 tasks,
# one JSON line per run in npb.sh's format (bench/npb_parse.py) and the same report (bench/report).
#
#   npb_sim_slurm.sh --npb-dir DIR [--mpi openmpi|mpich|both] [--kernels "cg mg lu"] [--class A]
#                    [--scenarios "native plain node-loss time-limit"] [--interval S] [--finalize-grace S] [--reps R]
#                    [--timeout S] [--lock FILE] [--out FILE] [--report DIR] [--keep-logs DIR] [--yadokari PATH]
#
#   --npb-dir    build_npb.sh's --out (<dir>/<mpi>/bin/<k>.<class>.4) (default: $NPB_DIR); NPB itself
#                stays outside the repository
#   --scenarios  native:     the MPI's own launcher in the batch script (mpirun.openmpi / mpiexec.mpich -n 4),
#                            no yadokari: the baseline;
#                plain:      examples/slurm/checkpointed_job.sbatch (RANKS=4) with checkpoints every --interval s,
#                            nothing happens to it;
#                node-loss:  the same; once the first epoch is committed the node holding ranks 2-3 (n2) is
#                            killed (`sim kill`), yadokari restarts the job on n1 and n3 by itself (sbatch --no-kill);
#                time-limit: the same template with a 1-minute limit and --signal=B:USR1@40, checkpoints only on
#                            the signal (CKPT_INTERVAL=0): on Slurm's signal yadokari checkpoints and exits 79,
#                            the template requeues the job, the requeued run continues from the epoch; until
#                            it completes (each requeue's two-minute begin time is moved to now).
#                (default all four)
#   --interval   checkpoint interval of plain and node-loss, seconds (default 2)
#   --finalize-grace  a native run still going this many seconds after NPB's "Verification =" line is
#                cancelled (scancel) and judged by its output (MPICH over TCP may hang in MPI_Finalize,
#                docs/platform.md §1; bench/lib/finalize_grace.sh): its record has finalize_hang 1 (default 20)
#   --reps       repetitions (default 1); --timeout per batch job, seconds (default 900)
#   --lock       a lock file taken (flock) for each kernel and MPI, from its first `sim up` to its last
#                `sim down` (a few minutes), so that its runs do not share the machine with other users of
#                the lock (e.g. /tmp/yadokari-tests.lock); default none
#   --out        JSON lines appended to (default ./npb-slurm.jsonl); --report writes report.md there
#
# The ranks of node-loss and time-limit wait at MPI_Finalize until the fault has happened
# (YADOKARI_FAULT_HOLD_FINALIZE, docs/CONTRACTS.md), so a kernel that computes faster than the fault comes
# still meets it; `fault_mid_run` in the record says whether NPB's verification line was still to come
# when it did (false: the fault met the ranks at MPI_Finalize).
# Records: npb.sh's fields with experiment "slurm-sim", mode = the scenario, placement "slurm:3x2", plus
# slurm_job_id, requeues (Slurm's Restarts), automatic_restarts, fault_mid_run. status ok only when the
# batch job ended with exit 0 (a native run cancelled by the finalize grace counts as exit 0, with
# finalize_hang 1) and NPB verified once (node-loss: and the job restarted once on n1+n3;
# time-limit: and it was requeued at least once, each run continuing from the epoch the one before
# stopped after), else FAILED or TIMEOUT. wall_seconds runs from submission to `sbatch --wait`'s return
# (Slurm polls: up to about 10 s more; requeues included).
# Needs root (the simulated cluster) and Slurm's packages (ci/install-deps.sh).
set -uo pipefail

prog=npb_sim_slurm.sh
usage_err() { echo "$prog: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=/dev/null  # bench/lib/finalize_grace.sh: wait_with_grace sets rc, hung, output_at
source "$repo/bench/lib/finalize_grace.sh"
template="$repo/examples/slurm/checkpointed_job.sbatch"

npb_dir=${NPB_DIR:-}
mpi=both
kernels="cg mg lu"
class=A
scenarios="native plain node-loss time-limit"
interval=2
finalize_grace=20
reps=1
timeout_s=900
lock=""
out=./npb-slurm.jsonl
report_dir=""
keep_logs=""
yadokari=${YADOKARI:-$repo/build/bin/yadokari}
need() { [[ $2 -ge 2 ]] || usage_err "option $1 needs a value"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --npb-dir)   need "$1" $#; npb_dir=$2; shift 2 ;;
    --mpi)       need "$1" $#; mpi=$2; shift 2 ;;
    --kernels)   need "$1" $#; kernels=$2; shift 2 ;;
    --class)     need "$1" $#; class=$2; shift 2 ;;
    --scenarios) need "$1" $#; scenarios=$2; shift 2 ;;
    --interval)  need "$1" $#; interval=$2; shift 2 ;;
    --finalize-grace) need "$1" $#; finalize_grace=$2; shift 2 ;;
    --reps)      need "$1" $#; reps=$2; shift 2 ;;
    --timeout)   need "$1" $#; timeout_s=$2; shift 2 ;;
    --lock)      need "$1" $#; lock=$2; shift 2 ;;
    --out)       need "$1" $#; out=$2; shift 2 ;;
    --report)    need "$1" $#; report_dir=$2; shift 2 ;;
    --keep-logs) need "$1" $#; keep_logs=$2; shift 2 ;;
    --yadokari)  need "$1" $#; yadokari=$2; shift 2 ;;
    *) usage_err "unknown option $1" ;;
  esac
done
[[ -n "$npb_dir" ]] || usage_err "--npb-dir (or NPB_DIR) is required"
case "$mpi" in both) flavours="openmpi mpich" ;; openmpi|mpich) flavours=$mpi ;; *) usage_err "--mpi: openmpi, mpich or both" ;; esac
for s in $scenarios; do
  case "$s" in native|plain|node-loss|time-limit) ;; *) usage_err "unknown scenario '$s'" ;; esac
done
[[ $interval =~ ^[0-9]+(\.[0-9]+)?$ ]] || usage_err "--interval must be a number of seconds"
[[ $finalize_grace =~ ^[1-9][0-9]*$ ]] || usage_err "--finalize-grace must be a positive integer"
[[ $reps =~ ^[1-9][0-9]*$ ]] || usage_err "--reps must be a positive integer"
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || usage_err "--timeout must be a positive integer"
[[ $(id -u) == 0 ]] || usage_err "the simulated cluster needs root"
[[ -x "$yadokari" ]] || usage_err "no yadokari CLI at $yadokari (build first)"
for tool in munged slurmctld slurmd sbatch; do
  command -v "$tool" >/dev/null || usage_err "$tool is not installed (ci/install-deps.sh installs Slurm)"
done
[[ -z "$keep_logs" ]] || mkdir -p "$keep_logs"
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")

export YADOKARI_SIM_DIR
YADOKARI_SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/yk-npb-slurm-sim.XXXXXX")
work=$(mktemp -d "${TMPDIR:-/tmp}/yk-npb-slurm.XXXXXX")
name="ns$$"
name=${name:0:10}
netns_before=$(ip netns list 2>/dev/null | sort)
cleanup() {
  "$yadokari" sim down --name "$name" >/dev/null 2>&1
  rm -rf "$work" "$YADOKARI_SIM_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

run_id="slurm-$(date -u +%Y%m%dT%H%M%SZ)"
git_rev=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
in_fe() { timeout 60 "$yadokari" sim exec fe --name "$name" -- "$@"; }

# native_script FLAVOUR BIN: the baseline's batch script (the MPI's launcher sees the allocation).
native_script() {
  echo '#!/bin/bash'
  if [[ $1 == openmpi ]]; then
    printf 'exec mpirun.openmpi -n 4 --bind-to none %q\n' "$2"
  else
    printf 'exec mpiexec.mpich -n 4 %q\n' "$2"
  fi
}

failures=0
for ((rep = 1; rep <= reps; rep++)); do
  for fl in $flavours; do
    for k in $kernels; do
      bin="$npb_dir/$fl/bin/$k.$class.4"
      if [[ -n "$lock" ]]; then exec 9>"$lock"; flock 9; fi
      for scenario in $scenarios; do
        tag="$fl.$k.$class.$scenario.$rep"
        run="$work/$tag"
        mkdir -p "$run"
        sets=(--set "run_id=$run_id" --set "kernel=$k" --set "class=$class" --set "mpi=$fl" --set "mode=$scenario"
              --set "placement=slurm:3x2" --set "experiment=slurm-sim" --set "host=$(hostname)" --set "git=$git_rev"
              --set "timestamp=$(date -u +%FT%TZ)" --set "binary=$bin")
        nums=(--num "ranks=4" --num "rep=$rep")
        if [[ ! -x "$bin" ]]; then
          echo "  $tag: missing binary $bin (bench/npb/build_npb.sh)" >&2
          python3 "$repo/bench/npb_parse.py" --log /dev/null "${sets[@]}" "${nums[@]}" --set status=MISSING >>"$out"
          failures=$((failures + 1))
          continue
        fi
        "$yadokari" sim up --nodes 3 --slots 2 --slurm --name "$name" >"$run/up.out" 2>&1 ||
          { echo "$prog: sim up --slurm failed: $(tail -n 3 "$run/up.out")" >&2; exit 1; }
        # The batch script gets this environment (sbatch's --export=ALL), also when requeued.
        export YADOKARI="$yadokari" CKPT_DIR="$run/ckpt" CKPT_INTERVAL="$interval" RANKS=4
        export YADOKARI_STATE_DIR="$run/jobs"
        unset YADOKARI_FAULT_HOLD_FINALIZE
        [[ $scenario == node-loss || $scenario == time-limit ]] && export YADOKARI_FAULT_HOLD_FINALIZE="$run/release"
        if [[ $fl == openmpi ]]; then
          export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_hwloc_base_binding_policy=none
        fi
        args=(--wait --parsable -N 3 --ntasks-per-node=2 --chdir "$run" -o "$run/run.out" -e "$run/run.err")
        case "$scenario" in
          native)     native_script "$fl" "$bin" >"$run/native.sh"; chmod +x "$run/native.sh"
                      args+=("$run/native.sh") ;;
          time-limit) export CKPT_INTERVAL=0
                      args+=(--time=1 --signal=B:USR1@40 "$template" "$bin") ;;
          *)          args+=("$template" "$bin") ;;
        esac
        start=$(date +%s.%N)
        timeout -k 5 "$timeout_s" "$yadokari" sim exec fe --name "$name" -- sbatch "${args[@]}" \
          >"$run/sbatch.out" 2>&1 </dev/null &
        job=$!
        acted=0
        mid_run=""
        hung=""
        if [[ $scenario == native ]]; then
          # Nothing to act on and no requeue: wait, and stop a run that hangs in MPI_Finalize after its output.
          wait_with_grace "$job" "$run/run.out" "$finalize_grace"
          if [[ -n "$hung" ]]; then
            id=$(head -n 1 "$run/sbatch.out" 2>/dev/null)
            [[ $id =~ ^[0-9]+$ ]] && in_fe scancel "$id"
            echo "  $fl.$k.$class native: still in MPI_Finalize ${finalize_grace} s after NPB's output; cancelled" >&2
          fi
        fi
        while kill -0 "$job" 2>/dev/null; do
          id=$(head -n 1 "$run/sbatch.out" 2>/dev/null)
          if ((!acted)); then
            case "$scenario" in
              node-loss)
                if ls "$run"/ckpt/*/MANIFEST >/dev/null 2>&1; then
                  acted=1
                  grep -q "Verification" "$run/run.out" 2>/dev/null && mid_run=false || mid_run=true
                  "$yadokari" sim kill --name "$name" n2 >/dev/null
                  touch "$run/release"
                fi ;;
              time-limit)
                if grep -q "^yadokari: stopped after epoch [0-9]* on SIGUSR1" "$run/run.err" 2>/dev/null; then
                  acted=1
                  grep -q "Verification" "$run/run.out" 2>/dev/null && mid_run=false || mid_run=true
                  touch "$run/release"
                fi ;;
            esac
          fi
          # A requeued job would wait two minutes for its begin time.
          if [[ $id =~ ^[0-9]+$ && "$(in_fe squeue -h -j "$id" -o '%T %r' 2>/dev/null)" == "PENDING BeginTime" ]]; then
            in_fe scontrol update JobId="$id" StartTime=now
          fi
          sleep 0.5
        done
        end=$(date +%s.%N)
        if [[ $scenario == native ]]; then
          # shellcheck disable=SC2154  # output_at: set by wait_with_grace
          [[ -n "$hung" ]] && { rc=0; end=$output_at; }  # judged by its output; its time is up to the output
        else
          wait "$job"
          rc=$?
        fi
        wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
        id=$(head -n 1 "$run/sbatch.out")
        requeues=$(in_fe scontrol show job "$id" -o 2>/dev/null | sed -n 's/.* Restarts=\([0-9]*\) .*/\1/p')
        cat "$run/run.out" "$run/run.err" >"$run/log" 2>/dev/null
        restarts=$(grep -c "^yadokari: restart [0-9]* (" "$run/run.err" 2>/dev/null)
        stops=$(sed -n 's/^yadokari: stopped after epoch \([0-9]*\) on SIGUSR1.*/\1/p' "$run/run.err" 2>/dev/null)
        continued=$(sed -n 's/^yadokari: continuing from epoch \([0-9]*\) .*/\1/p' "$run/run.err" 2>/dev/null)
        verified=$(grep -c "Verification *= *SUCCESSFUL" "$run/run.out" 2>/dev/null)
        if ((rc == 124 || rc == 137)); then st=TIMEOUT
        elif ((rc != 0 || verified != 1)); then st=FAILED
        elif [[ $scenario == node-loss ]] && ! ((acted && restarts == 1)); then st=FAILED
        elif [[ $scenario == node-loss ]] && ! grep -q "restarting from epoch [0-9]* on yk$name-n1:2,yk$name-n3:2 " "$run/run.err"; then st=FAILED
        elif [[ $scenario == time-limit ]] && ! ((acted && requeues >= 1)); then st=FAILED
        elif [[ $scenario == time-limit && ( -z "$stops" || "$stops" != "$continued" || $(wc -l <<<"$stops") != "$requeues" ) ]]; then st=FAILED
        else st=ok; fi
        parse_extra=()
        [[ $scenario == native ]] || parse_extra=(--ckpt-dir "$run/ckpt")
        [[ $scenario == native || $scenario == time-limit ]] || nums+=(--num "interval=$interval")
        rec=$(python3 "$repo/bench/npb_parse.py" --log "$run/log" "${parse_extra[@]}" "${sets[@]}" "${nums[@]}" \
          --set "status=$st" --set "slurm_job_id=$id" --num "exit_code=$rc" --num "wall_seconds=$wall" \
          --num "requeues=${requeues:-}" --num "automatic_restarts=$restarts" --set "fault_mid_run=$mid_run" \
          ${hung:+--num finalize_hang=1})
        echo "$rec" >>"$out"
        npbt=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get("npb_seconds","-"))' "$rec")
        printf '  rep %d %-8s %-5s %-11s %-7s npb %8s s  wall %8s s  requeues %s  restarts %s  mid-run %s\n' \
          "$rep" "$fl" "$k.$class" "$scenario" "$st" "$npbt" "$wall" "${requeues:--}" "$restarts" "${mid_run:--}" >&2
        if [[ $st != ok ]]; then
          failures=$((failures + 1))
          tail -n 15 "$run/log" | sed 's/^/  | /' >&2
        fi
        [[ -z "$keep_logs" ]] || cp "$run/log" "$keep_logs/$tag.log"
        "$yadokari" sim down --name "$name" >/dev/null 2>&1 || { echo "$prog: sim down failed" >&2; exit 1; }
        [[ "$(ip netns list 2>/dev/null | sort)" == "$netns_before" ]] ||
          { echo "$prog: named namespaces left after sim down: $(ip netns list)" >&2; exit 1; }
        rm -rf "$run"
      done
      if [[ -n "$lock" ]]; then flock -u 9; exec 9>&-; fi
    done
  done
done
echo "$prog: $failures run(s) not ok; records appended to $out" >&2
if [[ -n "$report_dir" ]]; then
  "$repo/bench/report" --out-dir "$report_dir" "$out" || failures=$((failures + 1))
fi
((failures == 0))
