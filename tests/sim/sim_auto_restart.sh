#!/usr/bin/env bash
# A node lost mid-run and the job restarted on the survivors by itself (issue 4's first
# acceptance point). 3 nodes x 2 slots, 6 ranks under `yadokari run --sim` with a checkpoint every
# 2 s; once an epoch is committed, `sim kill n2`. Checked:
#   - the loss is detected (the "node n2 lost" line appears) within 2 s of the kill;
#   - the job finishes by itself, exit 0, after exactly one automatic restart;
#   - the restart's timeline line gives every phase a time;
#   - `yadokari status` during the restarted run shows n2 lost, 1 restart and the timeline, and
#     every rank relayed by its node's agent (the checkpoint before the loss went through them too);
#   - the final line equals an uninterrupted run's on the survivors' layout;
#   - Open MPI: after the restart, ranks that now share a node use shared memory (vader) and
#     nothing talks to n2 (btl_base_verbose: "Using vader btl for send to ... on node ...").
# usage: sim_auto_restart.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 3 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
ckpt="$WORK/ckpt"
verbose=()
[[ "$FLAVOUR" == openmpi ]] && verbose=(--mpi-args "--mca btl_base_verbose 100")
timeout -k 5 400 "$Y" run --sim "$NAME" -n 6 --mpi "$FLAVOUR" --ckpt-dir "$ckpt" --interval 2 "${verbose[@]}" -- "$@" \
    >run.out 2>run.err </dev/null &
job=$!
# Asked for at once rather than after the first interval: the restart then has work left to do,
# and its transports can be seen.
epoch=$(ask_checkpoint) && pass "epoch $epoch was committed before the node loss" || fail "no epoch committed"

"$Y" sim kill --name "$NAME" n2 >/dev/null || fail "sim kill n2"
killed=$(date +%s.%N)
detected=""
for _ in $(seq 200); do
    grep -q "node n2 lost" run.err && { detected=$(date +%s.%N); break; }
    sleep 0.02
done
if [[ -n "$detected" ]]; then
    delay=$(awk -v a="$killed" -v b="$detected" 'BEGIN { printf "%.2f", b - a }')
    awk -v d="$delay" 'BEGIN { exit !(d < 2) }' && pass "loss of n2 detected ${delay} s after the kill" \
        || fail "loss of n2 detected only ${delay} s after the kill"
else
    fail "no 'node n2 lost' line within 4 s: $(tail -3 run.err)"
fi

# The restarted run: its status must show the lost node, the restart and its timeline.
status=""
for _ in $(seq 300); do
    grep -q "^yadokari: restart 1 (node n2 lost)" run.err && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$job" 2>/dev/null; then
    status=$("$Y" status 2>&1)
    grep -q "^n2 .* lost " <<<"$status" && grep -q "^automatic restarts: 1$" <<<"$status" &&
        grep -q "^restart 1 (node n2 lost): detect " <<<"$status" &&
        pass "status shows n2 lost, 1 restart and its timeline" || fail "status: $status"
    grep -q "^ranks relayed by their node's agent: 6 of 6$" <<<"$status" &&
        pass "every rank of the restarted run is relayed by its node's agent" || fail "relay: $status"
else
    fail "the job ended before its status could be asked"
fi

wait_job "$job" run.out
code=$?
expect_finished "$code"
restarts=$(grep -c "^yadokari: restart [0-9]* (" run.err)
[[ $restarts == 1 ]] && pass "one automatic restart" || fail "$restarts automatic restarts"
number='[0-9]+\.[0-9]{3} s'
phases="detect $number, settle $number, stop $number, plan $number, stage $number, launch $number, MPI_Init $number, restore $number; epoch [0-9]+;"
line=$(grep "^yadokari: restart 1 (node n2 lost)" run.err)
grep -Eq "$phases" <<<"$line" && pass "timeline: ${line#yadokari: }" || fail "timeline line: '$line'"

if [[ "$FLAVOUR" == openmpi ]]; then
    after=$(sed -n '/restarting from epoch/,$p' run.err)
    hosts=$(grep -Eo "Using vader btl for send to .* on node yk$NAME-n[0-9]+" <<<"$after" | awk '{print $NF}' | sort -u | paste -sd' ')
    [[ "$hosts" == "yk$NAME-n1 yk$NAME-n3" ]] && pass "after the restart: shared memory within $hosts" \
        || fail "after the restart: vader on '$hosts'"
    grep -q "btl for send to .* on node yk$NAME-n2" <<<"$after" && fail "after the restart: traffic to n2" \
        || pass "after the restart: nothing sent to n2"
fi

# Reference: an uninterrupted run on the survivors' layout (n1 and n3).
expect_reference_final 6 "$@"
finish
