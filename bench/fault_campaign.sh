#!/usr/bin/env bash
# Fault campaign on the simulated cluster (issue 18 item 2): N randomly drawn faults (seeded) against
# jobs of the examples (and NPB class A kernels when NPB_DIR is set) under both MPIs. Each run gets a
# fresh cluster, a job under `yadokari run --sim` checkpointing into its own directory, one fault, and
# a verdict:
#   correct    the job ended (exit 0) with the `final` line of an uninterrupted run (NPB: verification
#              SUCCESSFUL)
#   clean-stop the job stopped with a one-line reason (exit != 0) and its newest committed epoch still
#              verifies (`yadokari inspect --verify` of every image)
#   WRONG      exit 0 with another result: the worst outcome
#   hang       the job did not end within --limit seconds
#   hang-after-result  the right result, but the job still ran 30 s later (stopped; backtraces of its
#              ranks kept): a hang, not a correct run
#   unclean    one of the above, but something was left behind: processes in the cluster's namespaces,
#              files in the /dev/shm of its nodes and frontend, /dev/shm segments or Open MPI session
#              directories named after its nodes, the job's state file, a namespace or interface in
#              the root namespace (added to the verdict, e.g. "correct+unclean")
# Faults: node-kill (at a random time), node-kill-cut (right after a checkpoint was asked for),
# node-kill-write (while the images of an epoch are written), node-kill-replica (images on the nodes'
# own disks, --node-dir, while an epoch is being copied to the partner), node-kill-restart (a second
# node while the job restarts after the first), rank-kill (SIGKILL of one rank), rank-stop (SIGSTOP of
# one rank for 1-4 s, then SIGCONT), link-down (`ip link set eth0 down` inside a node), disk-full (the
# checkpoint directory on a small tmpfs filled up before an epoch), frontend-kill (SIGKILL of `yadokari
# run`, then `yadokari restart`).
# Output: one JSON line per run (--out), every run's stderr in <out>-logs/run-N.err, the files of a
# run that was not correct or a clean stop (or whose restart was not up after 60 s: then with gdb
# backtraces of the program's processes) in <out>-kept/run-N, then a faults x outcome table and the time to recover (fault to
# the restarted job's ranks restored; frontend-kill: the duration of `yadokari restart`, apart).
#
# usage: bench/fault_campaign.sh [--faults N] [--seed S] [--mpi openmpi|mpich|both] [--build DIR]
#                                [--out FILE] [--kinds LIST] [--programs LIST] [--limit SECONDS]
#   --limit (default 300) is above the front end's bound on a stalled restart (180 s without a rank
#   coming up), so such a restart ends as a clean stop, not a hang.
#   --kinds/--programs narrow the draw (comma lists), e.g. to repeat one case:
#   --mpi mpich --kinds node-kill-write --programs nqueens
#   YADOKARI_CAMPAIGN_LOCK=FILE   take this lock (flock) around each run, not around the campaign
#   NPB_DIR=DIR                   NPB built by bench/npb/build_npb.sh: DIR/<mpi>/bin/<kernel>.A.4
# Needs root (the simulated cluster).
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
faults=50 seed=1 mpis="openmpi mpich" build="$repo/build" out="" limit=300
all_kinds="node-kill node-kill-cut node-kill-write node-kill-replica node-kill-restart rank-kill rank-stop link-down disk-full frontend-kill"
kinds=$all_kinds
wanted_programs=""
usage() { sed -n '/^# usage:/,/^# Needs root/p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
while (($#)); do
    case "$1" in
        --faults) faults=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --mpi) [[ $2 == both ]] && mpis="openmpi mpich" || mpis=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --kinds) kinds=${2//,/ }; shift 2 ;;
        --programs) wanted_programs=${2//,/ }; shift 2 ;;
        --limit) limit=$2; shift 2 ;;
        -h | --help) usage ;;
        *) echo "fault_campaign.sh: unknown option $1" >&2; usage ;;
    esac
