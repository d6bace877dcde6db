# Sourced by the simulated-cluster tests. Gives each test its own state directory and cluster
# name, and on every exit path: `sim down`, then checks that nothing is left behind (holder
# processes, the state directory, interfaces or named namespaces in the root namespace).
# Needs: $Y (the yadokari CLI). Exit 77 (skipped) when not root.
set -u
[[ $(id -u) == 0 ]] || { echo "skipped: the simulated cluster needs root"; exit 77; }
[[ -x "$Y" ]] || { echo "no yadokari CLI at $Y" >&2; exit 2; }

export YADOKARI_SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/yk-sim-test.XXXXXX")
NAME="t$$"
NAME=${NAME:0:12}
DIR="$YADOKARI_SIM_DIR/$NAME"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/yk-sim-work.XXXXXX")
export YADOKARI_STATE_DIR="$WORK/jobs"  # this test's jobs only, for status/checkpoint/rebalance
# Every job of these tests holds its ranks at MPI_Finalize until wait_job releases it, so that no
# job can end before the epochs, losses and restarts its test waits for, however fast the machine
# (YADOKARI_FAULT_HOLD_FINALIZE, docs/CONTRACTS.md). The ranks still take part in checkpoints there.
RELEASE="$WORK/release"
export YADOKARI_FAULT_HOLD_FINALIZE="$RELEASE"
ROOT_LINKS_BEFORE=$(ip -o link show | awk -F': ' '{print $2}' | sort)
ROOT_NETNS_BEFORE=$(ip netns list 2>/dev/null | sort)
FAILURES=0

fail() { echo "FAIL: $*" >&2; FAILURES=$((FAILURES + 1)); }
pass() { echo "ok: $*"; }

