#!/usr/bin/env bash
# `yadokari migrate` (docs/flows/migrate.md): 2 nodes x 2 slots, 4 ranks (0,1 on n1, 2,3 on n2).
# Moves that cannot be done are refused at once with the reason; n3 joins; `migrate --ranks 2,3
# --to n3` -> the line saying why the move is not live, a checkpoint, a restart with ranks 2,3 on n3
# and 0,1 still on n1. n2 then holds no rank: killing it must not restart the job
# (docs/flows/node-loss.md, "A node without ranks"). The job must finish with an uninterrupted
# run's final line.
# usage: sim_migrate.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 2 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
ckpt="$WORK/ckpt"
H="yk$NAME"
timeout -k 5 400 "$Y" run --sim "$NAME" -n 4 --mpi "$FLAVOUR" --ckpt-dir "$ckpt" -- "$@" \
    >run.out 2>run.err </dev/null &
job=$!
logged() { grep -q "$1" run.err; }

# Every rank registered and an epoch behind it: the moves below are checked against where they run.
epoch=$(ask_checkpoint) && pass "epoch $epoch committed" || fail "no epoch committed"

expect_refused() {
    local out code
    out=$("$Y" migrate "${@:2}" 2>&1)
    code=$?
    [[ $code == 1 && "$out" == "$1" ]] && pass "refused: $out" || fail "migrate ${*:2}: exit $code, '$out'"
}
expect_refused "yadokari: cannot move rank 2 to n9: no node 'n9' in the cluster" --ranks 2 --to n9
expect_refused "yadokari: cannot move rank 0 to n1: rank 0 already runs on n1" --ranks 0 --to n1
expect_refused "yadokari: cannot move rank 7 to n2: rank 7 does not exist (the job has ranks 0-3)" --ranks 7 --to n2
expect_refused "yadokari: cannot move ranks 2,2 to n1: rank 2 is named twice" --ranks 2,2 --to n1

"$Y" sim add --name "$NAME" >/dev/null || fail "sim add"
wait_for 30 logged "^yadokari: node n3 joined (2 slots)" && pass "n3 joined" || fail "n3 did not join: $(tail -2 run.err)"
wait_for 30 eval '"$Y" status 2>/dev/null | grep -q "^n3 .* alive "' && pass "status shows n3 alive" \
    || fail "status: $("$Y" status 2>&1 | tail -5)"

case "$FLAVOUR" in
    mpich) why="this MPICH (ch4:ucx) has no dynamic processes to start a rank's new process with" ;;
    *) why="moving ranks while the others run is not implemented yet for Open MPI" ;;
esac
reply=$("$Y" migrate --ranks 2,3 --to n3 2>&1)
[[ "$reply" == "yadokari: migration of ranks 2,3 to n3 in job "*" started: a checkpoint, then a restart with only these ranks moved ($why)" ]] \
    && pass "migrate accepted" || fail "migrate: $reply"
logged "^yadokari: migrate ranks 2,3 to n3 requested: $why, so the job is checkpointed and restarted with only these ranks moved$" \
    && pass "the front end says why the move is not live" || fail "no reason line: $(grep '^yadokari: migrate' run.err)"
wait_for 60 logged "^yadokari: restart 1 (migrate ranks 2,3 to n3): detect -, " && pass "restart 1 (migrate)" \
    || fail "no migrate restart: $(grep '^yadokari' run.err | tail -3)"
grep -q "^yadokari: migrate ranks 2,3 to n3; restarting from epoch [0-9]* on $H-n1:2,$H-n3:2 (policy moves, ranks moved: 2,3)$" run.err \
    && pass "ranks 2,3 on n3, ranks 0,1 stayed on n1" || fail "placement: $(grep 'restarting from' run.err)"
grep -q "^yadokari: placement: moved as asked: ranks 2,3 to n3; the other ranks stay$" run.err \
    && pass "placement explained" || fail "explanation: $(grep '^yadokari: placement' run.err)"

# The ranks left n2, so it may go: the job goes on without a restart.
"$Y" sim kill n2 --name "$NAME" >/dev/null || fail "sim kill n2"
wait_for 30 logged "^yadokari: node n2 lost; no rank of the job ran there, so the job goes on without it$" \
    && pass "n2 lost, no rank there: no restart" || fail "n2's loss: $(grep '^yadokari' run.err | tail -3)"

wait_job "$job" run.out
code=$?
expect_finished "$code"
expect_reference_final 4 "$@"
grep -q "^yadokari: restart 2 " run.err && fail "restarted after n2 was lost: $(grep '^yadokari: restart 2' run.err)"
finish