done
[[ $faults =~ ^[0-9]+$ && $faults -ge 1 ]] || { echo "fault_campaign.sh: --faults must be a positive integer" >&2; exit 2; }
[[ $seed =~ ^[0-9]+$ ]] || { echo "fault_campaign.sh: --seed must be a non-negative integer" >&2; exit 2; }
for kind in $kinds; do
    [[ " $all_kinds " == *" $kind "* ]] || { echo "fault_campaign.sh: unknown fault kind $kind ($all_kinds)" >&2; exit 2; }
done
[[ $(id -u) == 0 ]] || { echo "fault_campaign.sh: the simulated cluster needs root" >&2; exit 2; }
Y="$build/bin/yadokari"
[[ -x "$Y" ]] || { echo "fault_campaign.sh: no yadokari CLI at $Y (build first)" >&2; exit 2; }

# The programs: "flavour|label|binary args|ranks|how the result is checked (final|npb)".
programs=()
for mpi in $mpis; do
    for spec in "ring|ring 600 200 5" "stencil|stencil 64 48 400" "nqueens|nqueens 11"; do
        name=${spec%%|*} args=${spec#*|}
        bin="$build/examples/$mpi/$name"
        [[ -x "$bin" ]] || { echo "fault_campaign.sh: no $bin (build the examples)" >&2; exit 2; }
        programs+=("$mpi|$name|$bin ${args#* }|6|final")
    done
done
if [[ -z "${NPB_DIR:-}" ]]; then
    echo "NPB kernels skipped: NPB_DIR is not set (bench/npb/build_npb.sh builds them outside the repository)"
else
    for mpi in $mpis; do
        found=0
        for bin in "$NPB_DIR/$mpi"/bin/*.A.4; do
            [[ -x "$bin" ]] || continue
            programs+=("$mpi|npb-$(basename "$bin" .A.4)|$bin|4|npb")
            found=1
        done
        ((found)) || echo "NPB kernels skipped for $mpi: no $NPB_DIR/$mpi/bin/*.A.4"
    done
fi
if [[ -n "$wanted_programs" ]]; then
    kept=()
    for spec in "${programs[@]}"; do
        IFS='|' read -r _ label _ <<<"$spec"
        [[ " $wanted_programs " == *" $label "* ]] && kept+=("$spec")
    done
    for label in $wanted_programs; do
        printf '%s\n' "${programs[@]}" | cut -d'|' -f2 | grep -qx -- "$label" ||
            { echo "fault_campaign.sh: unknown program $label (ring, stencil, nqueens, npb-<kernel> with NPB_DIR)" >&2; exit 2; }
    done
    programs=("${kept[@]}")
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/yk-campaign.XXXXXX")
export YADOKARI_SIM_DIR="$work/sim"
mkdir -p "$YADOKARI_SIM_DIR"
[[ -n "$out" ]] || out="$work/campaign.jsonl"
: >"$out"
NAME="fc$$"
NAME=${NAME:0:12}
on_exit() {
    "$Y" sim down --name "$NAME" >/dev/null 2>&1
    mountpoint -q "$work/run/ckpt" 2>/dev/null && umount "$work/run/ckpt"
    rm -rf "$work"
}
trap on_exit EXIT
trap 'exit 130' INT TERM

RANDOM=$seed
# Every draw happens in the campaign's own shell and lands in a variable: bash reseeds $RANDOM in
# each subshell, so a draw inside $(...) would make the same seed draw differently every time.
# pick VAR ITEMS...: one of ITEMS (nothing when there are none).
pick() {
    local -n pick_into=$1
    shift
    pick_into=""
    (($#)) || return 0
    local -a pick_items=("$@")
    pick_into=${pick_items[RANDOM % ${#pick_items[@]}]}
}
# random_seconds VAR LO HI: a time in [LO, HI) seconds with 0.1 s steps.
random_seconds() {
    local -n seconds_into=$1
    local draw=$((RANDOM % 1000))
    seconds_into=$(awk -v lo="$2" -v hi="$3" -v r="$draw" 'BEGIN { printf "%.1f", lo + (hi - lo) * r / 1000 }')
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# The reference result of an uninterrupted run, once per program (on the full cluster).
declare -A reference
result_of() { # FILE CHECK
    if [[ $2 == npb ]]; then grep -qs "Verification *= *SUCCESSFUL" "$1" && echo "SUCCESSFUL"; else grep -s '^final' "$1" | tail -n 1; fi
}

# Processes in the cluster's nodes and frontend other than their namespace holders.
cluster_processes() {
    python3 - "$YADOKARI_SIM_DIR/$NAME/state.json" <<'PY'
import json, os, sys
try:
    state = json.load(open(sys.argv[1]))
except OSError:
    sys.exit(0)
holders = {node["netns"]: node["pid"] for node in state["nodes"] + [state["frontend"]]}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        space = os.readlink(f"/proc/{pid}/ns/net")
        command = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        continue
    if space in holders and int(pid) != holders[space] and command:
        print(pid, command[:80])
PY
}
no_cluster_processes() { [[ -z "$(cluster_processes)" ]]; }
# The job's ranks: processes of BINARY in the cluster's node namespaces.
rank_pids() { cluster_processes | awk -v b="$1" '$2 == b { print $1 }'; }
# backtraces BINARY: every thread's stack of every process of BINARY in the cluster (gdb), with
# what the front end says of the job.
backtraces() {
    local pid
    echo "=== yadokari status"
    timeout 30 "$Y" status 2>&1
    for pid in $(rank_pids "$1"); do
        echo "=== pid $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) (net $(readlink "/proc/$pid/ns/net" 2>/dev/null))"
        timeout 60 gdb -p "$pid" -batch -ex 'thread apply all bt' 2>&1 | grep -Ev '^\[(New LWP|Thread debugging|Using host)'
    done
}
newest_committed() { ls "$1"/*/MANIFEST 2>/dev/null | awk -F/ '{ print $(NF-1) }' | sort -n | tail -1; }
being_written() { [[ -d "$1/$2" && ! -e "$1/$2/MANIFEST" ]] && ls "$1/$2"/rank-* >/dev/null 2>&1; }
# wait_until SECONDS COMMAND...: polls COMMAND every 0.05 s while the job ($job) runs.
wait_until() {
    local tries=$(($1 * 20))
    shift
    for _ in $(seq $tries); do
        "$@" && return 0
        kill -0 "$job" 2>/dev/null || { "$@"; return; }
        sleep 0.05
    done
    return 1
}
# ask_checkpoint: an epoch now; its number, or nothing.
ask_checkpoint() {
    local answer
    for _ in $(seq 300); do
        answer=$(timeout 60 "$Y" checkpoint 2>&1) && { sed -n 's/^yadokari: epoch \([0-9]*\) committed$/\1/p' <<<"$answer"; return 0; }
        [[ "$answer" == "yadokari: no running job found" ]] || return 1
        kill -0 "$job" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
# wait_job PID SECONDS OUT: the job's exit code; 124 after SECONDS; a job that printed its result and
# still runs 30 s later (MPICH over TCP may hang in MPI_Finalize, docs/platform.md §1) is stopped: 125,
# the job's own run after backtraces of its ranks (uses the caller's $run and $binary).
wait_job() {
    local pid=$1 limit=$2 file=$3 start=$SECONDS since=""
    while kill -0 "$pid" 2>/dev/null; do
        [[ -z "$since" && -n $(result_of "$file" "$check") ]] && since=$SECONDS
        if ((SECONDS - start >= limit)) || { [[ -n "$since" ]] && ((SECONDS - since >= 30)); }; then
            local code=124
            [[ -n "$since" ]] && code=125
            # What every rank is doing while it does not end (the job's own run, not a reference).
            [[ $code == 125 && $file == "$run/run.out" ]] && backtraces "$binary" >"$run/backtraces.txt" 2>&1
            pkill -TERM -P "$pid"; kill -TERM "$pid" 2>/dev/null
            sleep 5
            pkill -KILL -P "$pid"; kill -KILL "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            return $code
        fi
        sleep 0.2
    done
    wait "$pid"
}
# The newest committed epoch of DIR verifies image by image (or there is none).
epoch_intact() {
    local dir=$1 epoch image
    epoch=$(newest_committed "$dir")
    [[ -z "$epoch" ]] && return 0
    for image in "$dir/$epoch"/rank-*.img; do
        [[ -e "$image" ]] || continue
        "$Y" inspect --verify "$image" >/dev/null 2>&1 || return 1
    done
    return 0
}

run_one() { # INDEX
    local index=$1 spec mpi label command ranks check kind nodes=3 extra=() env_extra=() target="" note=""
    pick spec "${programs[@]}"
    IFS='|' read -r mpi label command ranks check <<<"$spec"
    pick kind $kinds
    [[ $kind == node-kill-restart ]] && nodes=4
    local run="$work/run"
    rm -rf "$run"
    mkdir -p "$run/jobs"
    export YADOKARI_STATE_DIR="$run/jobs"
    local ckpt="$run/ckpt" release="$run/release"
    mkdir -m 700 "$ckpt"
    case $kind in
        node-kill-write) env_extra+=(YADOKARI_FAULT_SLOW_WRITE=2:3000) ;;
        node-kill-replica) extra+=(--node-dir /run/yadokari/node-disk) ;;  # a private tmpfs in every simulated node
        disk-full)
            # Before `sim up`: each node's mount namespace is a copy of this one made then. Room for
            # the first epoch; filled up with a file before the epoch that must fail.
            mount -t tmpfs -o size=64m,mode=0700 tmpfs "$ckpt" || note="tmpfs mount failed; "
            ;;
    esac
    "$Y" sim up --nodes $nodes --slots 2 --name "$NAME" >/dev/null || { echo "sim up failed" >&2; return 1; }
    local binary=${command%% *}
    if [[ -z "${reference[$mpi|$label]:-}" ]]; then
        YADOKARI_HEARTBEAT_MISSES=50 "$Y" run --sim "$NAME" -n "$ranks" --mpi "$mpi" -- $command \
            >"$run/reference.out" 2>"$run/reference.err" </dev/null &
        job=$!
        wait_job "$job" "$limit" "$run/reference.out"
        reference[$mpi|$label]=$(result_of "$run/reference.out" "$check")
        [[ -n "${reference[$mpi|$label]}" ]] || { echo "run $index: no reference result for $label/$mpi: $(tail -2 "$run/reference.err")" >&2; }
    fi
    local shm_before
    shm_before=$(ls /dev/shm | sort)
    local started
    started=$(now)
    env "${env_extra[@]}" YADOKARI_FAULT_HOLD_FINALIZE="$release" timeout -k 5 "$limit" "$Y" run --sim "$NAME" -n "$ranks" \
        --mpi "$mpi" --ckpt-dir "$ckpt" "${extra[@]}" -- $command >"$run/run.out" 2>"$run/run.err" </dev/null &
    job=$!
    local epoch frontend at fault_time="" delay
    epoch=$(ask_checkpoint)
    [[ -n "$epoch" ]] || note+="no first epoch; "
    frontend=$(pgrep -P "$job" -x yadokari)
    random_seconds delay 0 2
    sleep "$delay"
    local node pause
    pick node n1 n2 n3
    case $kind in
        node-kill | node-kill-replica)
            if [[ $kind == node-kill-replica ]]; then
                random_seconds pause 0 0.5
                timeout 60 "$Y" checkpoint >/dev/null 2>&1 &
                sleep "$pause"
            fi
            target=$node; fault_time=$(now); "$Y" sim kill --name "$NAME" "$node" >/dev/null ;;
        node-kill-cut)
            random_seconds pause 0 0.3
            timeout 60 "$Y" checkpoint >/dev/null 2>&1 &
            sleep "$pause"
            target=$node; fault_time=$(now); "$Y" sim kill --name "$NAME" "$node" >/dev/null ;;
        node-kill-write)
            timeout 60 "$Y" checkpoint >/dev/null 2>&1 &
            wait_until 30 being_written "$ckpt" $((epoch + 1)) || note+="epoch $((epoch + 1)) never seen being written; "
            target=$node; fault_time=$(now); "$Y" sim kill --name "$NAME" "$node" >/dev/null ;;
        node-kill-restart)
            target="n2,then n3"; fault_time=$(now); "$Y" sim kill --name "$NAME" n2 >/dev/null
            wait_until 30 grep -q "node n2 lost" "$run/run.err"
            random_seconds pause 0 1.5
            sleep "$pause"
            "$Y" sim kill --name "$NAME" n3 >/dev/null ;;
        rank-kill | rank-stop)
            local pid
            pick pid $(rank_pids "$binary")
            target="pid $pid"
            fault_time=$(now)
            if [[ $kind == rank-kill ]]; then
                kill -KILL "$pid"
            else
                local stopped
                random_seconds stopped 1 4
                target+=" for ${stopped} s"
                kill -STOP "$pid"; sleep "$stopped"; kill -CONT "$pid"
            fi ;;
        link-down)
            target=$node; fault_time=$(now)
            "$Y" sim exec --name "$NAME" "$node" -- ip link set eth0 down ;;
        disk-full)
            dd if=/dev/zero of="$ckpt/filler" bs=1M >/dev/null 2>&1
            target="checkpoint directory full"; fault_time=$(now)
            timeout 60 "$Y" checkpoint >"$run/checkpoint.out" 2>&1
            note+="checkpoint: $(tail -1 "$run/checkpoint.out"); "
            rm -f "$ckpt/filler" ;;
        frontend-kill)
            target="pid $frontend"; fault_time=$(now)
            kill -KILL "$frontend" ;;
    esac
    touch "$release"
    local code recover="" restart_s=""
    if [[ $kind == frontend-kill ]]; then
        wait "$job" 2>/dev/null
        job=$$
        wait_until 60 no_cluster_processes || note+="processes left after the front end died: $(cluster_processes | paste -sd';'); "
        local restarted
        restarted=$(now)
        # Appended: what the job printed before its front end died is part of its output (a
        # short program may have printed its result before the epoch it restarts from).
        timeout -k 5 "$limit" "$Y" restart --sim "$NAME" --ckpt-dir "$ckpt" >>"$run/run.out" 2>"$run/restart.err" </dev/null &
        job=$!
    else
        # The timeline line (every restarted rank restored), not a stalled restart's line.
        local restored_line="^yadokari: restart [0-9]* (.*): detect "
        if wait_until 60 grep -q "$restored_line" "$run/run.err"; then
            recover=$(since "$fault_time")
        else
            # A restart not up 60 s after the fault (the front end stops a stalled one only after
            # 180 s): what every process of the program is doing, kept with the run's files.
            if grep -q "restarting from epoch" "$run/run.err" && kill -0 "$job" 2>/dev/null; then
                backtraces "$binary" >"$run/backtraces.txt" 2>&1
                note+="restart not up after 60 s: backtraces taken; "
            fi
            wait_until "$((limit - 60))" grep -q "$restored_line" "$run/run.err" && recover=$(since "$fault_time")
        fi
    fi
    wait_job "$job" "$limit" "$run/run.out"
    code=$?
    if [[ $kind == frontend-kill ]]; then
        restart_s=$(since "$restarted")
        cat "$run/restart.err" >>"$run/run.err"
    fi
    local got outcome
    got=$(result_of "$run/run.out" "$check")
    if ((code == 124)); then
        outcome=hang
    elif ((code == 0 || code == 125)); then
        if [[ -z "$got" || "$got" != "${reference[$mpi|$label]}" ]]; then
            outcome=WRONG
        elif ((code == 125)); then
            # The right result, but the job did not end: a hang (the shim is meant to prevent
            # MPICH's finalize hang, docs/platform.md §1), not a correct run.
            outcome=hang-after-result
            note+="stopped 30 s after its right result; backtraces taken; "
        else
            outcome=correct
        fi
    elif grep -q "^yadokari: " "$run/run.err" && epoch_intact "$ckpt"; then
        outcome=clean-stop
        note+="$(grep '^yadokari: ' "$run/run.err" | grep -v 'epoch [0-9]* committed' | tail -1); "
    else
        outcome="stop-without-reason"
    fi
    # Left behind: processes (the agent of a cut node ends once it notices, within 15 s), /dev/shm,
    # session directories, the job's state file.
    job=$$
    local left=""
    wait_until 20 no_cluster_processes || left+="processes: $(cluster_processes | paste -sd';'); "
    mountpoint -q "$ckpt" && umount "$ckpt"
    # Every node (and the frontend) has a /dev/shm of its own (runtime/sim/holder.cpp): look there
    # while the cluster is up. A killed node refuses `sim exec`: what it held died with it.
    local host host_shm
    for host in fe $(seq -f 'n%g' "$nodes"); do
        host_shm=$("$Y" sim exec --name "$NAME" "$host" -- ls -A /dev/shm 2>/dev/null | paste -sd' ')
        [[ -n "$host_shm" ]] && left+="/dev/shm of $host: $host_shm; "
    done
    "$Y" sim down --name "$NAME" >/dev/null 2>&1
    # The host's own /dev/shm is shared with every other job on the machine: only names of this
    # cluster's nodes count (other jobs' vader segments come and go during the run).
    local shm_new
    shm_new=$(comm -13 <(echo "$shm_before") <(ls /dev/shm | sort) | grep -E "yk$NAME" | paste -sd' ')
    [[ -n "$shm_new" ]] && left+="/dev/shm: $shm_new; "
    ls -d "${TMPDIR:-/tmp}"/ompi.yk"$NAME"-* >/dev/null 2>&1 && left+="session dirs: $(ls -d "${TMPDIR:-/tmp}"/ompi.yk"$NAME"-* | paste -sd' '); "
    [[ -n "$(find "$run/jobs" -type f 2>/dev/null)" ]] && left+="job state: $(find "$run/jobs" -type f | paste -sd' '); "
    ip netns list 2>/dev/null | grep -q "$NAME" && left+="namespaces; "
    pgrep -f "^yadokari-sim:$YADOKARI_SIM_DIR/" >/dev/null && left+="holders; "
    [[ -n "$left" ]] && outcome+="+unclean"
    # Restarts counted by their decision line: the timeline line (restored) is missing when the
    # restarted ranks ended before the front end heard that they had restored.
    local restarts
    restarts=$(grep -c "restarting from epoch" "$run/run.err")
    ((restarts > 0)) && [[ -z "$recover" && $kind != frontend-kill ]] && note+="restarted, no timeline line (ranks restored not all reported); "
    R_INDEX=$index R_SEED=$seed R_MPI=$mpi R_PROGRAM=$label R_FAULT=$kind R_TARGET=$target R_DELAY=$delay \
        R_OUTCOME=$outcome R_EXIT=$code R_RESTARTS=$restarts R_RECOVER=$recover R_RESTART_S=$restart_s \
        R_LEFT="${left%; }" R_NOTE="${note%; }" python3 - "$out" <<'PY'
