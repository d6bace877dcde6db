#!/usr/bin/env bash
# A job that ends at an epoch's commit (--stop-after-epoch) must not run past its checkpoint while
# the images are written in the background (docs/flows/checkpoint.md, step 13): whatever it printed
# then, the restart prints again. The first epoch is asked at once (--interval 1e-9) and its writers
# are slowed down by 2 s (YADOKARI_FAULT_SLOW_WRITE): time in which ranks that were let go would
# print more iterations. The ranks hold at MPI_Finalize, so the run cannot end before its epoch.
# The stopped run's stdout followed by the restart's must be exactly the uninterrupted run's.
# usage: ckpt_stop_holds.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
set -u
yadokari="$1" flavour="$2"
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/yk-holds.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 YADOKARI_STATE_DIR="$work/state"

fail() {
    echo "ckpt_stop_holds: FAIL: $*" >&2
    for f in "$work"/*.err; do [[ -s "$f" ]] && { echo "--- $(basename "$f")" >&2; tail -n 15 "$f" >&2; }; done
    exit 1
}

timeout -k 10 300 "$yadokari" run -n 2 --mpi "$flavour" -- "$@" >"$work/reference.out" 2>"$work/reference.err" ||
    fail "the reference run failed"
YADOKARI_FAULT_SLOW_WRITE=1:2000 YADOKARI_FAULT_HOLD_FINALIZE="$work/never-created" timeout -k 10 180 \
    "$yadokari" run -n 2 --mpi "$flavour" --ckpt-dir "$work/ckpt" --interval 1e-9 --stop-after-epoch 1 \
    -- "$@" >"$work/run.out" 2>"$work/run.err"
rc=$?
[[ $rc == 124 ]] && fail "the job hung"
[[ $rc == 75 ]] || fail "the checkpointed run exited $rc, expected 75"
[[ -e "$work/ckpt/1/MANIFEST" ]] || fail "epoch 1 was not committed"
timeout -k 10 300 "$yadokari" restart --ckpt-dir "$work/ckpt" >"$work/restart.out" 2>"$work/restart.err" ||
    fail "the restart exited $?"
cat "$work/run.out" "$work/restart.out" >"$work/joined.out"
if ! cmp -s "$work/reference.out" "$work/joined.out"; then
    diff "$work/reference.out" "$work/joined.out" | head -n 10 >&2
    fail "the stopped run's output and the restart's are not the uninterrupted run's"
fi
echo "ckpt_stop_holds: OK ($(wc -l <"$work/run.out") lines before the stop, $(wc -l <"$work/restart.out") after the restart)"
