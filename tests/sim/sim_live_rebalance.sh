#!/usr/bin/env bash
# A rebalance of a job run with `--live-moves` (docs/flows/migrate.md, "Live moves"): 2 nodes x 2
# slots, 4 ranks; `sim kill n2` -> the job restarts with all 4 ranks on n1; n3 joins; `yadokari
# rebalance` -> the new placement (n1:2,n3:2) moves ranks 2,3 only, so ranks 0,1 (restored
# processes of the first restart) swap their MPI library and keep their processes while 2,3
# restore on n3. The job must finish with an uninterrupted run's final line.
# usage: sim_live_rebalance.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 2 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
ckpt="$WORK/ckpt"
H="yk$NAME"
timeout -k 5 400 "$Y" run --sim "$NAME" -n 4 --mpi "$FLAVOUR" --ckpt-dir "$ckpt" --live-moves -- "$@" \
    >run.out 2>run.err </dev/null &
job=$!
logged() { grep -q "$1" run.err; }

epoch=$(ask_checkpoint) && pass "epoch $epoch committed" || fail "no epoch committed"
"$Y" sim kill --name "$NAME" n2 >/dev/null || fail "sim kill n2"
wait_for 60 logged "^yadokari: restart 1 (node n2 lost)" && pass "restart 1 after losing n2" || fail "no restart 1"
grep -q "restarting from epoch [0-9]* on $H-n1:4 " run.err && pass "all 4 ranks on $H-n1" \
    || fail "placement after the loss: $(grep 'restarting from' run.err)"
epoch=$(ask_checkpoint) && pass "epoch $epoch committed after the restart" || fail "no epoch after the restart"
wait_for 30 eval '[[ $(rank_places | wc -l) == 4 ]]' || fail "not every rank registered after the restart"
before=$(rank_places)

"$Y" sim add --name "$NAME" >/dev/null || fail "sim add"
wait_for 30 logged "^yadokari: node n3 joined (2 slots)" && pass "n3 joined" || fail "n3 did not join: $(tail -2 run.err)"
reply=$("$Y" rebalance 2>&1)
[[ "$reply" == "yadokari: live rebalance of job "*" started: a checkpoint, then only the ranks the new placement moves restart" ]] \
    && pass "live rebalance accepted" || fail "rebalance: $reply"
wait_for 90 logged "^yadokari: restart 2 (rebalance): detect -, " && pass "restart 2 (rebalance)" \
    || fail "no rebalance restart: $(grep '^yadokari' run.err | tail -5)"
grep -q "^yadokari: rebalance; restarting from epoch [0-9]* on $H-n1:2,$H-n3:2 (policy [a-z]*, ranks moved: 2,3)$" run.err \
    && pass "rebalanced onto n1 and n3, ranks 2,3 moved" || fail "placement: $(grep 'rebalance; restarting' run.err)"
logged "^yadokari: live move: ranks 0,1 keep their processes, the others restore epoch [0-9]*$" \
    && pass "ranks 0,1 kept their processes" || fail "no live line: $(grep '^yadokari' run.err | tail -5)"

expect_moved_live "$before" n3

wait_job "$job" run.out
code=$?
expect_finished "$code"
expect_reference_final 4 "$@"
expect_program_lines_only '^(ring|weighted|iter|final) '
grep -q "^yadokari: restart 3 " run.err && fail "restarted again: $(grep '^yadokari: restart 3' run.err)"
finish
