#!/usr/bin/env bash
# A table of the memory layer filled past its limit (table_limits.c): the checkpoint after that
# is refused with exactly the line the program expects, the epoch before stays the newest, the job
# goes on, and a restart picks that epoch and ends as an uninterrupted run does.
#   1. reference: the program without pause points or checkpoints;
#   2. run: epoch 1 is taken at the first pause point (nothing filled yet) and must commit; the
#      program fills the table; the checkpoint at the second pause point must fail with exactly
#      the lines the program wrote to expected-refusals, each "yadokari: checkpoint epoch 2 failed
#      on rank 0: <line>", the last one followed by "; the last committed epoch is 1" (from
#      `yadokari checkpoint`, exit 1, and on the job's stderr); no MANIFEST in epoch 2; the job
#      exits 0 with the reference's output;
#   3. restart from the checkpoint directory, where epoch 1 is the only committed epoch: it prints
#      the reference's output.
# usage: table_limits.sh YADOKARI openmpi|mpich MODE PROGRAM LIBRARY_DIR
set -u
yadokari="$1" flavour="$2" mode="$3" program="$4" libdir="$5"
work=$(mktemp -d "${TMPDIR:-/tmp}/yk-limits.XXXXXX")
job_pid=
cleanup() {
    [[ -n "$job_pid" ]] && kill "$job_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 YADOKARI_STATE_DIR="$work/state"

fail() {
    echo "table_limits: FAIL ($mode, $flavour): $*" >&2
    for f in "$work"/*/*.err "$work"/*.err; do [[ -s "$f" ]] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }; done
    exit 1
}

# wait_for FILE: the program reached a pause point (an event), or it ended.
wait_for() {
    for _ in $(seq 3000); do
        [[ -e "$1" ]] && return 0
        kill -0 "$job_pid" 2>/dev/null || fail "the job ended before $(basename "$1")"
        sleep 0.1
    done
    fail "no rank reached $(basename "$1") within 300 s"
}

# ask: `yadokari checkpoint` once the job is registered; its exit code in $asked.
ask() {
    for _ in $(seq 600); do
        "$yadokari" checkpoint >"$work/ask.out" 2>"$work/ask.err"
        asked=$?
        grep -q "no running job found\|not answering\|not registered" "$work/ask.err" || return 0
        sleep 0.1
    done
}

mkdir -p "$work/reference" "$work/run"
(cd "$work/reference" && timeout -k 10 300 "$yadokari" run -n 2 --mpi "$flavour" -- "$program" "$mode" "$libdir" \
    >reference.out 2>reference.err) || fail "the reference run exited $?"

(cd "$work/run" && exec env YK_APP_PAUSE="$work/pause" timeout -k 10 300 "$yadokari" run -n 2 --mpi "$flavour" \
    --ckpt-dir "$work/ckpt" --interval 0 -- "$program" "$mode" "$libdir" >run.out 2>run.err) &
job_pid=$!

wait_for "$work/pause-1.reached"
ask
[[ $asked == 0 ]] || fail "the first checkpoint: yadokari checkpoint exited $asked: $(cat "$work/ask.err")"
[[ -f "$work/ckpt/1/MANIFEST" ]] || fail "epoch 1 was not committed"
touch "$work/pause-1"

wait_for "$work/pause-2.reached"
ask
touch "$work/pause-2"
wait "$job_pid"
rc=$?
job_pid=
[[ $rc == 0 ]] || fail "the job exited $rc after the refused checkpoint, expected 0"
[[ $asked == 1 ]] || fail "the second checkpoint: yadokari checkpoint exited $asked, expected 1: $(cat "$work/ask.out" "$work/ask.err")"
[[ -e "$work/ckpt/2/MANIFEST" ]] && fail "epoch 2 was committed"
cmp -s "$work/reference/reference.out" "$work/run/run.out" ||
    fail "output differs from the reference: $(diff "$work/reference/reference.out" "$work/run/run.out" | head -n 5)"

# Exactly the expected lines, in any order, the last one with the last committed epoch appended.
[[ -s "$work/run/expected-refusals" ]] || fail "the program wrote no expected-refusals"
prefix="yadokari: checkpoint epoch 2 failed on rank 0: "
suffix="; the last committed epoch is 1"
sort "$work/run/expected-refusals" >"$work/expected.sorted"
for source in run/run.err ask.err; do
    grep -F "failed on rank" "$work/$source" >"$work/got.lines"
    [[ "$(tail -n 1 "$work/got.lines")" == *"$suffix" ]] || fail "$source: the last line does not end with '$suffix'"
    while IFS= read -r line; do
        [[ "$line" == "$prefix"* ]] || fail "$source: unexpected line: $line"
        line=${line#"$prefix"}
        echo "${line%"$suffix"}"
    done <"$work/got.lines" | sort >"$work/got.sorted"
    cmp -s "$work/got.sorted" "$work/expected.sorted" ||
        fail "$source: refusal lines differ from the expected ones:
$(diff "$work/expected.sorted" "$work/got.sorted")"
done

# Epoch 1 is the only committed one, so the restart must restore it and end as the reference did.
committed=$(cd "$work/ckpt" && find . -name MANIFEST | sort | tr '\n' ' ')
[[ "$committed" == "./1/MANIFEST " ]] || fail "committed epochs: $committed, expected only epoch 1"
(cd "$work/run" && exec env YK_APP_PAUSE="$work/pause" timeout -k 10 300 "$yadokari" restart --ckpt-dir "$work/ckpt" \
    >restart.out 2>restart.err) || fail "the restart exited $?"
cmp -s "$work/reference/reference.out" "$work/run/restart.out" ||
    fail "the restart's output differs from the reference: $(diff "$work/reference/reference.out" "$work/run/restart.out" | head -n 5)"
echo "table_limits: OK ($mode, $flavour: refused with the expected line, epoch 1 stayed the newest and restored)"
