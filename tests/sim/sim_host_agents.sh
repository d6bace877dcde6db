#!/usr/bin/env bash
# A job on hosts (`yadokari run --hostfile`, no --sim): the front end starts a node agent on every
# host through a remote shell, as it would with ssh on a real cluster, and another host joins the
# running job with `yadokari join`. Here the "ssh" is the simulated cluster's launch agent
# (YADOKARI_RSH and the MPI launchers' rsh agent), and the front end runs in the cluster's
# frontend, whose hostname resolves to the address the nodes reach.
# The job: 4 ranks on n1 and n2 (2 slots each), a checkpoint every second, coordinator on a fixed
# --port; n3 joins; once an epoch is committed, n2 is killed. Checked:
#   - an unknown host stops the job before anything starts, saying which (remote shell exit 255);
#   - --hostfile with a bad line is refused with the file and line; neither refusal leaves a job record;
#   - the agents get their credentials over stdin: the job secret is on no command line;
#   - the join is logged; the loss is detected; the job restarts once, on n1 and the joined n3, by
#     itself and ends with the uninterrupted run's final line; the joined agent ends with the job
#     (exit 0) and no agent is left.
# usage: sim_host_agents.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 3 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
mkdir job
eval "$("$Y" sim env --name "$NAME" --mpi "$FLAVOUR" --job-dir "$WORK/job")"
export YADOKARI_RSH="$DIR/agent"
export YADOKARI_STATE_DIR="$WORK/state"  # this test's job records
if [[ "$FLAVOUR" == openmpi ]]; then
    mpi_args="--bind-to none"
else
    mpi_args="-launcher ssh -launcher-exec $DIR/agent"
fi
h="yk$NAME"
# $sim_launch runs a command in the cluster's frontend (like a login node); nsenter execs it, so a
# background job's pid is the command's own (wait_job's SIGTERM reaches `timeout`).

out=$($sim_launch "$Y" run --hosts "$h-n1:2,nosuchhost:2" -n 4 --mpi "$FLAVOUR" --mpi-args "$mpi_args" -- "$@" 2>&1 </dev/null)
code=$?
[[ $code == 1 && "$(tail -n 1 <<<"$out")" == "yadokari: the agent on node nosuchhost exited with code 255 before it connected" ]] \
    && pass "unknown host refused: $(tail -n 1 <<<"$out")" || fail "unknown host: exit $code, '$out'"
printf '%s-n1 slots=2\n%s-n2 slots=two\n' "$h" "$h" >hosts.bad
out=$("$Y" run --hostfile hosts.bad -n 4 --mpi "$FLAVOUR" -- "$@" 2>&1 </dev/null)
code=$?
[[ $code == 2 && "$out" == "yadokari: hosts.bad:2: expected 'host', 'host slots=N' or 'host:N', not '$h-n2 slots=two'" ]] \
    && pass "bad hostfile line refused" || fail "bad hostfile: exit $code, '$out'"
# A refused run cleans up after itself (a front end killed by SIGPIPE from the dead remote shell's
# stdin once left its job record, and the join below then read that job's secret).
records=$(ls "$YADOKARI_STATE_DIR"/jobs/*.json 2>/dev/null)
[[ -z "$records" ]] && pass "the refused runs left no job record" || fail "job records left by the refused runs: $records"

printf '%s-n1 slots=2\n%s-n2:2  # comment\n' "$h" "$h" >hosts
ckpt="$WORK/ckpt"
port=47123  # in the frontend's own network namespace
$sim_launch timeout -k 5 400 "$Y" run --hostfile hosts -n 4 --mpi "$FLAVOUR" --mpi-args "$mpi_args" --port $port \
    --ckpt-dir "$ckpt" --interval 1 -- "$@" >run.out 2>run.err </dev/null &
job=$!
for _ in $(seq 1200); do
    ls "$ckpt"/*/MANIFEST >/dev/null 2>&1 && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.05
done
ls "$ckpt"/*/MANIFEST >/dev/null 2>&1 && pass "an epoch was committed" || fail "no epoch committed: $(tail -3 run.err)"
agents=$(pgrep -af "yadokari agent --coordinator tcp://10.213.0.254:" | grep -v "^[0-9]* /bin/sh")
[[ $(grep -c -- "--credentials-stdin" <<<"$agents") == 2 ]] && pass "2 agents, credentials over stdin" \
    || fail "agents: $agents"
secret=$(python3 -c 'import json,glob,sys; print(json.load(open(glob.glob(sys.argv[1] + "/jobs/*.json")[0]))["credential"])' \
    "$YADOKARI_STATE_DIR")
if [[ -z "$secret" ]]; then
    fail "no job record with a credential in $YADOKARI_STATE_DIR"
elif pgrep -af "yadokari agent" | grep -q -- "$secret"; then
    fail "the job credential is on an agent's command line"
else
    pass "the job credential is on no agent's command line"
fi

# n3 joins: its agent runs inside n3 until the job ends.
YADOKARI_JOB_ID=$(basename "$(ls "$YADOKARI_STATE_DIR"/jobs/*.json)" .json) YADOKARI_JOB_SECRET="$secret" \
    YADOKARI_SIM_AGENT_ENV="YADOKARI_JOB_ID YADOKARI_JOB_SECRET" \
    "$DIR/agent" "$h-n3" "$Y" join --coordinator "tcp://10.213.0.254:$port" --slots 2 >join.out 2>join.err </dev/null &
joiner=$!
for _ in $(seq 200); do
    grep -q "^yadokari: node $h-n3 joined (2 slots" run.err && break
    sleep 0.05
done
grep -q "^yadokari: node $h-n3 joined (2 slots" run.err && pass "n3 joined: $(grep "node $h-n3 joined" run.err)" \
    || fail "no join line: $(cat join.err) $(tail -3 run.err)"

"$Y" sim kill --name "$NAME" n2 >/dev/null || fail "sim kill n2"
wait_job "$job" run.out
code=$?
expect_finished "$code"
grep -q "^yadokari: node $h-n2 lost: no heartbeat" run.err && pass "loss of $h-n2 detected" || fail "no loss line"
restarts=$(grep -c "^yadokari: restart [0-9]* (" run.err)
[[ $restarts == 1 ]] && pass "one automatic restart" || fail "$restarts automatic restarts: $(tail -5 run.err)"
grep -Eq "^yadokari: node $h-n2 lost; restarting from epoch [0-9]+ on $h-n1:2,$h-n3:2 " run.err \
    && pass "restarted on n1 and the joined n3: $(grep "restarting from epoch" run.err | sed 's/^yadokari: //')" \
    || fail "restart placement: $(grep "restarting from epoch" run.err)"
for _ in $(seq 100); do kill -0 "$joiner" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$joiner" 2>/dev/null; then
    fail "the joined agent still runs after the job ended"
    kill "$joiner"
else
    wait "$joiner"
    code=$?
    [[ $code == 0 ]] && pass "the joined agent ended with the job" || fail "the joined agent exited $code: $(cat join.err)"
fi
# Agents end when the front end closes their stdin (or when it is gone).
for _ in $(seq 100); do
    pgrep -f "yadokari agent --coordinator tcp://10.213.0.254:" >/dev/null || break
    sleep 0.1
done
left=$(pgrep -af "yadokari agent --coordinator tcp://10.213.0.254:")
[[ -z "$left" ]] && pass "no agent left" || fail "agents left behind: $left; $(ps -o pid,ppid,stat,cmd -p "$(pgrep -d, -f 'yadokari (run|agent)')")"
expect_reference_final 4 "$@"
finish
