#!/usr/bin/env bash
# Checkpoint an MPI program mid-run, kill the job right after the epoch commits
# (--stop-after-epoch), restart it with `yadokari restart`, and check that the restarted job
# completes the run exactly: the first part's output is a prefix of an uninterrupted run's, the
# restart's output is a proper suffix of it (it resumed; it did not start over), and the final
# line is identical; every rank's stats (YADOKARI_STATS) of the last restart count the restores,
# which proves the ranks resumed from their images, and the last restart says once every rank
# has restored (`N ranks restored from their images: ...`). With --chain the restarted job is
# checkpointed and stopped again once more. The stopped parts hold their ranks at MPI_Finalize
# (YADOKARI_FAULT_HOLD_FINALIZE, never released): however fast the machine, the program cannot end
# before the epoch it is stopped after.
#
# usage: ckpt_restart.sh --yadokari PATH --flavour openmpi|mpich --np N [--interval S]
#                        [--run-mpi-args "STR"] [--restart-mpi-args "STR"] [--restart-args "ARGS"]
#                        [--restart-env "K=V ..."] [--chain] [--checkpointed-reference]
#                        [--image-format yadokari|dmtcp] -- PROGRAM [ARGS...]
#   --run-mpi-args      launcher arguments of the reference and the checkpointed run (--mpi-args)
#   --restart-mpi-args  launcher arguments of the restarts (e.g. another transport)
#   --restart-args      extra `yadokari restart` arguments (e.g. --rank-map 3,2,1,0)
#   --restart-env       environment of the restarts only (e.g. UCX_TLS=tcp,self for MPICH)
#   --finalize-hang-ok S  the last restart may hang in MPI_Finalize after it finished (MPICH with
#                       UCX_TLS=tcp, docs/platform.md §1): killed after S seconds, it passes if its
#                       output and every rank's stats (written before MPI_Finalize) are complete
#   --checkpointed-reference  the reference run has checkpoints on, with an interval longer than
#                       the run (it must commit no epoch): it then takes the shim's polling waits
#                       like the checkpointed runs. MPICH's own blocking waits spin without
#                       yielding, so a 4-rank run on 2 cores is ~100x slower without them, and a
#                       run long enough for the checkpointed part would make a very slow reference.
#   --stop-by-signal    the checkpointed run is stopped by SIGUSR1 (checkpoint on signal, exit 79)
#                       instead of --stop-after-epoch 1
#   --image-format F    the checkpointed parts write their images in layout F; with dmtcp every
#                       image of epoch 1 must start with DMTCP's signature, its MANIFEST say so and
#                       `yadokari inspect --verify` pass on it (the restart finds the layout itself)
#   --continue-with-run the last part is the checkpointed run's own `yadokari run` command again
#                       (it continues from the newest epoch, as a requeued batch job does), not
#                       `yadokari restart`
# The reference is an uninterrupted run with the checkpointed run's launcher arguments: on one
# host the transport or rank order does not change the result (else pass the restart's).
# KEEP_WORKDIR=1 keeps the outputs and checkpoints (the path is printed).
set -u

# The leftover check below compares /dev/shm before and after each part. Run in a mount namespace
# with a /dev/shm of its own, so that it sees this test's jobs only, not every other MPI or
# yadokari job of the machine (a demo or a second suite beside this one once failed it).
if [[ -z "${YK_CKPT_PRIVATE_SHM:-}" && $EUID == 0 ]]; then
    exec unshare --mount --propagation private env YK_CKPT_PRIVATE_SHM=1 \
        bash -c 'mount -t tmpfs -o mode=1777 yk-ckpt-shm /dev/shm && exec bash "$0" "$@"' "$0" "$@"
fi

usage() {
    sed -n '10,34p' "$0" >&2
    exit 2
}

yadokari="" flavour="" np="" interval=0.5 restart_args="" restart_env="" chain=0 hang_ok=0
checkpointed_reference=0 run_mpi=() restart_mpi=() by_signal=0 continue_with_run=0 image_format=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --yadokari) yadokari="$2"; shift 2 ;;
        --flavour) flavour="$2"; shift 2 ;;
        --np) np="$2"; shift 2 ;;
        --interval) interval="$2"; shift 2 ;;
        --run-mpi-args) run_mpi=(--mpi-args "$2"); shift 2 ;;
        --restart-mpi-args) restart_mpi=(--mpi-args "$2"); shift 2 ;;
        --restart-args) restart_args="$2"; shift 2 ;;
        --restart-env) restart_env="$2"; shift 2 ;;
        --chain) chain=1; shift ;;
        --checkpointed-reference) checkpointed_reference=1; shift ;;
        --stop-by-signal) by_signal=1; shift ;;
        --continue-with-run) continue_with_run=1; shift ;;
        --finalize-hang-ok) hang_ok="$2"; shift 2 ;;
        --image-format) image_format=(--image-format "$2"); shift 2 ;;
        --) shift; break ;;
        *) usage ;;
    esac
