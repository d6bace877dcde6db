#!/usr/bin/env bash
# The common part of the real-application checks (bench/apps/README.md). An application script
# sets the variables and functions below and then calls `app_main "$@"`; this runs the application
# three ways in fresh working directories and passes only if checkpoint + restart changed nothing:
#   reference  `yadokari run --ckpt-dir --interval 0`, uninterrupted (checkpointing on, no epoch);
#   part1      the same, asked for a checkpoint (`yadokari checkpoint`) once app_progress says the
#              run is far enough in, stopped right after epoch 1 commits (--stop-after-epoch 1, exit 75);
#   part2      `yadokari restart` from that epoch in part1's working directory.
# part1's stdout followed by part2's must equal the reference's, rank by rank (the launcher tags
# every line with its rank, --tag-output; it interleaves the ranks' lines in no fixed order, so
# each rank's lines are compared in their own order), and every file the application
# wrote must equal the reference's (after app_filter, which drops only lines with wall-clock or
# CPU times and dates). A checkpoint that arrives after the application ended is a failure.
#
# The application script defines:
#   APP_NAME            short name for messages
#   APP_CMD=(...)       the command after `yadokari run -n NP --`
#   APP_ENV=(K=V ...)   environment of all three runs (may be empty)
#   app_prepare DIR     writes the input into an empty working directory
#   app_progress DIR    exit 0 once the run in DIR is far enough in to ask for the checkpoint
#   app_where DIR       prints where the stopped part1 was (e.g. "after thermo step 400 of 2000")
#   app_filter NAME FILE  prints FILE as it is compared (default: unchanged); NAME is the path in
#                       the working directory, or "stdout" (then every line starts with "RANK:")
#
# usage: <app>.sh [--yadokari PATH] [--np N] [--restart-args "ARGS"] [--keep]
#   --yadokari      the CLI (default: <repo>/build/bin/yadokari)
#   --np            ranks (default 2)
#   --restart-args  more `yadokari restart` arguments, e.g. "--rank-map 1,0"
#   --keep          keep the working directories and checkpoints (the path is printed)
set -u

app_filter() { cat "$2"; }