cleanup() {
    local status=$?
    # A failed test shows the front end's own lines: what the runtime said before things went wrong.
    if ((status != 0 || FAILURES > 0)) && [[ -s "$WORK/run.err" ]]; then
        echo "--- last 40 lines of the job's stderr (run.err) ---" >&2
        tail -n 40 "$WORK/run.err" >&2
    fi
    "$Y" sim down --name "$NAME" >/dev/null 2>&1 || { echo "FAIL: sim down failed in cleanup" >&2; status=1; }
    if pgrep -f "^yadokari-sim:$YADOKARI_SIM_DIR/" >/dev/null; then
        echo "FAIL: holder processes left behind: $(pgrep -af "^yadokari-sim:$YADOKARI_SIM_DIR/")" >&2
        kill -9 $(pgrep -f "^yadokari-sim:$YADOKARI_SIM_DIR/") 2>/dev/null
        status=1
    fi
    [[ -e "$DIR" ]] && { echo "FAIL: state directory $DIR left behind" >&2; status=1; }
    local links netns
    links=$(ip -o link show | awk -F': ' '{print $2}' | sort)
    netns=$(ip netns list 2>/dev/null | sort)
    [[ "$links" == "$ROOT_LINKS_BEFORE" ]] || { echo "FAIL: root namespace interfaces changed: $links" >&2; status=1; }
    [[ "$netns" == "$ROOT_NETNS_BEFORE" ]] || { echo "FAIL: named namespaces changed: $netns" >&2; status=1; }
    rm -rf "$YADOKARI_SIM_DIR" "$WORK"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# FILE without the banner Hydra appends to the job's stdout when it is killed (an empty line,
# then "=====..." and "BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES").
without_launcher_banner() {
    awk '{ line[NR] = $0 }
         /^=+$/ && NR > 1 && line[NR - 1] == "" { cut = NR - 1; exit }
         END { last = cut ? cut - 1 : NR; for (i = 1; i <= last; i++) print line[i] }' "$1"
}

# Processes in the cluster's node and frontend namespaces other than their holders, one per line.
job_processes() {
    /usr/bin/python3 - "$DIR/state.json" <<'PY'
import json, os, sys
state = json.load(open(sys.argv[1]))
holders = {node["netns"]: node["pid"] for node in state["nodes"] + [state["frontend"]]}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        space = os.readlink(f"/proc/{pid}/ns/net")
        command = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        continue  # gone meanwhile, or a zombie
    if space in holders and int(pid) != holders[space]:
        print(pid, command[:100])
PY
}
none_left() { [[ -z "$(job_processes)" ]]; }

# wait_for SECONDS COMMAND...: true once COMMAND succeeds within SECONDS; once the job ($job) has
# ended, COMMAND decides at once.
wait_for() {
    local tries=$(($1 * 20))
    shift
    for _ in $(seq $tries); do
        "$@" && return 0
        kill -0 "$job" 2>/dev/null || { "$@"; return; }
        sleep 0.05
    done
    return 1
}

# ask_checkpoint: asks the running job ($job) for an epoch now (`yadokari checkpoint`, retried
# until the job is registered) and prints the committed epoch's number; fails with the reason.
ask_checkpoint() {
    local out
    for _ in $(seq 600); do
        out=$("$Y" checkpoint 2>&1) && { sed -n 's/^yadokari: epoch \([0-9]*\) committed$/\1/p' <<<"$out"; return 0; }
        [[ "$out" == "yadokari: no running job found" ]] || { echo "$out" >&2; return 1; }
        kill -0 "$job" 2>/dev/null || { echo "the job ended" >&2; return 1; }
        sleep 0.1
    done
    echo "the job never registered" >&2
    return 1
}

# wait_job PID OUT [GRACE]: releases the job (RELEASE), waits for the background job PID and
# returns its exit code. Native MPICH over TCP hangs in MPI_Finalize after all output; the MPICH
# shim prevents it in yadokari jobs (docs/platform.md §1, "MPICH's finalize over TCP"), so the
# grace is only a safety net: once OUT has the program's `final` line and the job still runs
# GRACE (20) s later, it is stopped (SIGTERM through `timeout` and the front end to the launcher)
# and 124 is returned, as if its watchdog had fired.
wait_job() {
    local pid="$1" out="$2" grace="${3:-20}" since=""
    touch "$RELEASE"
    while kill -0 "$pid" 2>/dev/null; do
        [[ -z "$since" ]] && grep -q '^final' "$out" 2>/dev/null && since=$SECONDS
        if [[ -n "$since" ]] && ((SECONDS - since >= grace)); then
            kill -TERM "$pid" 2>/dev/null
            for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
            # Still there: the front end and the watchdog go; `sim down` takes what ran in the cluster.
            kill -0 "$pid" 2>/dev/null && { pkill -KILL -P "$pid"; kill -KILL "$pid"; } 2>/dev/null
            wait "$pid"
            return 124
        fi
        sleep 0.5
    done
    wait "$pid"
}

# reference_final RANKS ARGS...: the final line of an uninterrupted run on the cluster's live nodes
# (on $REFERENCE_HOSTS instead, e.g. n1:4, when set).
# The programs these tests run are deterministic: their final line depends on the program, its
# arguments, the rank count and the MPI, not on where the ranks run (that is what the tests show
# of a restart on other nodes). So one reference run serves every test of a suite that asks for the
# same one: it is kept in the build tree, keyed by those and by the contents of the program, the
# CLI and the shim (a rebuild makes a new key). Saves one job per repeat (about a minute each here).
REFERENCE_CACHE="$(dirname "$Y")/../tests/sim/reference-cache"
reference_key() {
    local ranks="$1" shim
    shift
    shim="$(dirname "$Y")/../lib/libyadokari-$FLAVOUR.so"
    { printf '%s\n' "$FLAVOUR" "$ranks" "$@"; cat "$1" "$Y" "$shim" 2>/dev/null; } | sha256sum | cut -c1-32
}
reference_final() {
    local ranks="$1" key cached final
    shift
    key=$(reference_key "$ranks" "$@")
    cached="$REFERENCE_CACHE/$key"
    if [[ -s "$cached" ]]; then
        echo "(reference final line from an earlier uninterrupted run of the same program: $cached)" >reference.err
        cat "$cached"
        return
    fi
    # No fault is injected here: a node declared lost would only mean the machine was loaded (seen
    # with a build running beside the suite), and would cost the test its expected answer. So the
    # reference tolerates long silences (50 x 200 ms); the runs under test keep the defaults.
    YADOKARI_HEARTBEAT_MISSES=50 timeout -k 5 300 "$Y" run --sim "$NAME" ${REFERENCE_HOSTS:+--hosts "$REFERENCE_HOSTS"} -n "$ranks" --mpi "$FLAVOUR" \
        -- "$@" >reference.out 2>reference.err </dev/null &
    local code=0
    wait_job $! reference.out || code=$?
    final=$(grep '^final' reference.out | tail -n 1)
    # Kept only from a run that ended by itself (MPICH's finalize hang after the line counts).
    if [[ -n "$final" ]] && [[ $code == 0 || ( "$FLAVOUR" == mpich && $code == 124 ) ]]; then
        mkdir -p "$REFERENCE_CACHE" && printf '%s\n' "$final" >"$cached.tmp.$$" && mv -f "$cached.tmp.$$" "$cached"
    fi
    echo "$final"
}

# expect_finished CODE: the job (stdout run.out, stderr run.err) ended by itself: exit 0, or MPICH's
# finalize hang over TCP (124 from wait_job) after its final line.
expect_finished() {
    local code="$1"
    if [[ $code == 0 || ( "$FLAVOUR" == mpich && $code == 124 && -n $(grep '^final' run.out) ) ]]; then
        pass "the job finished by itself (exit $code)"
    else
        fail "the job exited $code: $(tail -3 run.err)"
    fi
}

# expect_reference_final RANKS ARGS...: run.out's final line equals an uninterrupted run's
# (reference_final) on the cluster's live nodes.
expect_reference_final() {
    local final got
    final=$(reference_final "$@")
    got=$(grep '^final' run.out | tail -n 1)
    [[ -n "$final" && "$got" == "$final" ]] && pass "same final result: $final" ||
        fail "final result '$got', expected '$final' (the reference run's stderr: $(tail -n 5 reference.err))"
}

# rank_places: "rank host pid" per rank, from `yadokari status --json`.
rank_places() {
    "$Y" status --json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
for r in sorted(json.load(sys.stdin)["ranks"], key=lambda r: r["rank"]):
    print(r["rank"], r["host"], r["pid"])'
}

# expect_moved_live BEFORE NODE: after a live move of ranks 2,3 of 4 to NODE, every rank registered
# again; ranks 0,1 with the hosts and pids BEFORE (rank_places) gave them, ranks 2,3 on NODE.
expect_moved_live() {
    local before="$1" node="$2" after
    wait_for 30 eval '[[ $(rank_places | wc -l) == 4 ]]' || fail "not every rank registered again"
    after=$(rank_places)
    [[ "$(sed -n 1,2p <<<"$after")" == "$(sed -n 1,2p <<<"$before")" ]] \
        && pass "ranks 0,1: same hosts and pids ($(sed -n 1,2p <<<"$after" | tr '\n' ' '))" \
        || fail "ranks 0,1 before: $(sed -n 1,2p <<<"$before" | tr '\n' ' ') after: $(sed -n 1,2p <<<"$after" | tr '\n' ' ')"
    [[ "$(sed -n 3,4p <<<"$after" | cut -d' ' -f2 | sort -u)" == "yk$NAME-$node" ]] \
        && pass "ranks 2,3 on $node" || fail "ranks 2,3: $(sed -n 3,4p <<<"$after" | tr '\n' ' ')"
}

# expect_program_lines_only REGEX: every line of run.out matches REGEX (the program's own lines):
# nothing a launcher or an MPI library printed into the job's output (a banner about a killed
# process, a library's warnings at a finalize).
expect_program_lines_only() {
    local extra
    extra=$(grep -v -E "$1" run.out | head -n 3)
    [[ -z "$extra" ]] && pass "only the program's lines in its output" || fail "not the program's, in its output: $extra"
}

finish() {
    if ((FAILURES > 0)); then
        echo "$FAILURES check(s) failed" >&2
        exit 1
    fi
    echo "all checks passed"
    exit 0
}
