#!/usr/bin/env bash
# A rank's death, not a node's, restarts the job from its newest epoch on the same nodes; an
# application that dies in every incarnation is stopped by --max-restarts with one line.
# 3 nodes x 2 slots, 6 ranks of tests/sim/pause_then_crash.c, every node alive throughout. The job
# waits at its pause point until the test has its epoch (`yadokari checkpoint`), so nothing races
# the program's length.
#   kill   the rank on n2 with the highest logical rank is SIGKILLed at the pause point, after the
#          epoch committed -> one automatic restart ("a rank died"), the job finishes by itself with
#          the final line of an uninterrupted run.
#   crash  YK_CRASH makes rank 1 kill itself right after the pause point, in every incarnation ->
#          two restarts, then exit 1 with "...; giving up after 2 automatic restart(s)
#          (--max-restarts)" as the last line.
# usage: sim_rank_death.sh YADOKARI openmpi|mpich kill|crash PROGRAM
Y="$1" FLAVOUR="$2" SCENARIO="$3" PROGRAM="$4"
source "$(dirname "$0")/sim_common.sh"
# The program's own variables reach the ranks on the nodes: Hydra forwards the whole environment,
# Open MPI only what it is told to (the nodes start its daemons with a login's environment).
forward=()
[[ "$FLAVOUR" == openmpi ]] && forward=(--mpi-args "-x YK_APP_PAUSE -x YK_CRASH")

"$Y" sim up --nodes 3 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
go="$WORK/go" crash="$WORK/crash"
restarted() { grep -q "^yadokari: restart $1 (a rank died" run.err; }

YK_APP_PAUSE="$go" YK_CRASH="$crash" timeout -k 5 300 "$Y" run --sim "$NAME" -n 6 --mpi "$FLAVOUR" \
    --ckpt-dir "$WORK/ckpt" --max-restarts 2 "${forward[@]}" -- "$PROGRAM" >run.out 2>run.err </dev/null &
job=$!
wait_for 300 test -e "$go.reached" || fail "the job never reached its pause point"
epoch=$(ask_checkpoint) && pass "epoch $epoch committed at the pause point" || fail "no epoch committed"

case "$SCENARIO" in
kill)
    pid=$("$Y" status --json | /usr/bin/python3 -c '
import json, sys
ranks = [r for r in json.load(sys.stdin)["ranks"] if r["host"].endswith("-n2")]
print(max(ranks, key=lambda r: r["rank"])["pid"])')
    [[ -n "$pid" ]] && kill -KILL "$pid" && pass "SIGKILL to the rank with pid $pid on n2" || fail "no rank on n2 to kill"
    wait_for 60 restarted 1 && pass "restart 1 after the rank's death" || fail "no restart after the rank's death"
    touch "$go"
    wait_job "$job" run.out
    expect_finished $?
    restarts=$(grep -c "^yadokari: restart [0-9]* (" run.err)
    [[ $restarts == 1 ]] && pass "one automatic restart" || fail "$restarts automatic restarts"
    grep -q "node .* lost" run.err && fail "a node was declared lost: $(grep 'node .* lost' run.err)"
    grep -q "^yadokari: a rank died (the launcher exited with code [0-9]*); restarting from epoch $epoch on " run.err &&
        pass "restarted from epoch $epoch" || fail "no 'restarting from epoch $epoch' line"
    expect_reference_final 6 "$PROGRAM"
    ;;
crash)
    touch "$crash" "$go"
    wait_job "$job" run.out
    code=$?
    last=$(tail -n 1 run.err)
    [[ $code == 1 ]] && pass "exit 1" || fail "exit $code"
    [[ "$last" =~ ^yadokari:\ a\ rank\ died\ \(the\ launcher\ exited\ with\ code\ [0-9]+\)\;\ giving\ up\ after\ 2\ automatic\ restart\(s\)\ \(--max-restarts\)$ ]] &&
        pass "$last" || fail "last line: '$last'"
    restarts=$(grep -c "^yadokari: a rank died .*; restarting from epoch $epoch on " run.err)
    [[ $restarts == 2 ]] && pass "two restarts from epoch $epoch" || fail "$restarts restarts from epoch $epoch"
    grep -q '^final' run.out && fail "a final line after crashes: $(grep '^final' run.out)"
    [[ -e "$WORK/ckpt/$epoch/MANIFEST" ]] && pass "epoch $epoch is intact" || fail "epoch $epoch is gone"
    ;;
*) fail "unknown scenario $SCENARIO" ;;
esac
finish
