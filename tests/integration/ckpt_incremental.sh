#!/usr/bin/env bash
# Incremental images through real jobs (checkpoint/memory/README.md, "Incremental images"). The
# program (programs/incremental_steps.c) rewrites about 10 % of its memory between its pause
# points; the harness asks for one checkpoint at each of the first five (`yadokari checkpoint`
# returns once the epoch is committed), and the job stops after epoch 5 (exit 75).
#   chain    --full-every 3: epochs 1 and 4 are full images, 2, 3 and 5 increments of the epoch
#            before (yadokari inspect), every increment smaller than a seventh of its rank's full
#            image (the pages rewritten are a tenth of it, plus the areas written whole);
#            the restart from epoch 5 (base 4 + increment 5) finishes with the uninterrupted
#            run's output, byte for byte.
#   damage   --full-every 8 (one chain 1..5): one byte of epoch 3's rank-1 image is flipped; the
#            restart says why epochs 5, 4 and 3 are not usable, restarts from epoch 2 and finishes
#            with the uninterrupted run's output.
#   mapped   --full-every 8, the program given a large mmap'ed buffer of which it rewrites 4 pages
#            per step (ARGS: a small heap, many mapped pages): every increment smaller than an
#            eighth of its rank's full image, its mapping stored as a delta area of a few pages;
#            the restart from epoch 5 (base 1 + 4 increments) finishes with the uninterrupted run's
#            output, byte for byte.
# usage: ckpt_incremental.sh chain|damage|mapped YADOKARI openmpi|mpich PROGRAM [ARGS...]
set -u
case="$1" yadokari="$2" flavour="$3"
shift 3
[[ $case == chain || $case == damage || $case == mapped ]] || { sed -n '18p' "$0" >&2; exit 2; }
program=("$@")
work=$(mktemp -d "${TMPDIR:-/tmp}/yk-incr.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 YADOKARI_STATE_DIR="$work/state"
ckpt="$work/ckpt"
ranks=2

fail() {
    echo "ckpt_incremental: FAIL: $*" >&2
    for f in "$work"/*.err; do [[ -s "$f" ]] && { echo "--- $(basename "$f")" >&2; tail -n 15 "$f" >&2; }; done
    exit 1
}

for step in 1 2 3 4 5 6; do touch "$work/ref-$step"; done
YK_INCR_PAUSE="$work/ref" timeout -k 10 300 "$yadokari" run -n $ranks --mpi "$flavour" -- "${program[@]}" \
    >"$work/reference.out" 2>"$work/reference.err" || fail "the reference run failed"

full_every=3
[[ $case == chain ]] || full_every=8
YK_INCR_PAUSE="$work/go" timeout -k 10 300 "$yadokari" run -n $ranks --mpi "$flavour" --ckpt-dir "$ckpt" \
    --interval 0 --keep 5 --full-every $full_every --stop-after-epoch 5 -- "${program[@]}" \
    >"$work/part1.out" 2>"$work/part1.err" &
job=$!
for epoch in 1 2 3 4 5; do
    until [[ -e "$work/go-$epoch.reached" ]]; do
        kill -0 "$job" 2>/dev/null || { wait "$job"; fail "the job ended (exit $?) before pause point $epoch"; }
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
    [[ $asked == 1 ]] || { kill "$job" 2>/dev/null; fail "yadokari checkpoint at pause point $epoch: $(cat "$work/ask.txt")"; }
    [[ -f "$ckpt/$epoch/MANIFEST" ]] || { kill "$job" 2>/dev/null; fail "epoch $epoch is not committed after yadokari checkpoint"; }
    [[ $epoch == 5 ]] || touch "$work/go-$epoch"
done
wait "$job"
rc=$?
[[ $rc == 75 ]] || fail "the checkpointed run exited $rc, expected 75 (stopped after epoch 5)"

# kind[.parent] of every image and its size, from yadokari inspect --json.
describe() {
    "$yadokari" inspect --json "$1" | /usr/bin/python3 -c '
import json, sys
image = json.load(sys.stdin)
parent = image.get("parent")
print(("increment.%d" % parent["epoch"]) if parent else "full", image["file_size"])'
}
# Pages stored by the delta area of the application's mapping (fails if it is not a delta area).
mapped_delta_pages() {
    "$yadokari" inspect --json "$1" | /usr/bin/python3 -c '
import json, sys
areas = [a for a in json.load(sys.stdin)["areas"] if a["name"] == "application mapping"]
sys.exit(1) if len(areas) != 1 or "delta_pages" not in areas[0] else print(areas[0]["delta_pages"])'
}
for ((rank = 0; rank < ranks; ++rank)); do
    for epoch in 1 2 3 4 5; do
        read -r kind size < <(describe "$ckpt/$epoch/rank-$rank.img") || fail "cannot inspect epoch $epoch rank $rank"
        if [[ $case == chain ]]; then
            case $epoch in 1 | 4) want=full ;; *) want=increment.$((epoch - 1)) ;; esac
        else
            want=full
            [[ $epoch == 1 ]] || want=increment.$((epoch - 1))
        fi
        [[ $kind == "$want" ]] || fail "epoch $epoch rank $rank is $kind, expected $want"
        [[ $epoch == 1 ]] && full_size=$size
        if [[ $kind == increment.* ]] && ((size * 2 >= full_size)); then
            fail "epoch $epoch rank $rank: the increment has $size bytes, the full image $full_size"
        fi
        if [[ $case == chain && $kind == increment.* ]] && ((size * 7 >= full_size)); then
            fail "epoch $epoch rank $rank: the increment has $size bytes, a seventh of the full image or more ($full_size)"
        fi
        if [[ $case == mapped && $kind == increment.* ]]; then
            ((size * 8 < full_size)) ||
                fail "epoch $epoch rank $rank: the increment has $size bytes, more than an eighth of the full image's $full_size"
            # The mapping's area: a delta of the few pages written (4 per step), not the whole buffer.
            pages=$(mapped_delta_pages "$ckpt/$epoch/rank-$rank.img") || fail "epoch $epoch rank $rank: no delta area for the mapping"
            ((pages >= 4 && pages <= 8)) || fail "epoch $epoch rank $rank: the mapping's delta stores $pages pages, expected 4 to 8"
        fi
        sizes+="$epoch/$rank:$kind:$size "
    done
done

expected=5
if [[ $case == damage ]]; then
    img="$ckpt/3/rank-1.img"
    size=$(stat -c %s "$img")
    /usr/bin/python3 - "$img" "$((size / 2))" <<'PY'
import sys
path, at = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    f.seek(at)
    b = f.read(1)
    f.seek(at)
    f.write(bytes([b[0] ^ 0x10]))
PY
    expected=2
fi
for step in 1 2 3 4 5 6; do touch "$work/go-$step"; done
YK_INCR_PAUSE="$work/go" timeout -k 10 300 env YADOKARI_STATS="$work/stats-%r.json" "$yadokari" restart --ckpt-dir "$ckpt" \
    >"$work/restart.out" 2>"$work/restart.err"
rc=$?
[[ $rc == 0 ]] || fail "the restart exited $rc"
if [[ $case == damage ]]; then
    for epoch in 5 4 3; do
        grep -q "^yadokari: epoch $epoch is not usable (.*rank-1.img: checksum mismatch in .*); using epoch 2$" "$work/restart.err" ||
            fail "the restart did not say that it skips epoch $epoch for epoch 3's damaged rank-1.img"
    done
fi
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["restarts"] >= 1 else 1)' "$work/stats-0.json" ||
    fail "rank 0 did not resume from an image"
# The run up to the epoch restored, then the restart: the uninterrupted run's output.
{ grep -E "^step [0-9]+ " "$work/part1.out" | awk -v last="$expected" '$2 < last'; cat "$work/restart.out"; } >"$work/joined.out"
if ! cmp -s "$work/reference.out" "$work/joined.out"; then
    diff "$work/reference.out" "$work/joined.out" | head -n 20 >&2
    fail "the output before the checkpoint and after the restart differs from the uninterrupted run's"
fi
echo "ckpt_incremental: OK ($case; restarted from epoch $expected; images $sizes)"
