#!/usr/bin/env bash
# An application test (tests/apps/README.md): run a program that has a pause point three ways in
# fresh working directories, and pass only if checkpoint + restart changed nothing.
#   reference  `yadokari run`, uninterrupted (its pause point is released from the start);
#   part1      `yadokari run --ckpt-dir`, asked for a checkpoint while its ranks wait at the pause
#              point, stopped right after epoch 1 commits (exit 75);
#   part2      `yadokari restart` from that epoch in part1's working directory, pause released.
# Then part1's stdout followed by part2's must equal the reference's byte for byte, and every file
# the program wrote in its working directory must be byte-identical to the reference's.
# With --run-on, part1 is not stopped: it goes on to its end once epoch 1 commits, as a run that
# fails later would have (its writes past the checkpoint are in the files when part2 starts); its
# stdout must then equal the reference's, and part2's the end of it.
#
# usage: app_restart.sh --yadokari PATH --flavour openmpi|mpich --np N [--run-mpi-args "STR"]
#                       [--restart-mpi-args "STR"] [--restart-args "ARGS"] [--env "K=V ..."]
#                       [--restart-env "K=V ..."] [--run-on] [--part1-env "K=V ..."]
#                       [--restart-refused "LINE"]
#                       -- PROGRAM [ARGS...]
#   --run-mpi-args      launcher arguments of the reference and part1 (--mpi-args)
#   --restart-mpi-args  launcher arguments of the restart (e.g. another transport)
#   --restart-args      extra `yadokari restart` arguments (e.g. --rank-map 1,0)
#   --env               environment of all three runs (e.g. OMP_NUM_THREADS=2)
#   --restart-env       environment of the restart only, after --env's (e.g. OMP_NUM_THREADS=1)
#   --run-on            part1 goes on to its end after epoch 1 instead of stopping
#   --part1-env         environment of part1 only, after --env's
#   --restart-refused L the restart must fail instead, with line L on its stderr, leaving every file
#                       of the checkpoint directory as it was
# KEEP_WORKDIR=1 keeps everything (the path is printed).
set -u

usage() {
    sed -n '/^# usage:/,/^#                       of the checkpoint/p' "$0" >&2
    exit 2
}

yadokari="" flavour="" np="" restart_args="" refused="" extra_env="" restart_env="" part1_env="" step_env="" run_on=0
run_mpi=() restart_mpi=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --yadokari) yadokari="$2"; shift 2 ;;
        --flavour) flavour="$2"; shift 2 ;;
        --np) np="$2"; shift 2 ;;
        --run-mpi-args) run_mpi=(--mpi-args "$2"); shift 2 ;;
        --restart-mpi-args) restart_mpi=(--mpi-args "$2"); shift 2 ;;
        --restart-args) restart_args="$2"; shift 2 ;;
        --env) extra_env="$2"; shift 2 ;;
        --restart-env) restart_env="$2"; shift 2 ;;
        --run-on) run_on=1; shift ;;
        --part1-env) part1_env="$2"; shift 2 ;;
        --restart-refused) refused="$2"; shift 2 ;;
        --) shift; break ;;
        *) usage ;;
    esac
