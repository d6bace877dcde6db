#!/usr/bin/env bash
# `yadokari run` inside a Slurm allocation (issue 17): on a 3-node simulated cluster with a real
# Slurm (sim up --slurm, 2 slots per node), `sbatch --no-kill --wait -N 3 --ntasks-per-node=2` of a
# script that runs `yadokari run -n 4 --ckpt-dir ... --interval 1` with no --hosts: the front end
# takes its nodes from the allocation, starts the agents as job steps (srun --overlap) and the ranks
# with the MPI's launcher through Slurm: 4 ranks on n1 and n2 (2 slots each). Once an epoch is
# committed (a MANIFEST), n2 (ranks, not the batch host) is killed. Checked:
#   - the agents are srun steps with their credentials over stdin (the secret on no command line);
#   - the loss is detected, the job restarts once on the survivors n1 and n3 and the batch job ends
#     by itself with exit 0 (Slurm does not kill it: --no-kill, docs/platform.md §6);
#   - the final line equals an uninterrupted run's on the survivors;
#   - `yadokari status` on n1 shows the Slurm job RUNNING, its nodes ALLOCATED, n2 DOWN after the
#     kill, and a "Slurm not reachable" line at once when SLURM_CONF names no file.
# usage: sim_slurm_run.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/slurm_common.sh"

ckpt="$WORK/ckpt"
# The batch script runs on the allocation's first node (n1) with this environment (sbatch's
# --export=ALL): the state directory, the finalize hold, the MPI settings.
write_run_script job.sh --ckpt-dir "$ckpt" --interval 1 -- "$@"
timeout -k 5 500 "$Y" sim exec fe --name "$NAME" -- sbatch --no-kill --wait -N 3 --ntasks-per-node=2 \
    --chdir "$WORK" -o "$WORK/run.out" -e "$WORK/run.err" "$WORK/job.sh" >sbatch.out 2>&1 </dev/null &
job=$!

for _ in $(seq 2400); do
    ls "$ckpt"/*/MANIFEST >/dev/null 2>&1 && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.05
done
ls "$ckpt"/*/MANIFEST >/dev/null 2>&1 && pass "an epoch was committed" \
    || fail "no epoch committed: $(cat sbatch.out; tail -5 run.err)"
# The agents of n2 and n3 are job steps (srun, credentials over stdin); n1's (the batch host, where
# the front end runs) is local and has them in its environment.
# (srun forks a helper with its own command line: the steps are counted by node.)
remote=$(pgrep -af "^[^ ]*/yadokari agent --coordinator .* --node $h-n[23] --credentials-stdin")
step_nodes=$(pgrep -af "srun --overlap -N1 -n1 -w $h-n[23] " | grep -o -- "-w $h-n[23]" | sort -u)
[[ $(wc -l <<<"$remote") == 2 && $(wc -l <<<"$step_nodes") == 2 ]] \
    && pass "the agents of n2 and n3 run as srun steps, credentials over stdin" \
    || fail "agents: $remote; srun steps: $step_nodes; $(ps -eo pid,ppid,args | grep -E 'yadokari agent|srun|slurmstepd' | grep -v grep)"
secret=$(python3 -c 'import json,glob,sys; print(json.load(open(glob.glob(sys.argv[1] + "/jobs/*.json")[0]))["credential"])' \
    "$YADOKARI_STATE_DIR" 2>/dev/null)
if [[ -z "$secret" ]]; then
    fail "no job record with a credential in $YADOKARI_STATE_DIR"
elif pgrep -af "yadokari agent|srun" | grep -q -- "$secret"; then
    fail "the job credential is on a command line"
else
    pass "the job credential is on no command line"
fi

# Slurm's view in `yadokari status`, asked where the job runs (the batch node n1): the job, its
# allocation and every node's Slurm state; with a broken Slurm configuration, one line saying so.
slurm_id=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' sbatch.out)
status_on_n1() { timeout 60 "$Y" sim exec n1 --name "$NAME" -- "$@" "$Y" status 2>&1; }
shown=$(status_on_n1 env)
if grep -q "^slurm job $slurm_id  RUNNING  nodes $h-n\[1-3\]$" <<<"$shown" &&
    [[ $(grep -Ec "^$h-n[123] +ALLOCATED$" <<<"$shown") == 3 ]]; then
    pass "status shows Slurm job $slurm_id RUNNING on $h-n[1-3], every node ALLOCATED"
else
    fail "status's Slurm view: $shown"
fi
shown=$(status_on_n1 env SLURM_CONF=/nonexistent/slurm.conf)
# (scontrol itself would retry the missing file for a minute: the file is checked first.)
grep -q "^slurm job $slurm_id: Slurm not reachable: SLURM_CONF=/nonexistent/slurm.conf cannot be read: No such file or directory$" <<<"$shown" &&
    grep -q "^automatic restarts: 0$" <<<"$shown" \
    && pass "Slurm not reachable: $(grep '^slurm job' <<<"$shown")" || fail "status without Slurm: $shown"

"$Y" sim kill --name "$NAME" n2 >/dev/null || fail "sim kill n2"
# Slurm marks the lost node DOWN after its own timeout (docs/platform.md §6) and drops it from the
# job's node list; status still shows it, as one of the nodes the job started with. The ranks wait
# at MPI_Finalize (YADOKARI_FAULT_HOLD_FINALIZE) until wait_job, so the job is there to be asked.
down() { shown=$(status_on_n1 env); grep -Eq "^$h-n2 +DOWN" <<<"$shown"; }
for _ in $(seq 120); do down && break; sleep 1; done
down && pass "status shows Slurm's $(grep -E "^$h-n2 +DOWN" <<<"$shown" | tr -s ' ')" \
    || fail "Slurm's view never showed $h-n2 DOWN: $shown"
# The batch job ends once Slurm has ended its steps on the lost node (it marks it DOWN after about
# 16 s, docs/platform.md §6) and sbatch --wait has polled its state: a grace of 120 s after the
# final line, not 20.
wait_job "$job" run.out 120
code=$?
expect_finished "$code"  # sbatch --wait's exit code is the batch script's (MPICH: see wait_job)
grep -q "^yadokari: node $h-n2 lost" run.err && pass "loss of $h-n2 detected" || fail "no loss line"
restarts=$(grep -c "^yadokari: restart [0-9]* (" run.err)
[[ $restarts == 1 ]] && pass "one automatic restart" || fail "$restarts automatic restarts: $(tail -5 run.err)"
grep -Eq "^yadokari: node $h-n2 lost; restarting from epoch [0-9]+ on $h-n1:2,$h-n3:2 " run.err \
    && pass "restarted on the survivors: $(grep "restarting from epoch" run.err | sed 's/^yadokari: //')" \
    || fail "restart placement: $(grep "restarting from epoch" run.err)"
# Reference: an uninterrupted run on the survivors (sim platform, no Slurm).
REFERENCE_HOSTS="$h-n1:2,$h-n3:2"
expect_reference_final 4 "$@"
finish