import json, os, sys
e = os.environ
number = lambda text: float(text) if text else None
record = {"run": int(e["R_INDEX"]), "seed": int(e["R_SEED"]), "mpi": e["R_MPI"], "program": e["R_PROGRAM"],
          "fault": e["R_FAULT"], "target": e["R_TARGET"], "fault_after_epoch_s": number(e["R_DELAY"]),
          "outcome": e["R_OUTCOME"], "exit": int(e["R_EXIT"]), "restarts": int(e["R_RESTARTS"]),
          "recover_s": number(e["R_RECOVER"]), "restart_command_s": number(e["R_RESTART_S"]),
          "left_behind": e["R_LEFT"], "note": e["R_NOTE"].replace("\n", " ")}
with open(sys.argv[1], "a") as f:
    f.write(json.dumps(record) + "\n")
print(json.dumps(record))
PY
    mkdir -p "${out%.jsonl}-logs"
    cp "$run/run.err" "${out%.jsonl}-logs/run-$index.err" 2>/dev/null
    if [[ ($outcome != correct && $outcome != clean-stop) || -e "$run/backtraces.txt" ]]; then
        # Kept at once (not at the end): a campaign stopped early keeps them too.
        mkdir -p "${out%.jsonl}-kept"
        cp -r "$run" "${out%.jsonl}-kept/run-$index" 2>/dev/null
        echo "run $index: $outcome; its files in ${out%.jsonl}-kept/run-$index: $(tail -5 "$run/run.err" | paste -sd'|')" >&2
    fi
}

