#!/usr/bin/env bash
# The common part of the real-application checks (bench/apps/README.md). An application script
# sets the variables and functions below and then calls `app_main "$@"`; this runs the application
# three ways in fresh working directories and passes only if checkpoint + restart changed nothing:
#   reference  `yadokari run --ckpt-dir --interval 0`, uninterrupted (checkpointing on, no epoch);
#   part1      the same, asked for a checkpoint (`yadokari checkpoint`) once app_progress says the
#              run is far enough in, stopped right after epoch 1 commits (--stop-after-epoch 1, exit 75);
#   part2      `yadokari restart` from that epoch in part1's working directory.
# With --kill, part1 runs on after the epoch commits until app_progress_kill says it is further in,
# and then its ranks are killed (SIGKILL), as on a failure: part2 must end with the same files
# although the killed ranks wrote past the checkpoint, and part2's stdout must be, rank by rank, the
# end of the reference's (part1's stdout goes past the checkpoint).
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
#   app_progress_kill DIR  (for --kill) exit 0 once the run in DIR is far enough past the epoch
#   app_where DIR       prints where the stopped part1 was (e.g. "after thermo step 400 of 2000")
#   app_filter NAME FILE  prints FILE as it is compared (default: unchanged); NAME is the path in
#                       the working directory, or "stdout" (then every line starts with "RANK:")
#
# usage: <app>.sh [--yadokari PATH] [--np N] [--restart-args "ARGS"] [--kill] [--keep]
#   --yadokari      the CLI (default: <repo>/build/bin/yadokari)
#   --np            ranks (default 2)
#   --restart-args  more `yadokari restart` arguments, e.g. "--rank-map 1,0"
#   --kill          kill part1's ranks after the epoch instead of --stop-after-epoch 1
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

# app_compared NAME FILE: FILE as it is compared: filtered as NAME's; stdout as each rank's stream
# put back together from the rank tags ("[1,0]<stdout>:"), rank after rank (rank_streams.py).
app_compared() {
    if [[ $1 == stdout ]]; then
        python3 "$(dirname "${BASH_SOURCE[0]}")/rank_streams.py" "$2" >"$2.ranks"
        app_filter stdout "$2.ranks"
    else
        app_filter "$1" "$2"
    fi
}

# app_logical_tags LIST FILE: the launcher tags output with the real rank; after a restart with
# --rank-map LIST, real rank i hosts logical rank LIST[i] (runtime/README.md), which is what the
# comparison needs. Every tag is turned, also one inside a line (rank_streams.py tells why).
app_logical_tags() {
    awk -v list="$1" 'BEGIN { n = split(list, map, ",") }
        {
            out = ""
            while (match($0, /\[[0-9]+,[0-9]+\]<stdout>:/)) {
                split(substr($0, RSTART + 1, RLENGTH - 11), tag, ",")
                out = out substr($0, 1, RSTART - 1) "[" tag[1] "," map[tag[2] + 1] "]<stdout>:"
                $0 = substr($0, RSTART + RLENGTH)
            }
            print out $0
        }' "$2"
}

# app_compare_stdout_end REFERENCE PART2: each rank's stdout lines of PART2 are the last lines of
# that rank in REFERENCE.
app_compare_stdout_end() {
    app_compared stdout "$1" >"$1.cmp"
    app_compared stdout "$2" >"$2.cmp"
    local rank n
    for rank in $(cut -d: -f1 "$2.cmp" | sort -u); do
        n=$(grep -c "^$rank:" "$2.cmp")
        cmp -s <(grep "^$rank:" "$1.cmp" | tail -n "$n") <(grep "^$rank:" "$2.cmp") && continue
        diff <(grep "^$rank:" "$1.cmp" | tail -n "$n") <(grep "^$rank:" "$2.cmp") | head -n 20 >&2
        app_fail "rank $rank's stdout after the restart is not the end of the uninterrupted run's"
    done
}

