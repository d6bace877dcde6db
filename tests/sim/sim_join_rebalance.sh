#!/usr/bin/env bash
# Shrink, grow, rebalance (issue 4, items 3 and 6): 2 nodes x 2 slots, 4 ranks checkpointing every
# second (the job must outlast loss, join and rebalance on an idle machine too). `sim kill n2` ->
# the job restarts itself with all 4 ranks on n1 (2+2 -> 1 node); `sim add` -> n3 joins (logged, not used yet); `yadokari rebalance` -> checkpoint, restart on n1 and n3,
# 2 ranks each. The job must finish with an uninterrupted run's final line.
# usage: sim_join_rebalance.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 2 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
ckpt="$WORK/ckpt"
H="yk$NAME"
timeout -k 5 400 "$Y" run --sim "$NAME" -n 4 --mpi "$FLAVOUR" --ckpt-dir "$ckpt" --interval 1 -- "$@" \
    >run.out 2>run.err </dev/null &
job=$!
committed() { ls "$ckpt"/*/MANIFEST >/dev/null 2>&1; }
logged() { grep -q "$1" run.err; }

wait_for 60 committed && pass "an epoch committed" || fail "no epoch committed"
"$Y" sim kill --name "$NAME" n2 >/dev/null || fail "sim kill n2"
wait_for 60 logged "^yadokari: restart 1 (node n2 lost)" && pass "restart 1 after losing n2" || fail "no restart 1"
grep -q "restarting from epoch [0-9]* on $H-n1:4 " run.err && pass "2+2 -> 1 node: $H-n1:4" \
    || fail "placement after the loss: $(grep 'restarting from' run.err)"

"$Y" sim add --name "$NAME" >/dev/null || fail "sim add"
wait_for 30 logged "^yadokari: node n3 joined (2 slots); it is used at the next restart or rebalance" \
    && pass "n3 joined" || fail "n3 did not join: $(tail -2 run.err)"
wait_for 30 eval '"$Y" status 2>/dev/null | grep -q "^n3 .* alive "' && pass "status shows n3 alive" \
    || fail "status: $("$Y" status 2>&1 | tail -5)"
reply=$("$Y" rebalance 2>&1)
[[ "$reply" == "yadokari: rebalance of job "*" started: a checkpoint, then a restart placed anew on the nodes alive now" ]] \
    && pass "rebalance accepted" || fail "rebalance: $reply"
wait_for 60 logged "^yadokari: restart 2 (rebalance): detect -, " && pass "restart 2 (rebalance)" \
    || fail "no rebalance restart: $(grep '^yadokari' run.err | tail -3)
$("$Y" status 2>&1)"
grep -q "^yadokari: rebalance; restarting from epoch [0-9]* on $H-n1:2,$H-n3:2 " run.err \
    && pass "rebalanced onto n1 and n3, 2 ranks each" || fail "placement: $(grep 'rebalance; restarting' run.err)"

wait_job "$job" run.out
code=$?
expect_finished "$code"
expect_reference_final 4 "$@"
finish
