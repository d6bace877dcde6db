#!/usr/bin/env bash
# A background image writer that dies (docs/flows/checkpoint.md, steps 11-13): rank 1's first
# writer kills itself mid-image (YADOKARI_FAULT_KILL_WRITER=1). The epoch must fail on rank 1 with
# the writer's death named and the previous epoch kept; the job goes on, commits the next epochs
# and stops after epoch 3 (exit 75); a restart from it finishes with the uninterrupted run's final
# line. Epochs are asked back to back (--interval 1e-9) and the ranks hold at MPI_Finalize, so
# nothing depends on how fast the machine is.
# usage: ckpt_writer_dies.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
set -u
yadokari="$1" flavour="$2"
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/yk-writer.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 YADOKARI_STATE_DIR="$work/state"

fail() {
    echo "ckpt_writer_dies: FAIL: $*" >&2
    for f in "$work"/*.err; do [[ -s "$f" ]] && { echo "--- $(basename "$f")" >&2; tail -n 15 "$f" >&2; }; done
    exit 1
}

timeout -k 10 300 "$yadokari" run -n 2 --mpi "$flavour" -- "$@" >"$work/reference.out" 2>"$work/reference.err" ||
    fail "the reference run failed"
YADOKARI_FAULT_KILL_WRITER=1 YADOKARI_FAULT_HOLD_FINALIZE="$work/never-created" timeout -k 10 180 \
    "$yadokari" run -n 2 --mpi "$flavour" --ckpt-dir "$work/ckpt" --interval 1e-9 --stop-after-epoch 3 \
    -- "$@" >"$work/run.out" 2>"$work/run.err"
rc=$?
[[ $rc == 124 ]] && fail "the job hung"
[[ $rc == 75 ]] || fail "the checkpointed run exited $rc, expected 75"
# The first epoch fails on rank 1 (its writer died); its number is used again by the next one.
grep -Eq '^yadokari: checkpoint epoch 1 failed on rank 1: the image writer \(pid [0-9]+\) ended before the image was complete \(signal 9\); no epoch is committed yet$' \
    "$work/run.err" || fail "no line naming the writer's death on rank 1"
[[ -e "$work/ckpt/3/MANIFEST" ]] || fail "epoch 3 was not committed"
python3 - "$work/ckpt/3/MANIFEST" <<'PY' || fail "the MANIFEST has no pause for a rank"
import json, sys
images = json.load(open(sys.argv[1]))["images"]
assert len(images) == 2 and all(i["pause_seconds"] > 0 for i in images), images
PY
timeout -k 10 300 "$yadokari" restart --ckpt-dir "$work/ckpt" >"$work/restart.out" 2>"$work/restart.err" ||
    fail "the restart exited $?"
final=$(cat "$work/run.out" "$work/restart.out" | grep '^final' | tail -n 1)
[[ -n "$final" && "$final" == "$(grep '^final' "$work/reference.out")" ]] ||
    fail "final line '$final', expected '$(grep '^final' "$work/reference.out")'"
echo "ckpt_writer_dies: OK (the writer's death failed epoch 1 on rank 1; $final)"
