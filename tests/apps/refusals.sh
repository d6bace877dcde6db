#!/usr/bin/env bash
# A checkpoint the memory layer must refuse (checkpoint/memory/README.md, "Refused, with the
# reason"): refusals.c holds, at its pause point, what MODE chooses. Checked: the front end prints
# exactly the lines the program expects (written to expected-refusals by its rank 0, from what it
# holds), each "checkpoint epoch 1 failed on rank 0: <problem>", the last one followed by "; no
# epoch is committed yet"; `yadokari checkpoint` prints the same; no epoch is committed (no
# MANIFEST); the job then finishes with exit 0 and the output of a run without any checkpoint.
# A MODE ending in "released" frees everything before the pause point: then the checkpoint must commit.
# usage: refusals.sh YADOKARI openmpi|mpich MODE PROGRAM
set -u
yadokari="$1" flavour="$2" mode="$3" program="$4"
work=$(mktemp -d "${TMPDIR:-/tmp}/yk-refusals.XXXXXX")
job_pid=
cleanup() {
    [[ -n "$job_pid" ]] && kill "$job_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 YADOKARI_STATE_DIR="$work/state"

fail() {
    echo "refusals: FAIL ($mode, $flavour): $*" >&2
    for f in "$work"/*/*.err "$work"/*.err; do [[ -s "$f" ]] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }; done
    exit 1
}

# The reference: the same program without pause point and without checkpoints.
mkdir -p "$work/reference" "$work/run"
(cd "$work/reference" && timeout -k 10 300 "$yadokari" run -n 2 --mpi "$flavour" -- "$program" "$mode" \
    >reference.out 2>reference.err) || fail "the reference run exited $?"

(cd "$work/run" && exec env YK_APP_PAUSE="$work/pause" timeout -k 10 300 "$yadokari" run -n 2 --mpi "$flavour" \
    --ckpt-dir "$work/ckpt" -- "$program" "$mode" >run.out 2>run.err) &
job_pid=$!

# Wait for the pause point (an event), then ask for the checkpoint as soon as the job is registered.
for _ in $(seq 3000); do
    [[ -e "$work/pause.reached" ]] && break
    kill -0 "$job_pid" 2>/dev/null || fail "the job ended before its pause point"
    sleep 0.1
done
[[ -e "$work/pause.reached" ]] || fail "no rank reached the pause point within 300 s"
asked=
for _ in $(seq 600); do
    "$yadokari" checkpoint >"$work/ask.out" 2>"$work/ask.err"
    asked=$?
    grep -q "no running job found" "$work/ask.err" || break
    sleep 0.1
done
touch "$work/pause"  # release the ranks
wait "$job_pid"
rc=$?
job_pid=
[[ $rc == 0 ]] || fail "the job exited $rc after the checkpoint, expected 0"
cmp -s "$work/reference/reference.out" "$work/run/run.out" ||
    fail "output differs from the reference: $(diff "$work/reference/reference.out" "$work/run/run.out" | head -n 5)"

if [[ "$mode" == *released ]]; then
    [[ $asked == 0 ]] || fail "yadokari checkpoint exited $asked: $(cat "$work/ask.err")"
    [[ -f "$work/ckpt/1/MANIFEST" ]] || fail "epoch 1 was not committed"
    grep -q "failed on rank" "$work/run/run.err" && fail "a refusal although nothing was held"
    echo "refusals: OK ($mode, $flavour: everything released before the pause point, epoch 1 committed)"
    exit 0
fi

[[ -s "$work/run/expected-refusals" ]] || fail "the program wrote no expected-refusals"
[[ $asked == 1 ]] || fail "yadokari checkpoint exited $asked, expected 1: $(cat "$work/ask.out" "$work/ask.err")"
find "$work/ckpt" -name MANIFEST | grep -q . && fail "an epoch was committed: $(find "$work/ckpt" -name MANIFEST)"

# Exactly the expected lines, in any order (the checks run in the shim's link order), the last one
# with the last committed epoch appended.
prefix="yadokari: checkpoint epoch 1 failed on rank 0: "
suffix="; no epoch is committed yet"
expected_count=$(wc -l <"$work/run/expected-refusals")
for source in run/run.err ask.err; do
    grep -F "failed on rank" "$work/$source" >"$work/got.lines"
    [[ "$(tail -n 1 "$work/got.lines")" == *"$suffix" ]] || fail "$source: the last line does not end with '$suffix'"
    while IFS= read -r line; do
        [[ "$line" == "$prefix"* ]] || fail "$source: unexpected line: $line"
        line=${line#"$prefix"}
        echo "${line%"$suffix"}"
    done <"$work/got.lines" | sort >"$work/got.sorted"
    sort "$work/run/expected-refusals" >"$work/expected.sorted"
    cmp -s "$work/got.sorted" "$work/expected.sorted" ||
        fail "$source: refusal lines differ from the expected ones:
$(diff "$work/expected.sorted" "$work/got.sorted")"
done
echo "refusals: OK ($mode, $flavour: $expected_count line(s), no epoch committed, the job went on)"
