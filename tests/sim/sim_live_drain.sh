#!/usr/bin/env bash
# A drain with `--live-moves` (docs/flows/migrate.md, "Draining a node"): 2 nodes x 2 slots, 4
# ranks (0,1 on n1, 2,3 on n2); n3 joins; `sim drain n2` -> the job moves ranks 2,3 live to n3
# (ranks 0,1 swap their MPI library in their processes, only 2,3 restore) and the CLI takes n2
# down once no rank is left there. Ranks 0,1 must keep their pids and node, the job must not
# restart again, and it must finish with an uninterrupted run's final line.
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 2 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
ckpt="$WORK/ckpt"
H="yk$NAME"
timeout -k 5 400 "$Y" run --sim "$NAME" -n 4 --mpi "$FLAVOUR" --ckpt-dir "$ckpt" --max-oversubscribe 1 \
    --live-moves -- "$@" >run.out 2>run.err </dev/null &
job=$!
logged() { grep -q "$1" run.err; }

epoch=$(ask_checkpoint) && pass "epoch $epoch committed" || fail "no epoch committed"
before=$(rank_places)
[[ $(wc -l <<<"$before") == 4 ]] && pass "4 ranks registered" || fail "status before: $before"

"$Y" sim add --name "$NAME" >/dev/null || fail "sim add"
wait_for 30 logged "^yadokari: node n3 joined (2 slots)" && pass "n3 joined" || fail "n3 did not join: $(tail -2 run.err)"
"$Y" sim drain n2 --name "$NAME" >drain-n2.out 2>&1 || fail "sim drain n2: $(cat drain-n2.out)"
grep -q "^job yk-[0-9a-f]*: no rank on n2$" drain-n2.out && grep -q "^drained n2: no job holds a rank there; took it down" drain-n2.out \
    && pass "sim drain n2: $(tail -1 drain-n2.out)" || fail "sim drain n2 said: $(cat drain-n2.out)"
logged "^yadokari: node n2 is draining: moving ranks 2,3 to n3 live: a checkpoint, then the ranks that stay swap their MPI library in their processes and only these ranks restart$" \
    && pass "the front end moves n2's ranks live" || fail "no live drain line: $(grep '^yadokari: node n2' run.err)"
wait_for 60 logged "^yadokari: restart 1 (drain of n2: ranks 2,3 to n3): detect -, settle -, checkpoint [0-9.]* s, stop " \
    && pass "restart 1 (drain), timed" || fail "no drain restart: $(grep '^yadokari' run.err | tail -5)"
logged "^yadokari: live move: ranks 0,1 keep their processes, the others restore epoch [0-9]*$" \
    && pass "ranks 0,1 kept their processes" || fail "no live line: $(grep '^yadokari' run.err | tail -5)"
"$Y" sim list --name "$NAME" | grep -q "^n2 .* down" && pass "n2 down" || fail "n2: $("$Y" sim list --name "$NAME")"

expect_moved_live "$before" n3

wait_job "$job" run.out
code=$?
expect_finished "$code"
expect_reference_final 4 "$@"
expect_program_lines_only '^(ring|weighted|iter|final) '
# The move's epoch is its cut: no iteration is done twice, none is lost.
[[ $(grep -c '^iter ' run.out) == "$3" ]] && pass "$3 iterations printed once each" \
    || fail "$(grep -c '^iter ' run.out) iteration lines, expected $3"
grep -q "^yadokari: restart 2 " run.err && fail "restarted again: $(grep '^yadokari: restart 2' run.err)"
finish
