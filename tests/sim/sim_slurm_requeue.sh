#!/usr/bin/env bash
# Time limits and requeue under a real Slurm (issue 17): on a 3-node simulated cluster (sim up
# --slurm), examples/slurm/checkpointed_job.sbatch runs a program with a 1-minute time limit and
# --signal=B:USR1@40, one rank per node, checkpoints only on the signal (CKPT_INTERVAL=0). On the
# signal yadokari takes a checkpoint and exits 79, the script requeues the job, and the requeued
# run of the same command continues from that epoch; this repeats until the program is done.
# The first run cannot finish by itself, however fast the machine: its ranks wait half way at the
# program's pause point (YK_APP_PAUSE, tests/apps/pause_point.h) until the test has seen it stop, so
# at least one requeue happens and the work is split between the runs.
# Slurm lets a requeued job start only about two minutes later (its begin time); the test moves the
# begin time to now, which changes nothing else. Checked:
#   - the batch job ends COMPLETED with exit 0 after N >= 1 requeues (Slurm's Restarts=N), with
#     N "stopped after epoch E on SIGUSR1" lines, each followed by "continuing from epoch E";
#   - the total work equals an uninterrupted run's: every progress line the runs printed together
#     (a line printed after a checkpoint is printed again by the run that continues from it) is
#     one of the uninterrupted run's, each of its lines is there, and the final line is the same.
# usage: sim_slurm_requeue.sh YADOKARI openmpi|mpich TEMPLATE PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2" TEMPLATE="$3"
shift 3
source "$(dirname "$0")/slurm_common.sh"

in_fe() { timeout 60 "$Y" sim exec fe --name "$NAME" -- "$@"; }
if [[ "$FLAVOUR" == openmpi ]]; then
    # all nodes share the host's cores (docs/platform.md §2); the template passes no launcher options
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_hwloc_base_binding_policy=none
fi
# The batch script gets this environment (sbatch's --export=ALL), also when it is requeued.
# YK_APP_PAUSE reaches every rank: Slurm's steps (srun) and so Open MPI's daemons inherit the
# launcher's environment; the uninterrupted run's ranks on the cluster do not see it, and need not.
export YADOKARI="$Y" CKPT_DIR="$WORK/ckpt" CKPT_INTERVAL=0 YK_APP_PAUSE="$WORK/pause"
timeout -k 5 900 "$Y" sim exec fe --name "$NAME" -- sbatch --wait --parsable --time=1 --signal=B:USR1@40 \
    -N 3 --ntasks-per-node=1 --chdir "$WORK" -o "$WORK/run.out" -e "$WORK/run.err" "$TEMPLATE" "$@" \
    >sbatch.out 2>&1 </dev/null &
job=$!

# Until the batch job is over: release the first run's hold once it has stopped at its epoch, and
# let every requeued run start at once instead of two minutes later.
released=0
while kill -0 "$job" 2>/dev/null; do
    if ((!released)) && grep -q "^yadokari: stopped after epoch [0-9]* on SIGUSR1" run.err 2>/dev/null; then
        touch "$WORK/pause" "$RELEASE"
        released=1
    fi
    id=$(head -n 1 sbatch.out 2>/dev/null)
    if [[ $id =~ ^[0-9]+$ && "$(in_fe squeue -h -j "$id" -o '%T %r' 2>/dev/null)" == "PENDING BeginTime" ]]; then
        in_fe scontrol update JobId="$id" StartTime=now
    fi
    sleep 0.5
done
wait "$job"
code=$?
id=$(head -n 1 sbatch.out)
[[ $code == 0 ]] && pass "the batch job ended with exit 0" || fail "sbatch --wait exited $code: $(cat sbatch.out)"
state=$(in_fe scontrol show job "$id" -o 2>/dev/null)
restarts=$(sed -n 's/.* Restarts=\([0-9]*\) .*/\1/p' <<<"$state")
[[ "$state" == *" JobState=COMPLETED "* ]] && pass "job $id COMPLETED" || fail "job $id: $state"
stops=$(grep -c "^yadokari: stopped after epoch [0-9]* on SIGUSR1; run the same command again to continue from it$" run.err)
continues=$(grep -Ec "^yadokari: continuing from epoch [0-9]+ in $WORK/ckpt, committed [0-9T:Z-]+ by job yk-[0-9a-f]+ \(--fresh starts over\)$" run.err)
[[ $stops -ge 1 && $restarts == "$stops" && $continues == "$stops" ]] \
    && pass "$stops requeue(s): stopped on SIGUSR1 and continued each time" \
    || fail "$stops stops, $continues continuations, Slurm counts $restarts restarts"
# Each continuation names the epoch the run before it stopped after.
diff <(sed -n 's/^yadokari: stopped after epoch \([0-9]*\) on SIGUSR1.*/\1/p' run.err) \
    <(sed -n 's/^yadokari: continuing from epoch \([0-9]*\) .*/\1/p' run.err) >/dev/null \
    && pass "every requeued run continued from the epoch the run before it committed" \
    || fail "epochs: $(grep -E '^yadokari: (stopped|continuing)' run.err)"

touch "$WORK/pause"  # the uninterrupted run does not stop half way
REFERENCE_HOSTS="n1:1,n2:1,n3:1"  # read by reference_final (sim_common.sh)
final=$(reference_final 3 "$@")
got=$(grep '^final' run.out | tail -n 1)
[[ -n "$final" && "$got" == "$final" ]] && pass "same final result: $final" ||
    fail "final result '$got', expected '$final' (the reference run's stderr: $(tail -n 5 reference.err))"
[[ -e "$WORK/pause.reached" ]] && pass "the first run reached the pause point half way" || fail "the pause point was never reached"
# Progress lines: no line the reference lacks, none of its lines missing.
if diff <(grep '^step ' reference.out | sort -u) <(grep '^step ' run.out | sort -u) >iter.diff; then
    pass "the runs together did every step of the uninterrupted run ($(grep -c '^step ' reference.out) lines), with its results"
else
    fail "step lines differ from the uninterrupted run's: $(head -n 4 iter.diff)"
fi
finish