# A rebuild of the build under a running campaign mixes versions: a restart refuses images of the old
# shim (a clean stop that is not the fault's), or its processes load a library half written. The
# campaign stops instead, before the next run.
build_stamp() { stat -c '%n %Y %s' "$Y" "$build"/lib/libyadokari-*.so 2>/dev/null | md5sum; }
stamp=$(build_stamp)
changed_build=0

echo "fault campaign: $faults faults, seed $seed, MPI: $mpis, kinds: $kinds"
for i in $(seq "$faults"); do
    if [[ "$(build_stamp)" != "$stamp" ]]; then
        echo "fault_campaign.sh: the build in $build changed during the campaign; stopping before run $i (runs from here would mix versions)" >&2
        changed_build=1
        break
    fi
    if [[ -n "${YADOKARI_CAMPAIGN_LOCK:-}" ]]; then
        exec {lock}>"$YADOKARI_CAMPAIGN_LOCK"
        flock "$lock"
        run_one "$i"
        exec {lock}>&-
    else
        run_one "$i"
    fi
done

python3 - "$out" <<'PY'
import json, statistics, sys
records = [json.loads(line) for line in open(sys.argv[1])]
outcomes = sorted({r["outcome"] for r in records})
faults = sorted({r["fault"] for r in records})
width = max(len(f) for f in faults + ["fault"])
print()
print("fault".ljust(width), *[o.rjust(max(len(o), 5)) for o in outcomes], "runs".rjust(5), sep="  ")
for fault in faults:
    row = [sum(1 for r in records if r["fault"] == fault and r["outcome"] == o) for o in outcomes]
    print(fault.ljust(width), *[str(n).rjust(max(len(o), 5)) for n, o in zip(row, outcomes)],
          str(sum(row)).rjust(5), sep="  ")
times = [r["recover_s"] for r in records if r["recover_s"] is not None]
if times:
    print(f"\ntime to recover (fault to the restarted ranks restored), {len(times)} automatic restarts: "
          f"median {statistics.median(times):.2f} s, max {max(times):.2f} s")
manual = [r["restart_command_s"] for r in records if r["restart_command_s"] is not None]
if manual:
    print(f"yadokari restart after the front end was killed, {len(manual)} runs: "
          f"median {statistics.median(manual):.2f} s, max {max(manual):.2f} s (the whole remaining run)")
summary = {"summary": True, "runs": len(records),
           "outcomes": {o: sum(1 for r in records if r["outcome"] == o) for o in outcomes},
           "recover_median_s": statistics.median(times) if times else None,
           "recover_max_s": max(times) if times else None}
print(json.dumps(summary))
PY
echo "JSON lines: $out"
[[ -d "${out%.jsonl}-kept" ]] && echo "files of the runs that were not correct or a clean stop, or had backtraces taken: ${out%.jsonl}-kept"
exit "$changed_build"