# app_kill_ranks JOB: SIGKILL to the processes below JOB that run the application (the ranks
# re-execute themselves, so they are found by executable, not by name).
app_kill_ranks() {
    local app pid ranks=()
    app=$(realpath "$(command -v "${APP_CMD[0]}")")
    for pid in $(app_descendants "$1"); do
        [[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" == "$app" ]] && ranks+=("$pid")
    done
    [[ ${#ranks[@]} -gt 0 ]] || app_fail "found no rank of the job to kill"
    kill -KILL "${ranks[@]}"
}

app_descendants() {
    local child
    for child in $(ps -o pid= --ppid "$1"); do
        echo "$child"
        app_descendants "$child"
    done
}

# app_compare NAME A B: A and B as they are compared are equal.
app_compare() {
    cmp -s <(app_compared "$1" "$2") <(app_compared "$1" "$3") && return 0
    diff <(app_compared "$1" "$2") <(app_compared "$1" "$3") | head -n 20 >&2
    app_fail "$1 differs from the uninterrupted run's"
}

app_main() {
    local np=2 keep=0 kill=0 repo restart_args=""
    repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    yadokari="$repo/build/bin/yadokari"
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --yadokari) yadokari="$2"; shift 2 ;;
            --np) np="$2"; shift 2 ;;
            --restart-args) restart_args="$2"; shift 2 ;;
            --keep) keep=1; shift ;;
            --kill) kill=1; shift ;;
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

    local stop=(--stop-after-epoch 1)
    [[ $kill == 1 ]] && stop=()
    # With --kill the ranks hold at MPI_Finalize (YADOKARI_FAULT_HOLD_FINALIZE): however fast the
    # machine, they are still there to be killed once the run is far enough past the epoch.
    local shared_env=("${APP_ENV[@]}")
    [[ $kill == 1 ]] && APP_ENV+=(YADOKARI_FAULT_HOLD_FINALIZE="$work/never-created")
    app_run "$work/run" part1 run -n "$np" --mpi-args=--tag-output --ckpt-dir "$work/ckpt" --interval 0 "${stop[@]}" \
        -- "${APP_CMD[@]}" &
    APP_ENV=("${shared_env[@]}")  # the background job has its copy; part2 must not hold
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
    if [[ $asked == 0 ]] && ! kill -0 "$job" 2>/dev/null; then
        wait "$job"
        app_fail "part1 ended (exit $?) before the checkpoint could be asked for: too late for this input (make the run longer)"
    fi
    [[ $asked == 1 ]] || { kill "$job" 2>/dev/null; app_fail "yadokari checkpoint: $(cat "$work/ask.txt")"; }
    local where=""
    if [[ $kill == 1 ]]; then
        until [[ -f "$work/ckpt/1/MANIFEST" ]]; do
            kill -0 "$job" 2>/dev/null || { wait "$job"; app_fail "part1 ended (exit $?) before epoch 1 committed: the checkpoint came too late for this input"; }
            sleep 0.2
        done
        where="$(app_where "$work/run") (epoch 1 committed), "
        until app_progress_kill "$work/run"; do
            kill -0 "$job" 2>/dev/null || { wait "$job"; app_fail "part1 ended (exit $?) before it was far enough past the epoch to be killed"; }
            sleep 0.2
        done
        app_kill_ranks "$job"
        where+="killed $(app_where "$work/run")"
    fi
    wait "$job"
    rc=$?
    if [[ $kill == 1 ]]; then
        [[ $rc != 0 ]] || app_fail "part1 exited 0 although its ranks were killed"
    elif [[ $rc == 0 ]]; then
        app_fail "part1 ended normally before epoch 1 committed: the checkpoint came too late for this input, so nothing was restarted (make the run longer)"
    fi
    if [[ $kill == 0 && $rc != 75 ]]; then
        grep -h "checkpoint epoch" "$work/part1.err" >&2
        app_fail "part1 exited $rc, expected 75 (stopped after epoch 1)"
    fi
    [[ -f "$work/ckpt/1/MANIFEST" ]] || app_fail "epoch 1 was not committed"
    [[ $kill == 1 ]] || where=$(app_where "$work/run")

    # shellcheck disable=SC2086  # --restart-args is meant to split into words
    app_run "$work/run" part2 restart --ckpt-dir "$work/ckpt" $restart_args
    rc=$?
    [[ $rc == 0 ]] || app_fail "the restart exited $rc"

    local rank_map
    rank_map=$(sed -nE 's/.*--rank-map[ =]([0-9,]+).*/\1/p' <<<"$restart_args")
    if [[ -n "$rank_map" ]]; then
        app_logical_tags "$rank_map" "$work/part2.out" >"$work/part2.logical.out"
    else
        cp "$work/part2.out" "$work/part2.logical.out"
    fi
    if [[ $kill == 1 ]]; then
        app_compare_stdout_end "$work/reference.out" "$work/part2.logical.out"
    else
        cat "$work/part1.out" "$work/part2.logical.out" >"$work/joined.out"
        app_compare stdout "$work/reference.out" "$work/joined.out"
    fi
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
    local said="stdout and $n output files identical to the uninterrupted run's"
    [[ $kill == 1 ]] && said="stdout after the restart the end of the uninterrupted run's, $n output files identical to its"
    echo "$APP_NAME: OK (checkpointed $where; $said${filtered:+; identical only after app_filter:$filtered})"
}
