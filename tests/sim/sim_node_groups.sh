#!/usr/bin/env bash
# A communicator of the ranks sharing a node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED) keeps its
# members across a restart that places the ranks otherwise: 3 nodes x 2 slots, 6 ranks (node groups
# {0,1} {2,3} {4,5}); once the program made its communicator, an epoch, then `sim kill n2`: the
# restart puts 3 ranks on each of n1 and n3, where a new split would group them by 3. The program
# checks its groups at every step (node_groups.c); the job must end with an uninterrupted run's
# final line (pmpi-layer/README.md, "Re-creating objects").
# usage: sim_node_groups.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 3 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
ckpt="$WORK/ckpt"
timeout -k 5 400 "$Y" run --sim "$NAME" -n 6 --mpi "$FLAVOUR" --ckpt-dir "$ckpt" -- "$@" \
    >run.out 2>run.err </dev/null &
job=$!
wait_for 60 grep -q "^split$" run.out && pass "the node communicator is made" || fail "no 'split': $(tail -3 run.err)"
epoch=$(ask_checkpoint) && pass "epoch $epoch committed after the split" || fail "no epoch committed"
"$Y" sim kill --name "$NAME" n2 >/dev/null || fail "sim kill n2"
wait_for 60 grep -q "^yadokari: restart 1 (node n2 lost): detect " run.err && pass "restarted without n2" \
    || fail "no restart: $(grep '^yadokari' run.err | tail -3)"
grep -q "^yadokari: node n2 lost; restarting from epoch $epoch on yk$NAME-n1:3,yk$NAME-n3:3 " run.err \
    && pass "3 ranks on each of n1 and n3" || fail "placement: $(grep 'restarting from' run.err)"

wait_job "$job" run.out
code=$?
expect_finished "$code"
grep -q "other members than at the start" run.err && fail "$(grep -m1 'other members' run.err)"
expect_reference_final 6 "$@"
finish
