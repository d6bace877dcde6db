#!/usr/bin/env bash
# Slurm's drain seen by a job in the allocation (docs/flows/migrate.md, "Draining a node"): on a
# 3-node simulated cluster with a real Slurm (2 slots per node), `sbatch --no-kill -N 3
# --ntasks-per-node=2` of `yadokari run -n 4 --ckpt-dir ... --max-oversubscribe 1` (ranks 0,1 on
# n1, 2,3 on n2, n3 free). `scontrol update nodename=n2 state=drain` -> the front end moves ranks
# 2,3 to n3 (a checkpoint and one restart), `yadokari status` says n2 is empty for the job; then
# n2 is killed (the administrator takes it away) and the job goes on without a second restart, to
# an uninterrupted run's final line. The job asks for live moves (--live-moves), which the
# allocation rules out (the batch node's front end does not see the other nodes' processes, and
# Slurm ends a step's processes with it): it says so once at the start and moves as without it.
# usage: sim_slurm_drain.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/slurm_common.sh"

write_run_script job.sh --ckpt-dir "$WORK/ckpt" --max-oversubscribe 1 --live-moves -- "$@"
timeout -k 5 500 "$Y" sim exec fe --name "$NAME" -- sbatch --no-kill --wait -N 3 --ntasks-per-node=2 \
    --chdir "$WORK" -o "$WORK/run.out" -e "$WORK/run.err" "$WORK/job.sh" >sbatch.out 2>&1 </dev/null &
job=$!
logged() { grep -q "$1" run.err; }

# The front end runs on the batch node n1 and its job listens there: asked from inside n1.
status_on_n1() { timeout 60 "$Y" sim exec n1 --name "$NAME" -- "$Y" status 2>&1; }
wait_for 120 eval 'status_on_n1 | grep -q "^$h-n2 .* 2,3$"' && pass "ranks 2,3 run on n2" \
    || fail "ranks 2,3 never showed on n2: $(status_on_n1 | tail -8)"

"$Y" sim exec fe --name "$NAME" -- scontrol update nodename="$h-n2" state=drain reason="yadokari test" \
    || fail "scontrol update state=drain"
logged "^yadokari: --live-moves: this job's moves restart the whole job: the front end cannot see the ranks' processes on these hosts$" \
    && pass "live moves ruled out in the allocation, said once" || fail "no --live-moves line: $(grep '^yadokari' run.err | head -3)"
why="the ranks that stay keep their processes only in a live move (\`yadokari migrate --live\`, or a job run with \`--live-moves\`)"
wait_for 60 logged "^yadokari: node $h-n2 is draining: moving ranks 2,3 to $h-n3 ($why), so the job is checkpointed and restarted with only these ranks moved$" \
    && pass "Slurm's drain seen: ranks 2,3 to $h-n3" || fail "no drain line: $(grep '^yadokari' run.err | tail -3)"
wait_for 60 eval 'status_on_n1 | grep -q "^node $h-n2 is draining: empty$"' && pass "status: $h-n2 empty for the job" \
    || fail "status never said $h-n2 is empty: $(status_on_n1 | tail -8)"
grep -q "^yadokari: drain of $h-n2: ranks 2,3 to $h-n3; restarting from epoch [0-9]* on $h-n1:2,$h-n3:2 (policy moves, ranks moved: 2,3)$" run.err \
    && pass "ranks 2,3 on $h-n3, ranks 0,1 stayed on $h-n1" || fail "placement: $(grep 'restarting from' run.err)"

# The administrator takes the drained node away: the job goes on where it runs.
"$Y" sim kill --name "$NAME" n2 >/dev/null || fail "sim kill n2"
wait_for 60 logged "^yadokari: node $h-n2 lost; no rank of the job ran there, so the job goes on without it$" \
    && pass "$h-n2 gone, no rank there: no restart" || fail "n2's loss: $(grep '^yadokari' run.err | tail -3)"
# sbatch --wait ends once Slurm has ended the job's steps on the lost node (about 16 s, docs/platform.md §6).
wait_job "$job" run.out 120
code=$?
expect_finished "$code"
restarts=$(grep -c "^yadokari: restart [0-9]* (" run.err)
[[ $restarts == 1 ]] && pass "one restart (the move)" || fail "$restarts restarts: $(grep '^yadokari: restart' run.err)"
REFERENCE_HOSTS="$h-n1:2,$h-n3:2"
expect_reference_final 4 "$@"
finish
