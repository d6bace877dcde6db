#!/usr/bin/env bash
# Bad storage and damaged images with real checkpoints (the CLI-level checks are in tests/cli):
#   full      the checkpoint directory fills up once epoch 1 committed: later epochs fail with
#             one line each naming the last committed epoch, the job still finishes correctly,
#             that epoch stays committed and verifies, and a restart from it completes the run.
#   bitflip   one byte of the newest epoch's image is flipped: the restart says which epoch it
#             skips and why, restarts from the previous one and completes the run.
# The checkpointed runs hold their ranks at MPI_Finalize (YADOKARI_FAULT_HOLD_FINALIZE) until the
# epochs the case needs are there, so they cannot end first however fast the machine.
# Needs root (mounts a small tmpfs on its work directory, unmounted at exit).
#
# usage: ckpt_damage.sh full|bitflip --yadokari PATH --flavour openmpi|mpich -- PROGRAM [ARGS...]
set -u

case="${1:-}"
shift || true
yadokari="" flavour=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --yadokari) yadokari="$2"; shift 2 ;;
        --flavour) flavour="$2"; shift 2 ;;
        --) shift; break ;;
        *) echo "ckpt_damage: unknown option $1" >&2; exit 2 ;;
    esac
done
[[ -n "$yadokari" && -n "$flavour" && $# -ge 1 && ( "$case" == full || "$case" == bitflip ) ]] || {
    sed -n '12p' "$0" >&2
    exit 2
}
[[ $(id -u) == 0 ]] || { echo "ckpt_damage: needs root (tmpfs mount)"; exit 77; }
program=("$@")
work=$(mktemp -d "${TMPDIR:-/tmp}/yk-damage.XXXXXX")
trap 'umount "$work/ckpt" 2>/dev/null; rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

fail() {
    echo "ckpt_damage: FAIL: $*" >&2
    for f in "$work"/*.err; do [[ -s "$f" ]] && { echo "--- $(basename "$f")" >&2; tail -n 15 "$f" >&2; }; done
    # What each run printed (an empty restart output is one that resumed after the program's last line).
    for f in "$work"/run.out "$work"/restart.out; do
        [[ -f "$f" ]] && { echo "--- $(basename "$f") ($(wc -l <"$f") lines)" >&2; tail -n 3 "$f" >&2; }
    done
    ls "$work/ckpt" >&2 2>/dev/null
    exit 1
}

timeout -k 10 300 "$yadokari" run -n 4 --mpi "$flavour" -- "${program[@]}" >"$work/reference.out" 2>"$work/reference.err" ||
    fail "the reference run failed"
final=$(tail -n 1 "$work/reference.out")
ckpt="$work/ckpt"
mkdir -p "$ckpt"

if [[ $case == full ]]; then
    mount -t tmpfs -o size=80m,mode=0700 tmpfs "$ckpt" || fail "cannot mount a tmpfs"
    # Fill the directory as soon as epoch 1 is committed; let the job end once an epoch failed.
    # (The loops are capped only to turn a hang into a failure.)
    release="$work/release"
    (
        for _ in $(seq 3000); do
            [[ -f "$ckpt/1/MANIFEST" ]] && break
            sleep 0.1
        done
        dd if=/dev/zero of="$ckpt/filler" bs=1M count=100 2>/dev/null
        for _ in $(seq 3000); do
            grep -q "No space left on device" "$work/run.err" 2>/dev/null && break
            sleep 0.1
        done
        touch "$release"
    ) &
    filler=$!
    YADOKARI_FAULT_HOLD_FINALIZE="$release" timeout -k 10 300 "$yadokari" run -n 4 --mpi "$flavour" --ckpt-dir "$ckpt" --interval 0.1 -- "${program[@]}" \
        >"$work/run.out" 2>"$work/run.err"
    rc=$?
    wait "$filler"
    [[ $rc == 0 ]] || fail "the job did not finish normally with a full checkpoint directory (exit $rc)"
    [[ "$(tail -n 1 "$work/run.out")" == "$final" ]] || fail "the job's result changed"
    line=$(grep -m1 -E "^yadokari: checkpoint epoch [0-9]+ failed( on rank [0-9]+)?: .*No space left on device; the last committed epoch is [0-9]+$" \
        "$work/run.err") || fail "no one-line 'failed ... No space left on device; the last committed epoch is N' message"
    committed=${line##* }
    [[ $committed -ge 1 && -f "$ckpt/$committed/MANIFEST" ]] || fail "the last committed epoch $committed lost its MANIFEST"
    for img in "$ckpt/$committed"/rank-*.img; do
        "$yadokari" inspect --verify "$img" >/dev/null 2>>"$work/verify.err" || fail "epoch $committed image $img does not verify"
    done
    rm -f "$ckpt/filler"
    expected_epoch=$committed
else
    YADOKARI_FAULT_HOLD_FINALIZE="$work/never-created" \
        timeout -k 10 300 "$yadokari" run -n 4 --mpi "$flavour" --ckpt-dir "$ckpt" --interval 0.1 --stop-after-epoch 2 \
        -- "${program[@]}" >"$work/run.out" 2>"$work/run.err"
    rc=$?
    [[ $rc == 75 ]] || fail "the checkpointed run exited $rc, expected 75"
    newest=$(ls "$ckpt" | grep -E '^[0-9]+$' | sort -n | tail -n 1)
    [[ -f "$ckpt/$newest/MANIFEST" ]] || fail "no committed newest epoch"
    img="$ckpt/$newest/rank-2.img"
    size=$(stat -c %s "$img")
    # Flip one bit in the middle of the image (an area's data).
    python3 - "$img" "$((size / 2))" <<'EOF'
import sys
path, at = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    f.seek(at)
    b = f.read(1)
    f.seek(at)
    f.write(bytes([b[0] ^ 0x10]))
EOF
    expected_epoch=$((newest - 1))
fi

timeout -k 10 300 env YADOKARI_STATS="$work/stats-%r.json" "$yadokari" restart --ckpt-dir "$ckpt" \
    >"$work/restart.out" 2>"$work/restart.err"
rc=$?
[[ $rc == 0 ]] || fail "the restart exited $rc"
if [[ $case == bitflip ]]; then
    grep -q "^yadokari: epoch $newest is not usable (rank-2.img: checksum mismatch in .*); using epoch $expected_epoch$" \
        "$work/restart.err" || fail "the restart did not say that it skips epoch $newest for rank-2.img"
fi
# An empty restart output is right only for an epoch taken at the finalize hold, after the
# checkpointed run had printed its last line (a fast machine gets there before the first
# checkpoint; ckpt_restart.sh has the same rule): then that run's output is the whole result.
if [[ -s "$work/restart.out" ]]; then
    [[ "$(tail -n 1 "$work/restart.out")" == "$final" ]] || fail "the restarted run's result differs"
else
    cmp -s "$work/run.out" "$work/reference.out" || fail "the restart printed nothing, and the checkpointed run had not printed the whole result"
fi
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["restarts"] >= 1 else 1)' "$work/stats-0.json" ||
    fail "rank 0 did not resume from an image"
echo "ckpt_damage: OK ($case; restarted from epoch $expected_epoch; final: $final)"