app_usage() {
    sed -n '/^# usage:/,/^#   --keep/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

app_fail() {
    echo "$APP_NAME: FAIL: $*" >&2
    for f in "$work"/*.err; do
        [[ -s "$f" ]] && { echo "--- $(basename "$f")" >&2; tail -n 20 "$f" >&2; }
    done
    exit 1
}

# app_run DIR NAME ARGS...: `yadokari ARGS...` in DIR with APP_ENV, output to $work/NAME.{out,err}.
app_run() {
    local dir="$1" name="$2"
    shift 2
    (cd "$dir" && exec env "${APP_ENV[@]}" timeout -k 10 "$limit" "$yadokari" "$@" \
        >"$work/$name.out" 2>"$work/$name.err")
}

# app_compared NAME FILE: FILE as it is compared: filtered as NAME's; stdout's lines grouped by the
# rank tag ("[1,0]<stdout>:"), each rank's in their order.
app_compared() {
    if [[ $1 == stdout ]]; then
        LC_ALL=C sort -s -t']' -k1,1 "$2" | sed -E 's/^\[[0-9]+,([0-9]+)\]<stdout>:/\1:/' >"$2.ranks"
        app_filter stdout "$2.ranks"
    else
        app_filter "$1" "$2"
    fi
}

# app_logical_tags LIST FILE: the launcher tags a line with the real rank; after a restart with
# --rank-map LIST, real rank i hosts logical rank LIST[i] (runtime/README.md), which is what the
# comparison needs.
app_logical_tags() {
    awk -v list="$1" 'BEGIN { n = split(list, map, ",") }
        match($0, /^\[[0-9]+,[0-9]+\]/) {
            split(substr($0, 2, RLENGTH - 2), tag, ",")
            $0 = "[" tag[1] "," map[tag[2] + 1] "]" substr($0, RLENGTH + 1)
        }
        { print }' "$2"
}

# app_compare NAME A B: A and B as they are compared are equal.
app_compare() {
    cmp -s <(app_compared "$1" "$2") <(app_compared "$1" "$3") && return 0
    diff <(app_compared "$1" "$2") <(app_compared "$1" "$3") | head -n 20 >&2
    app_fail "$1 differs from the uninterrupted run's"
}

app_main() {
    local np=2 keep=0 repo restart_args=""
    repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    yadokari="$repo/build/bin/yadokari"
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --yadokari) yadokari="$2"; shift 2 ;;
            --np) np="$2"; shift 2 ;;
            --restart-args) restart_args="$2"; shift 2 ;;
            --keep) keep=1; shift ;;
            *) app_usage ;;
        esac
    done
    [[ -x "$yadokari" ]] || { echo "$APP_NAME: no yadokari CLI at $yadokari" >&2; exit 2; }
    command -v "${APP_CMD[0]}" >/dev/null ||
        { echo "$APP_NAME: ${APP_CMD[0]} is not installed (ci/install-deps.sh installs it)" >&2; exit 2; }
    yadokari=$(realpath "$yadokari")

    work=$(mktemp -d "${TMPDIR:-/tmp}/yk-realapp.XXXXXX")
    if [[ $keep == 1 ]]; then
        echo "$APP_NAME: everything kept in $work"
    else
        trap 'rm -rf "$work"' EXIT
    fi
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # `yadokari checkpoint` must find this job and no other.
    export YADOKARI_STATE_DIR="$work/state"
    limit=900
    mkdir -p "$work/reference" "$work/run"
    app_prepare "$work/reference"
    app_prepare "$work/run"
    local inputs
    inputs=$(cd "$work/run" && find . -type f | sort)

    app_run "$work/reference" reference run -n "$np" --mpi-args=--tag-output --ckpt-dir "$work/ckpt-reference" --interval 0 \
        -- "${APP_CMD[@]}"
    local rc=$?
    [[ $rc == 0 ]] || app_fail "the reference run exited $rc"
    [[ ! -e "$work/ckpt-reference/1" ]] || app_fail "the reference run made an epoch nobody asked for"

    app_run "$work/run" part1 run -n "$np" --mpi-args=--tag-output --ckpt-dir "$work/ckpt" --interval 0 --stop-after-epoch 1 \
        -- "${APP_CMD[@]}" &
    local job=$!
    until app_progress "$work/run"; do
        kill -0 "$job" 2>/dev/null || { wait "$job"; app_fail "part1 ended (exit $?) before it was far enough in to ask for the checkpoint"; }
        sleep 0.2
    done
    # The job registers with its coordinator around MPI_Init; it is past that here, but ask again
    # while the CLI does not find it yet.
    local asked=0
    for _ in $(seq 300); do
        if "$yadokari" checkpoint >"$work/ask.out" 2>"$work/ask.txt"; then asked=1; break; fi
        grep -q "no running job found\|not answering\|not registered" "$work/ask.txt" || break
        kill -0 "$job" 2>/dev/null || break
        sleep 0.2
    done
    [[ $asked == 1 ]] || { kill "$job" 2>/dev/null; app_fail "yadokari checkpoint: $(cat "$work/ask.txt")"; }
    wait "$job"
    rc=$?
    if [[ $rc == 0 ]]; then
        app_fail "part1 ended normally before epoch 1 committed: the checkpoint came too late for this input, so nothing was restarted (make the run longer)"
    fi
    if [[ $rc != 75 ]]; then
        grep -h "checkpoint epoch" "$work/part1.err" >&2
        app_fail "part1 exited $rc, expected 75 (stopped after epoch 1)"
    fi
    [[ -f "$work/ckpt/1/MANIFEST" ]] || app_fail "epoch 1 was not committed"
    local where
    where=$(app_where "$work/run")

    # shellcheck disable=SC2086  # --restart-args is meant to split into words
    app_run "$work/run" part2 restart --ckpt-dir "$work/ckpt" $restart_args
    rc=$?
    [[ $rc == 0 ]] || app_fail "the restart exited $rc"

    local rank_map
    rank_map=$(sed -nE 's/.*--rank-map[ =]([0-9,]+).*/\1/p' <<<"$restart_args")
    if [[ -n "$rank_map" ]]; then
        app_logical_tags "$rank_map" "$work/part2.out" >"$work/part2.logical.out"
        cat "$work/part1.out" "$work/part2.logical.out" >"$work/joined.out"
    else
        cat "$work/part1.out" "$work/part2.out" >"$work/joined.out"
    fi
    app_compare stdout "$work/reference.out" "$work/joined.out"
    local ref_files run_files f n=0 filtered=""
    ref_files=$(cd "$work/reference" && find . -type f | sort)
    run_files=$(cd "$work/run" && find . -type f | sort)
    [[ "$ref_files" == "$run_files" ]] ||
        { diff <(echo "$ref_files") <(echo "$run_files") >&2; app_fail "the restarted run wrote other files than the uninterrupted run"; }
    for f in $ref_files; do
        grep -qxF "$f" <<<"$inputs" && continue
        app_compare "${f#./}" "$work/reference/$f" "$work/run/$f"
        n=$((n + 1))
        cmp -s "$work/reference/$f" "$work/run/$f" || filtered+=" ${f#./}"
    done
    [[ $n -gt 0 ]] || app_fail "the application wrote no file to compare"
    echo "$APP_NAME: OK (checkpointed $where; stdout and $n output files identical to the uninterrupted run's${filtered:+; identical only after app_filter:$filtered})"
}
