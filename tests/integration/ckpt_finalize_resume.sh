#!/usr/bin/env bash
# A rank checkpointed while it waits inside MPI_Finalize resumes there after a restart, and the shim
# must know it is inside MPI_Finalize again: MPICH's finalize help (docs/platform.md §1, "MPICH's
# finalize over TCP") starts only there, and without it a restarted MPICH job over TCP could hang
# in MPI_Finalize after printing its result. Seen by `yadokari status`, which shows each rank's
# current call: the ranks are held at MPI_Finalize (YADOKARI_FAULT_HOLD_FINALIZE) before the
# checkpoint and again after the restart, and every restarted rank must show MPI_Finalize there
# (before the fix, the restarted process's MPI_Init). Then the job is let go and must end, with the
# uninterrupted run's output.
# usage: ckpt_finalize_resume.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
set -u
yadokari="$1" flavour="$2"
shift 2
test_name=ckpt_finalize_resume
source "$(dirname "$0")/lib/job_test.sh"
np=2

timeout -k 10 300 "$yadokari" run -n "$np" --mpi "$flavour" -- "$@" >"$work/reference.out" 2>"$work/reference.err" ||
    fail "the reference run failed"

# Part 1: the ranks wait inside MPI_Finalize; an epoch is asked for there, the job stops after it.
YADOKARI_FAULT_HOLD_FINALIZE="$work/never-created" timeout -k 10 300 "$yadokari" run -n "$np" --mpi "$flavour" \
    --ckpt-dir "$work/ckpt" --interval 86400 --stop-after-epoch 1 -- "$@" >"$work/part1.out" 2>"$work/part1.err" &
job=$!
wait_for_calls MPI_Finalize || fail "part 1's ranks never all showed MPI_Finalize (last: $(calls_now))"
"$yadokari" checkpoint >"$work/checkpoint.out" 2>&1 || fail "yadokari checkpoint: $(cat "$work/checkpoint.out")"
wait "$job"
rc=$?
job=""
[[ $rc == 75 ]] || fail "part 1 exited $rc, expected 75 (stopped after epoch 1)"

# Part 2: restarted, held again at the same place until the ranks have been looked at.
YADOKARI_FAULT_HOLD_FINALIZE="$work/release" timeout -k 10 300 "$yadokari" restart --ckpt-dir "$work/ckpt" \
    >"$work/part2.out" 2>"$work/part2.err" &
job=$!
wait_for_calls MPI_Finalize ||
    fail "the restarted ranks, resumed inside MPI_Finalize, do not say so (last: $(calls_now); expected MPI_Finalize)"
touch "$work/release"
wait "$job"
rc=$?
job=""
[[ $rc == 0 ]] || fail "the restart exited $rc"
cat "$work/part1.out" "$work/part2.out" >"$work/joined.out"
cmp -s "$work/reference.out" "$work/joined.out" || {
    diff "$work/reference.out" "$work/joined.out" | head -n 10 >&2
    fail "the two parts' output is not the uninterrupted run's"
}
echo "ckpt_finalize_resume: OK (every restarted rank inside MPI_Finalize, the job ended with the uninterrupted output)"
