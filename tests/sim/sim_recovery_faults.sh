#!/usr/bin/env bash
# Node losses at awkward moments (issue 4's third acceptance point). The job must finish with the
# uninterrupted run's final line, or stop with one clear line saying why - never a wrong answer.
#   mid-write  3 nodes x 2 slots, 6 ranks: n2 is killed while epoch 2 is being written (ranks
#              pause in the write: YADOKARI_FAULT_SLOW_WRITE) -> restart from epoch 1, finish.
#   two-nodes  4 nodes x 2 slots, 6 ranks: n2 killed; once the restarted job committed an epoch,
#              n3 killed -> two automatic restarts, finish (6 ranks on 4 slots at the end).
#   all-lost   2 nodes x 2 slots, 4 ranks: both nodes killed -> exit 1 with "cannot restart".
# usage: sim_recovery_faults.sh YADOKARI openmpi|mpich SCENARIO PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2" SCENARIO="$3"
shift 3
source "$(dirname "$0")/sim_common.sh"

case "$SCENARIO" in
    mid-write) nodes=3 ranks=6 ;;
    two-nodes) nodes=4 ranks=6 ;;
    all-lost) nodes=2 ranks=4 ;;
    *) echo "unknown scenario $SCENARIO" >&2; exit 2 ;;
esac
"$Y" sim up --nodes $nodes --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
ckpt="$WORK/ckpt"
[[ "$SCENARIO" == mid-write ]] && export YADOKARI_FAULT_SLOW_WRITE=2:4000

committed() { ls "$ckpt/$1/MANIFEST" >/dev/null 2>&1; }
newest_committed() { ls "$ckpt"/*/MANIFEST 2>/dev/null | awk -F/ '{ print $(NF-1) }' | sort -n | tail -1; }
being_written() { [[ -d "$ckpt/$1" && ! -e "$ckpt/$1/MANIFEST" ]] && ls "$ckpt/$1"/rank-* >/dev/null 2>&1; }
logged() { grep -q "$1" run.err; }

timeout -k 5 400 "$Y" run --sim "$NAME" -n $ranks --mpi "$FLAVOUR" --ckpt-dir "$ckpt" --interval 1 -- "$@" \
    >run.out 2>run.err </dev/null &
job=$!
wait_for 60 committed 1 && pass "epoch 1 committed" || fail "epoch 1 not committed"

case "$SCENARIO" in
mid-write)
    wait_for 30 being_written 2 && pass "epoch 2 is being written" || fail "epoch 2 never started"
    "$Y" sim kill --name "$NAME" n2 >/dev/null || fail "sim kill n2"
    ;;
two-nodes)
    "$Y" sim kill --name "$NAME" n2 >/dev/null || fail "sim kill n2"
    wait_for 30 logged "^yadokari: restart 1 (node n2 lost)" && pass "restart 1" || fail "no restart 1"
    # The first incarnation may have committed more epochs than 1 before the loss.
    last=$(newest_committed)
    newer() { (($(newest_committed) > last)); }
    wait_for 60 newer && pass "the restarted job committed a new epoch" || fail "no epoch after restart 1"
    "$Y" sim kill --name "$NAME" n3 >/dev/null || fail "sim kill n3"
    ;;
all-lost)
    "$Y" sim kill --name "$NAME" n1 >/dev/null && "$Y" sim kill --name "$NAME" n2 >/dev/null || fail "sim kill n1, n2"
    ;;
esac

wait_job "$job" run.out
code=$?
case "$SCENARIO" in
mid-write)
    grep -q "restarting from epoch 1 on" run.err && pass "restarted from epoch 1 (epoch 2 was never committed)" \
        || fail "restart line: $(grep 'restarting from' run.err)"
    ;;
two-nodes)
    grep -q "^yadokari: restart 2 (node n3 lost)" run.err && pass "restart 2 after losing n3" \
        || fail "no second restart: $(grep '^yadokari:' run.err | tail -3)"
    ;;
all-lost)
    [[ $code == 1 ]] && pass "exit 1" || fail "exit $code"
    line=$(grep "^yadokari: node .* lost; cannot restart" run.err)
    [[ -n "$line" ]] && pass "clear error: $line" || fail "no clear error: $(tail -3 run.err)"
    ! grep -q '^final' run.out && pass "no result printed" || fail "a result was printed"
    finish
    ;;
esac
expect_finished "$code"
expect_reference_final $ranks "$@"
finish
