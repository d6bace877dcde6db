#!/usr/bin/env bash
# Epochs back to back (--interval 1e-9: the next prepare follows each commit at once). A rank that
# wrote its image waits for that epoch's resume; the next epoch's prepare, arriving before the
# rank woke up, once cleared the resume it was waiting for and the job hung for ever. Checked:
# the job commits epoch K and stops there (exit 75), and a restart from it finishes with the
# uninterrupted run's final line. The ranks hold at MPI_Finalize (YADOKARI_FAULT_HOLD_FINALIZE),
# so the program cannot end before epoch K however fast the machine.
# usage: ckpt_back_to_back.sh YADOKARI openmpi|mpich EPOCHS PROGRAM [ARGS...]
set -u
yadokari="$1" flavour="$2" epochs="$3"
shift 3
work=$(mktemp -d "${TMPDIR:-/tmp}/yk-b2b.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 YADOKARI_STATE_DIR="$work/state"

fail() {
    echo "ckpt_back_to_back: FAIL: $*" >&2
    for f in "$work"/*.err; do [[ -s "$f" ]] && { echo "--- $(basename "$f")" >&2; tail -n 15 "$f" >&2; }; done
    exit 1
}

timeout -k 10 300 "$yadokari" run -n 4 --mpi "$flavour" -- "$@" >"$work/reference.out" 2>"$work/reference.err" ||
    fail "the reference run failed"
YADOKARI_FAULT_HOLD_FINALIZE="$work/never-created" timeout -k 10 120 "$yadokari" run -n 4 --mpi "$flavour" \
    --ckpt-dir "$work/ckpt" --interval 1e-9 --stop-after-epoch "$epochs" -- "$@" >"$work/run.out" 2>"$work/run.err"
rc=$?
[[ $rc == 124 ]] && fail "the job hung (no epoch $epochs within 120 s; last epoch committed: $(ls "$work/ckpt" | sort -n | tail -n 1))"
[[ $rc == 75 ]] || fail "the checkpointed run exited $rc, expected 75"
[[ "$(tail -n 1 "$work/run.err")" == "yadokari: stopped after epoch $epochs as requested (--stop-after-epoch)" ]] ||
    fail "last line: $(tail -n 1 "$work/run.err")"
timeout -k 10 300 "$yadokari" restart --ckpt-dir "$work/ckpt" >"$work/restart.out" 2>"$work/restart.err" ||
    fail "the restart exited $?"
final=$(cat "$work/run.out" "$work/restart.out" | grep '^final' | tail -n 1)
[[ -n "$final" && "$final" == "$(grep '^final' "$work/reference.out")" ]] ||
    fail "final line '$final', expected '$(grep '^final' "$work/reference.out")'"
echo "ckpt_back_to_back: OK ($epochs epochs back to back; $final)"