done
[[ -n "$yadokari" && -n "$flavour" && -n "$np" && $# -ge 1 ]] || usage
program=("$@")

work=$(mktemp -d "${TMPDIR:-/tmp}/yk-ckpt.XXXXXX")
if [[ "${KEEP_WORKDIR:-0}" == 1 ]]; then
    echo "ckpt_restart: outputs kept in $work"
else
    trap 'rm -rf "$work"' EXIT
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
limit=300

fail() {
    echo "ckpt_restart: FAIL: $*" >&2
    for f in "$work"/*.err; do
        [[ -s "$f" ]] && { echo "--- $(basename "$f")" >&2; tail -n 20 "$f" >&2; }
    done
    exit 1
}

# shellcheck disable=SC2086  # the *_args strings are meant to split into words
run_part() {  # name expected-exit command...
    local name="$1" expected="$2"
    shift 2
    local seconds="$limit"
    [[ $name == "$last" && $hang_ok != 0 ]] && seconds="$hang_ok"
    timeout -k 10 "$seconds" "$@" >"$work/$name.out" 2>"$work/$name.err"
    local rc=$?
    if [[ $rc == 124 && $name == "$last" && $hang_ok != 0 ]]; then
        echo "ckpt_restart: $name was killed after ${hang_ok}s (hang in MPI_Finalize tolerated; checking its output)"
        # Hydra's banner about the killed processes is not the job's output.
        python3 - "$work/$name.out" <<'PY'
import re, sys
path = sys.argv[1]
lines = open(path).read().split("\n")
for i, line in enumerate(lines):
    if re.fullmatch(r"=+", line):
        lines = lines[:i - 1] if i > 0 and lines[i - 1] == "" else lines[:i]
        open(path, "w").write("\n".join(lines) + "\n")
        break
PY
        return
    fi
    [[ $rc == "$expected" ]] || fail "$name exited $rc, expected $expected"
    # A stopped job leaves no shared memory behind (Open MPI's vader segments once stayed).
    local shm_left
    shm_left=$(comm -13 <(printf '%s\n' "$shm_before") <(ls /dev/shm 2>/dev/null | sort) | paste -sd' ')
    [[ -z "$shm_left" ]] || fail "$name left shared memory in /dev/shm: $shm_left"
}
shm_before=$(ls /dev/shm 2>/dev/null | sort)

last=part2
[[ $chain == 1 ]] && last=part3
# shellcheck disable=SC2086
reference_ckpt=()
[[ $checkpointed_reference == 1 ]] && reference_ckpt=(--ckpt-dir "$work/reference-ckpt" --interval 86400)
run_part reference 0 "$yadokari" run -n "$np" --mpi "$flavour" "${reference_ckpt[@]}" "${run_mpi[@]}" -- "${program[@]}"
if [[ $checkpointed_reference == 1 ]]; then
    compgen -G "$work/reference-ckpt/[0-9]*" >/dev/null && fail "the reference run was checkpointed: it is not uninterrupted"
fi
ckpt="$work/ckpt"
# shellcheck disable=SC2086
hold=(env YADOKARI_FAULT_HOLD_FINALIZE="$work/never-created")
if [[ $by_signal == 1 ]]; then
    # SIGUSR1 once the job is registered (`yadokari status` answers; before that the front end may
    # not have taken the signal over yet): one epoch, then the job is stopped with 79.
    export YADOKARI_STATE_DIR="$work/jobs"
    (
        for _ in $(seq 3000); do
            "$yadokari" status >/dev/null 2>&1 && break
            sleep 0.1
        done
        pkill -USR1 -f "^$yadokari run -n $np --mpi $flavour --ckpt-dir $ckpt " || echo "no job to signal" >&2
    ) &
    signaller=$!
    run_part part1 79 "${hold[@]}" "$yadokari" run -n "$np" --mpi "$flavour" --ckpt-dir "$ckpt" --interval 0 \
        "${run_mpi[@]}" -- "${program[@]}"
    wait "$signaller"
    grep -qx "yadokari: SIGUSR1: checkpoint, then stop the job" "$work/part1.err" || fail "no SIGUSR1 line"
    grep -qx "yadokari: stopped after epoch 1 on SIGUSR1; run the same command again to continue from it" \
        "$work/part1.err" || fail "no stop line for epoch 1"
else
    run_part part1 75 "${hold[@]}" "$yadokari" run -n "$np" --mpi "$flavour" --ckpt-dir "$ckpt" --interval "$interval" \
        --stop-after-epoch 1 "${image_format[@]}" "${run_mpi[@]}" -- "${program[@]}"
fi
[[ -f "$ckpt/1/MANIFEST" ]] || fail "epoch 1 was not committed"
if [[ "${image_format[1]:-}" == dmtcp ]]; then
    for ((r = 0; r < np; r++)); do
        [[ "$(head -c 27 "$ckpt/1/rank-$r.img")" == DMTCP_CHECKPOINT_IMAGE_v4.0 ]] ||
            fail "rank-$r.img of epoch 1 does not start with DMTCP's signature"
    done
    n=$(python3 -c 'import json,sys; print(sum(i.get("layout") == "dmtcp" for i in json.load(open(sys.argv[1]))["images"]))' \
        "$ckpt/1/MANIFEST")
    [[ "$n" == "$np" ]] || fail "epoch 1's MANIFEST names $n images in DMTCP's layout, not $np"
    "$yadokari" inspect --verify "$ckpt/1/rank-0.img" >"$work/inspect.out" 2>&1 || fail "inspect: $(cat "$work/inspect.out")"
    grep -q "in DMTCP's layout" "$work/inspect.out" || fail "inspect does not show DMTCP's layout: $(head -n 3 "$work/inspect.out")"
fi
if [[ $chain == 1 ]]; then
    # shellcheck disable=SC2086
    run_part part2 75 "${hold[@]}" $restart_env "$yadokari" restart --ckpt-dir "$ckpt" --interval "$interval" --stop-after-epoch 2 "${image_format[@]}" "${restart_mpi[@]}" $restart_args
    [[ -f "$ckpt/2/MANIFEST" ]] || fail "epoch 2 (after the first restart) was not committed"
fi
if [[ $continue_with_run == 1 ]]; then
    # The same command as the first part's (what a requeued batch script runs again), no options of
    # restart: it finds epoch 1 in the directory and continues from it.
    run_part "$last" 0 env YADOKARI_STATS="$work/stats-%r.json" "$yadokari" run -n "$np" --mpi "$flavour" \
        --ckpt-dir "$ckpt" --interval 0 "${run_mpi[@]}" -- "${program[@]}"
    grep -Eqx "yadokari: continuing from epoch 1 in $ckpt, committed [0-9T:Z-]+ by job yk-[0-9a-f]+ \(--fresh starts over\)" \
        "$work/$last.err" || fail "no 'continuing from epoch 1' line: $(head -n 3 "$work/$last.err")"
else
    # shellcheck disable=SC2086
    run_part "$last" 0 env YADOKARI_STATS="$work/stats-%r.json" $restart_env "$yadokari" restart --ckpt-dir "$ckpt" "${restart_mpi[@]}" $restart_args
fi
grep -Eqx "yadokari: $np ranks restored from their images: MPI_Init [0-9.]+ s, restore [0-9.]+ s \(slowest rank\)" \
    "$work/$last.err" || fail "no 'ranks restored from their images' line: $(head -n 3 "$work/$last.err")"
restores=$((1 + chain))
for ((r = 0; r < np; r++)); do
    f="$work/stats-$r.json"
    [[ -f "$f" ]] || fail "rank $r of the restarted job wrote no stats"
    n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["restarts"])' "$f")
    [[ "$n" == "$restores" ]] || fail "rank $r counts $n restores, expected $restores: it did not resume from its image"
    armed=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["memory_layer"], j["checkpoints_armed"], j["direct_requests"])' "$f")
    # Open MPI: the armed calls use the library's requests directly (the shim was built against it).
    expected="True True $([[ $flavour == openmpi ]] && echo True || echo False)"
    [[ "$armed" == "$expected" ]] ||
        fail "rank $r of the restarted job reports memory layer, armed, direct requests = $armed, expected $expected"
done

ref="$work/reference.out"
[[ -s "$ref" ]] || fail "the reference run printed nothing"
prefix_of() {  # is $1 a prefix of $2?
    local n
    n=$(stat -c %s "$1")
    cmp -s -n "$n" "$1" "$2"
}
suffix_of() {  # is $1 a suffix of $2?
    local n
    n=$(stat -c %s "$1")
    cmp -s "$1" <(tail -c "$n" "$2")
}
prefix_of "$work/part1.out" "$ref" || fail "the checkpointed run's output is not a prefix of the uninterrupted run's"
# An empty restart output is right only when the epoch was taken at the hold, after the killed
# part had printed and flushed everything.
[[ -s "$work/$last.out" ]] || cmp -s "$work/part1.out" "$ref" || fail "the restarted run printed nothing"
suffix_of "$work/$last.out" "$ref" || {
    diff <(tail -n 5 "$ref") <(tail -n 5 "$work/$last.out") >&2
    fail "the restarted run's output is not the end of the uninterrupted run's"
}
[[ "$(cat "$work/part1.out" "$work/$last.out" | tail -n 1)" == "$(tail -n 1 "$ref")" ]] || fail "final lines differ"
echo "ckpt_restart: OK ($(wc -l <"$work/part1.out") lines before the checkpoint, $(wc -l <"$work/$last.out") after the last restart; final: $(tail -n 1 "$ref"))"
