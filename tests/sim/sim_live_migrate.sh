#!/usr/bin/env bash
# `yadokari migrate --live` (docs/flows/migrate.md, "Live moves"): 2 nodes x 2 slots, 4 ranks (0,1
# on n1, 2,3 on n2); n3 joins; `migrate --live --ranks 2,3 --to n3` -> a checkpoint, then ranks 0,1
# swap their MPI library in their processes and stand in for themselves in the next launch, which
# restores only ranks 2,3, on n3. Ranks 0,1 must keep their pids and their node; a checkpoint
# after the move is refused with the reason (not built yet) and the job goes on; it must finish
# with an uninterrupted run's final line.
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

epoch=$(ask_checkpoint) && pass "epoch $epoch committed" || fail "no epoch committed"
before=$(rank_places)
[[ $(wc -l <<<"$before") == 4 ]] && pass "4 ranks registered" || fail "status before: $before"

"$Y" sim add --name "$NAME" >/dev/null || fail "sim add"
wait_for 30 logged "^yadokari: node n3 joined (2 slots)" && pass "n3 joined" || fail "n3 did not join: $(tail -2 run.err)"
reply=$("$Y" migrate --live --ranks 2,3 --to n3 2>&1)
[[ "$reply" == "yadokari: live migration of ranks 2,3 to n3 in job "*" started: a checkpoint, then only these ranks restart" ]] \
    && pass "live migrate accepted" || fail "migrate: $reply"
wait_for 90 logged "^yadokari: restart 1 (migrate ranks 2,3 to n3): detect -, settle -, checkpoint [0-9.]* s, stop " \
    && pass "restart 1 (migrate), timed" || fail "no migrate restart: $(grep '^yadokari' run.err | tail -5)"
logged "^yadokari: live move: ranks 0,1 keep their processes, the others restore epoch [0-9]*$" \
    && pass "ranks 0,1 kept their processes" || fail "no live line: $(grep '^yadokari' run.err | tail -5)"
grep -q "^yadokari: migrate ranks 2,3 to n3; restarting from epoch [0-9]* on $H-n1:2,$H-n3:2 (policy moves, ranks moved: 2,3)$" run.err \
    && pass "ranks 2,3 on n3, ranks 0,1 stayed on n1" || fail "placement: $(grep 'restarting from' run.err)"

# The same processes for ranks 0,1 (registered again from the new launch), new ones for 2,3 on n3.
expect_moved_live "$before" n3

# A checkpoint after the move is refused with the reason, and the job goes on (the move's epoch
# stays the last committed one).
out=$("$Y" checkpoint 2>&1)
code=$?
[[ $code == 1 && "$out" == "yadokari: checkpoint epoch "*" failed on rank "[01]": this process swapped its MPI library in a live move; its image cannot carry the library's copy yet; the last committed epoch is "* ]] \
    && pass "a checkpoint after the move refused: ${out#yadokari: }" || fail "checkpoint after the move: exit $code, '$out'"
kill -0 "$job" 2>/dev/null && pass "the job goes on after the refusal" || fail "the job ended after the refused checkpoint"
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
