#!/usr/bin/env bash
# A checkpoint asked for by rank 0 (yadokari_checkpoint()) while ranks 1.. have reduced onto it over
# a duplicate of the world (they wait in MPI_Finalize, held there by YADOKARI_FAULT_HOLD_FINALIZE)
# and rank 0 has not entered that reduction yet (programs/collective_left_behind.c). The cut must
# take rank 0 past the reduction whose parts the others sent: a cut that stopped it short of it
# lost those parts with the old processes, and the restarted rank 0 waited for them for ever (the
# fault campaign's hang, MPICH nqueens). MODE is what hid the reduction from the cut before:
#   freed     the others freed the duplicate (a freed communicator's count was no longer reported);
#   left-out  rank 0 was left out of a split before the duplicate (its parent did not count that
#             split on rank 0, so the duplicate had another name there than on the others);
#   merged    the communicator was merged from an intercommunicator between rank 0 and the others
#             (an intercommunicator, and what was made from it, had another name on each side).
# The restart must end with the uninterrupted run's output.
# usage: ckpt_left_behind.sh YADOKARI openmpi|mpich PROGRAM MODE
set -u
yadokari="$1" flavour="$2" program="$3" mode="$4"
test_name=ckpt_left_behind
source "$(dirname "$0")/lib/job_test.sh"
np=3

touch "$work/go-now"
timeout -k 10 300 "$yadokari" run -n "$np" --mpi "$flavour" -- "$program" "$mode" "$work/go-now" \
    >"$work/reference.out" 2>"$work/reference.err" || fail "the reference run failed"

# Part 1: ranks 1.. in MPI_Finalize, past the reduction; then rank 0 is let go and asks for the
# checkpoint before the reduction. The epoch can only be taken once rank 0 is past it.
YADOKARI_FAULT_HOLD_FINALIZE="$work/never-created" timeout -k 10 300 "$yadokari" run -n "$np" --mpi "$flavour" \
    --ckpt-dir "$work/ckpt" --interval 86400 --stop-after-epoch 1 -- "$program" "$mode" "$work/go" \
    >"$work/part1.out" 2>"$work/part1.err" &
job=$!
wanted=("*")
for ((r = 1; r < np; r++)); do wanted+=(MPI_Finalize); done
wait_for_calls "${wanted[@]}" || fail "ranks 1.. never all showed MPI_Finalize (last: $(calls_now))"
touch "$work/go"
wait "$job"
rc=$?
job=""
[[ $rc == 75 ]] || fail "part 1 exited $rc, expected 75 (stopped after epoch 1)"

# Part 2: the restart. Before the fix rank 0 resumed short of the reduction and waited for ever.
timeout -k 10 120 "$yadokari" restart --ckpt-dir "$work/ckpt" >"$work/part2.out" 2>"$work/part2.err"
rc=$?
[[ $rc != 124 && $rc != 137 ]] || fail "the restarted job hung (killed after 120 s; rank 0 waiting in MPI_Reduce?)"
[[ $rc == 0 ]] || fail "the restart exited $rc"
cat "$work/part1.out" "$work/part2.out" >"$work/joined.out"
cmp -s "$work/reference.out" "$work/joined.out" || {
    diff "$work/reference.out" "$work/joined.out" | head -n 10 >&2
    fail "the two parts' output is not the uninterrupted run's"
}
echo "ckpt_left_behind: OK ($mode: the cut took rank 0 past the reduction the others had left; the restart ended with the uninterrupted output)"
