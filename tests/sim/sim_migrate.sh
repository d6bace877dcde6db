#!/usr/bin/env bash
# `yadokari migrate` and `yadokari sim drain` (docs/flows/migrate.md): 2 nodes x 2 slots, 4 ranks
# (0,1 on n1, 2,3 on n2), at most one rank per slot. Moves that cannot be done are refused at once
# with the reason; n3 joins; `migrate --ranks 2,3 --to n3` -> the line saying why the move is not
# live, a checkpoint, a restart with ranks 2,3 on n3 and 0,1 still on n1. n2 then holds no rank:
# `sim drain n2` takes it down at once, without a restart (docs/flows/node-loss.md, "A node
# without ranks"). `sim drain n3` finds no room for its ranks and gives up, leaving n3 up; n4
# joins, and `sim drain n3` moves ranks 2,3 to n4 (one restart), then takes n3 down. The job must
# finish with an uninterrupted run's final line.
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 2 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
ckpt="$WORK/ckpt"
H="yk$NAME"
timeout -k 5 400 "$Y" run --sim "$NAME" -n 4 --mpi "$FLAVOUR" --ckpt-dir "$ckpt" --max-oversubscribe 1 -- "$@" \
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

why="the ranks that stay keep their processes only in a live move (\`yadokari migrate --live\`, or a job run with \`--live-moves\`)"
reply=$("$Y" migrate --ranks 2,3 --to n3 2>&1)
[[ "$reply" == "yadokari: migration of ranks 2,3 to n3 in job "*" started: a checkpoint, then a restart with only these ranks moved ($why)" ]] \
    && pass "migrate accepted" || fail "migrate: $reply"
logged "^yadokari: migrate ranks 2,3 to n3 requested: $why, so the job is checkpointed and restarted with only these ranks moved$" \
    && pass "the front end says why the move is not live" || fail "no reason line: $(grep '^yadokari: migrate' run.err)"
wait_for 60 logged "^yadokari: restart 1 (migrate ranks 2,3 to n3): detect -, settle -, checkpoint [0-9.]* s, stop " \
    && pass "restart 1 (migrate), its checkpoint timed" \
    || fail "no migrate restart: $(grep '^yadokari' run.err | tail -3)"
grep -q "^yadokari: migrate ranks 2,3 to n3; restarting from epoch [0-9]* on $H-n1:2,$H-n3:2 (policy moves, ranks moved: 2,3)$" run.err \
    && pass "ranks 2,3 on n3, ranks 0,1 stayed on n1" || fail "placement: $(grep 'restarting from' run.err)"
grep -q "^yadokari: placement: moved as asked: ranks 2,3 to n3; the other ranks stay$" run.err \
    && pass "placement explained" || fail "explanation: $(grep '^yadokari: placement' run.err)"

# The ranks left n2, so it may go: drained at once, and the job goes on without a restart.
"$Y" sim drain n2 --name "$NAME" >drain-n2.out 2>&1 || fail "sim drain n2: $(cat drain-n2.out)"
grep -q "^job yk-[0-9a-f]*: no rank on n2$" drain-n2.out && grep -q "^drained n2: no job holds a rank there; took it down" drain-n2.out \
    && pass "sim drain n2: $(tail -1 drain-n2.out)" || fail "sim drain n2 said: $(cat drain-n2.out)"
wait_for 30 logged "^yadokari: node n2 lost; no rank of the job ran there, so the job goes on without it$" \
    && pass "n2 gone, no rank there: no restart" || fail "n2's loss: $(grep '^yadokari' run.err | tail -3)"
"$Y" status 2>/dev/null | grep -q "^n3 .* 2,3$" && pass "status: ranks 2,3 on n3" || fail "status: $("$Y" status 2>&1 | tail -6)"

# n1 is full and n2 gone: n3's ranks have nowhere to go (one rank per slot), so the drain gives up.
out=$("$Y" sim drain n3 --name "$NAME" 2>&1)
code=$?
[[ $code == 1 && "$out" == *"
yadokari: job yk-"*" cannot move its ranks off n3: the surviving node has 2 slots for 4 ranks (allowed oversubscription 1x gives 2); n3 stays up and is not draining any more" ]] \
    && pass "drain without room refused: ${out##*$'\n'}" || fail "sim drain n3 without room: exit $code, '$out'"
"$Y" sim list --name "$NAME" | grep -q "^n3 .* up *$" && pass "n3 up, not draining" || fail "n3: $("$Y" sim list --name "$NAME")"
logged "^yadokari: node n3 is draining, but ranks 2,3 cannot move off it: the surviving node has 2 slots for 4 ranks (allowed oversubscription 1x gives 2); they stay there$" \
    && pass "the front end says why" || fail "no stuck line: $(grep '^yadokari: node n3' run.err)"

"$Y" sim add --name "$NAME" >/dev/null || fail "sim add n4"
wait_for 30 logged "^yadokari: node n4 joined (2 slots)" && pass "n4 joined" || fail "n4 did not join: $(tail -2 run.err)"
"$Y" sim drain n3 --name "$NAME" >drain-n3.out 2>&1 || fail "sim drain n3: $(cat drain-n3.out)"
# (It may also say "moving rank(s) 2,3 off n3", if it asks while the job has seen the drain and
# not restarted yet.)
grep -q "^job yk-[0-9a-f]*: no rank on n3$" drain-n3.out && grep -q "^drained n3: no job holds a rank there; took it down" drain-n3.out \
    && pass "sim drain n3: $(tail -1 drain-n3.out)" || fail "sim drain n3 said: $(cat drain-n3.out)"
logged "^yadokari: node n3 is draining: moving ranks 2,3 to n4 ($why), so the job is checkpointed and restarted with only these ranks moved$" \
    && pass "the front end moves n3's ranks to n4" || fail "no drain line: $(grep '^yadokari: node n3' run.err)"
grep -q "^yadokari: drain of n3: ranks 2,3 to n4; restarting from epoch [0-9]* on $H-n1:2,$H-n4:2 (policy moves, ranks moved: 2,3)$" run.err \
    && pass "ranks 2,3 on n4, ranks 0,1 stayed on n1" || fail "placement: $(grep 'restarting from' run.err | tail -1)"
# The drain returns once no rank is on n3; the restart's summary comes after the ranks restored.
wait_for 60 logged "^yadokari: restart 2 (drain of n3: ranks 2,3 to n4): detect -, settle -, checkpoint [0-9.]* s, stop " \
    && pass "restart 2 (drain), its checkpoint timed" \
    || fail "no drain restart: $(grep '^yadokari: restart' run.err)"
wait_for 30 logged "^yadokari: node n3 lost; no rank of the job ran there, so the job goes on without it$" \
    && pass "n3 gone without a restart" || fail "n3's loss: $(grep '^yadokari' run.err | tail -3)"

wait_job "$job" run.out
code=$?
expect_finished "$code"
expect_reference_final 4 "$@"
grep -q "^yadokari: restart 3 " run.err && fail "restarted after a drained node left: $(grep '^yadokari: restart 3' run.err)"
finish