done
[[ -n "$yadokari" && -n "$flavour" && -n "$np" && $# -ge 1 ]] || usage
[[ -x "$yadokari" ]] || { echo "app_restart: no yadokari CLI at $yadokari" >&2; exit 2; }
[[ -x "$1" ]] || { echo "app_restart: no program at $1" >&2; exit 2; }
program=("$@")
yadokari=$(realpath "$yadokari")
program[0]=$(realpath "${program[0]}")

work=$(mktemp -d "${TMPDIR:-/tmp}/yk-app.XXXXXX")
if [[ "${KEEP_WORKDIR:-0}" == 1 ]]; then
    echo "app_restart: everything kept in $work"
else
    trap 'rm -rf "$work"' EXIT
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# `yadokari checkpoint` must find this test's job and no other.
export YADOKARI_STATE_DIR="$work/state"
limit=300
mkdir -p "$work/reference" "$work/run"

fail() {
    echo "app_restart: FAIL: $*" >&2
    for f in "$work"/*.err; do
        [[ -s "$f" ]] && { echo "--- $(basename "$f")" >&2; tail -n 20 "$f" >&2; }
    done
    exit 1
}

# run_in DIR NAME COMMAND...: in DIR with the extra environment (and $step_env's, set for the
# restart only); stdout/stderr to $work/NAME.*
run_in() {
    local dir="$1" name="$2"
    shift 2
    # shellcheck disable=SC2086  # the --env strings are meant to split into words
    (cd "$dir" && exec env $extra_env $step_env timeout -k 10 "$limit" "$@" >"$work/$name.out" 2>"$work/$name.err")
}

touch "$work/reference-go"
YK_APP_PAUSE="$work/reference-go" run_in "$work/reference" reference \
    "$yadokari" run -n "$np" --mpi "$flavour" "${run_mpi[@]}" -- "${program[@]}"
rc=$?
[[ $rc == 0 ]] || fail "the reference run exited $rc"
[[ -s "$work/reference.out" ]] || fail "the reference run printed nothing"

# part1 waits at its pause point until $work/go exists, which is made only after it was stopped
# (with --run-on: once epoch 1 committed).
stop=(--stop-after-epoch 1)
[[ $run_on == 1 ]] && stop=()
step_env="$part1_env"
YK_APP_PAUSE="$work/go" run_in "$work/run" part1 \
    "$yadokari" run -n "$np" --mpi "$flavour" --ckpt-dir "$work/ckpt" --interval 0 "${stop[@]}" \
    "${run_mpi[@]}" -- "${program[@]}" &
job=$!
step_env=""
until [[ -e "$work/go.reached" ]]; do
    kill -0 "$job" 2>/dev/null || { wait "$job"; fail "part1 ended (exit $?) before its pause point"; }
    sleep 0.1
done
# The job registers with its coordinator around MPI_Init; ask until it has.
asked=0
for _ in $(seq 600); do
    if "$yadokari" checkpoint >"$work/ask.out" 2>"$work/ask.txt"; then asked=1; break; fi
    grep -q "no running job found\|not answering\|not registered" "$work/ask.txt" || break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
done
[[ $asked == 1 ]] || { kill "$job" 2>/dev/null; fail "yadokari checkpoint: $(cat "$work/ask.txt")"; }
if [[ $run_on == 1 ]]; then
    until [[ -f "$work/ckpt/1/MANIFEST" ]]; do
        kill -0 "$job" 2>/dev/null || { wait "$job"; fail "part1 ended (exit $?) before epoch 1 committed"; }
        sleep 0.1
    done
    touch "$work/go"
    wait "$job"
    rc=$?
    [[ $rc == 0 ]] || fail "part1 exited $rc, expected 0 (run on to its end after epoch 1)"
else
    wait "$job"
    rc=$?
    [[ $rc == 75 ]] || fail "part1 exited $rc, expected 75 (stopped after epoch 1)"
fi
[[ -f "$work/ckpt/1/MANIFEST" ]] || fail "epoch 1 was not committed"

touch "$work/go"
step_env="$restart_env"
checkpoint_files() { (cd "$work/ckpt" && find . -type f -exec sha256sum {} + | sort); }
[[ -n "$refused" ]] && checkpoint_before=$(checkpoint_files)
# shellcheck disable=SC2086  # --restart-args is meant to split into words
YK_APP_PAUSE="$work/go" run_in "$work/run" part2 \
    "$yadokari" restart --ckpt-dir "$work/ckpt" "${restart_mpi[@]}" $restart_args
rc=$?
if [[ -n "$refused" ]]; then
    [[ $rc != 0 ]] || fail "the restart exited 0, expected it to be refused"
    grep -qF -- "$refused" "$work/part2.err" || { tail -n 5 "$work/part2.err" >&2; fail "the restart did not say: $refused"; }
    [[ "$(checkpoint_files)" == "$checkpoint_before" ]] || fail "the refused restart changed the checkpoint directory"
    echo "app_restart: OK (the restart was refused with the expected line, exit $rc; the checkpoint is unchanged)"
    exit 0
fi
[[ $rc == 0 ]] || fail "the restart exited $rc"

if [[ $run_on == 1 ]]; then
    cmp -s "$work/reference.out" "$work/part1.out" ||
        fail "stdout of the run that went on past the checkpoint differs from the uninterrupted run's"
    # What part2 printed is the end of the reference's stdout; joined with the reference's
    # beginning it must be the whole of it.
    head -n "$(($(wc -l <"$work/reference.out") - $(wc -l <"$work/part2.out")))" "$work/reference.out" >"$work/joined.out"
    cat "$work/part2.out" >>"$work/joined.out"
else
    cat "$work/part1.out" "$work/part2.out" >"$work/joined.out"
fi
if ! cmp -s "$work/reference.out" "$work/joined.out"; then
    diff "$work/reference.out" "$work/joined.out" | head -n 20 >&2
    fail "stdout before the checkpoint and after the restart differs from the uninterrupted run's"
fi
if ! diff -r "$work/reference" "$work/run" >"$work/files.diff" 2>&1; then
    head -n 20 "$work/files.diff" >&2
    fail "the files the program wrote differ from the uninterrupted run's"
fi
[[ -n "$(ls -A "$work/reference")" ]] && files="$(cd "$work/reference" && find . -type f | wc -l) files" || files="no files"
after=$(wc -l <"$work/part2.out")
echo "app_restart: OK ($(($(wc -l <"$work/reference.out") - after)) lines before the checkpoint, $after after the restart; $files identical)"
