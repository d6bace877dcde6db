#!/usr/bin/env bash
# What a job on a simulated cluster says when it cannot start or cannot go on: one clear line on
# stderr and a non-zero exit each time.
# usage: sim_bad_input.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 3 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
ckpt="$WORK/ckpt"
H="yk$NAME"

expect() {  # expect CODE LINE COMMAND...: exit CODE and LINE as the last line of stderr
    local code="$1" line="$2"
    shift 2
    timeout -k 5 200 "$@" >out 2>err </dev/null
    local got=$?
    if [[ $got == "$code" && "$(tail -n 1 err)" == "$line" ]]; then
        pass "$line"
    else
        fail "expected exit $code and '$line', got exit $got and: $(tail -n 3 err)"
    fi
}

# The agent cannot start on the nodes.
expect 1 "yadokari: the agent on node n1 exited with code 127 before it connected" \
    env YADOKARI_AGENT=/nonexistent/yadokari "$Y" run --sim "$NAME" -n 2 --mpi "$FLAVOUR" -- "$@"
# A host that is not one of the cluster's live nodes.
expect 2 "yadokari: host nosuch is not a live node of the simulated cluster $NAME ($H-n1, $H-n2, $H-n3)" \
    "$Y" run --sim "$NAME" --hosts nosuch:2 -n 2 --mpi "$FLAVOUR" -- "$@"
# Recovery options that do not parse.
expect 2 "yadokari: unknown placement policy 'fastest' in --policy (choose node, balanced, comm, speed or auto)" \
    "$Y" run --sim "$NAME" --policy fastest -n 2 --mpi "$FLAVOUR" -- "$@"
expect 2 "yadokari: YADOKARI_MAX_OVERSUBSCRIBE must be a number of ranks per slot (1 or more), not '0.5'" \
    env YADOKARI_MAX_OVERSUBSCRIBE=0.5 "$Y" run --sim "$NAME" -n 2 --mpi "$FLAVOUR" -- "$@"
expect 2 "yadokari: YADOKARI_HEARTBEAT_MS must be milliseconds (10 or more), not '5'" \
    env YADOKARI_HEARTBEAT_MS=5 "$Y" run --sim "$NAME" -n 2 --mpi "$FLAVOUR" -- "$@"

# A rebalance of a job that has no checkpoints to restart from.
timeout -k 5 200 "$Y" run --sim "$NAME" -n 6 --mpi "$FLAVOUR" -- "$@" >bg.out 2>bg.err </dev/null &
job=$!
for _ in $(seq 600); do "$Y" status 2>/dev/null | grep -q "^   5 " && break; sleep 0.05; done
expect 1 "yadokari: this job cannot be rebalanced (only jobs with node agents and checkpoints can: run --sim with --ckpt-dir)" \
    "$Y" rebalance
kill $job; wait $job

# A node lost, and the job cannot go on: without checkpoints, and when the survivors cannot hold
# it within --max-oversubscribe. The ranks are placed 2+2+2 with n3 last, so killing n3 leaves
# 4 slots for 6 ranks.
lose_n3() {  # lose_n3 RUN-OPTIONS...: run 6 ranks, kill n3 once they all registered (or an epoch committed)
    timeout -k 5 200 "$Y" run --sim "$NAME" -n 6 --mpi "$FLAVOUR" "$@" >out 2>err </dev/null &
    local job=$!
    for _ in $(seq 600); do
        if [[ " $* " == *" --ckpt-dir "* ]]; then ls "$ckpt"/*/MANIFEST >/dev/null 2>&1 && break
        else "$Y" status 2>/dev/null | grep -q "^   5 " && break; fi
        sleep 0.05
    done
    "$Y" sim kill --name "$NAME" n3 >/dev/null
    wait $job
}
lose_n3 -- "$@"
code=$?
line="yadokari: node n3 lost; the job cannot be restarted without checkpoints (run it with --ckpt-dir)"
[[ $code == 1 && "$(tail -n 1 err)" == "$line" ]] && pass "$line" || fail "exit $code: $(tail -n 3 err)"
"$Y" sim down --name "$NAME" >/dev/null && "$Y" sim up --nodes 3 --slots 2 --name "$NAME" >/dev/null || fail "sim up again"
lose_n3 --ckpt-dir "$ckpt" --interval 1 --max-oversubscribe 1 -- "$@"
code=$?
line=$(tail -n 1 err)
[[ $code == 1 && "$line" == "yadokari: node n3 lost; cannot restart: "* ]] && pass "$line" || fail "exit $code: $(tail -n 3 err)"
! grep -q '^final' out && pass "no result printed" || fail "a result was printed"
finish
