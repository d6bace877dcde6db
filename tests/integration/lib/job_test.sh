# Sourced first by the integration tests that run one job at a time, its pid in $job: a work
# directory removed at exit (with the job, if it still runs), root allowed for Open MPI, the jobs'
# state in the work directory, and fail() naming the test and showing the end of every *.err there.
# Then the helpers of `yadokari status` for such a job (rank_calls.sh).
# Needs: $test_name (the script's name, for messages and the work directory).
work=$(mktemp -d "${TMPDIR:-/tmp}/yk-${test_name}.XXXXXX")
job=""
trap '[[ -n "$job" ]] && kill "$job" 2>/dev/null; rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 YADOKARI_STATE_DIR="$work/state"

fail() {
    echo "$test_name: FAIL: $*" >&2
    for f in "$work"/*.err; do [[ -s "$f" ]] && { echo "--- $(basename "$f")" >&2; tail -n 15 "$f" >&2; }; done
    exit 1
}

source "$(dirname "${BASH_SOURCE[0]}")/rank_calls.sh"
