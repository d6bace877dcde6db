#!/usr/bin/env bash
# `--policy speed` from measured compute times (issue 4, item 5). n1 (3 slots, no CPU limit) and
# n2 (3 slots, 0.03 CPU per slot: a slow node, `sim add --cpu-per-slot`); 4 ranks of a
# compute-bound job placed 2+2, checkpoints every second. Each rank measures its time outside MPI
# and sends it with its image; after two commits `yadokari rebalance` must place fewer ranks on
# n2 than on n1 (n1:3, n2:1: with free slots on both, balanced would move nothing), say why, and
# the job must end with an uninterrupted run's final line. `yadokari status` shows each rank's
# compute seconds, never more than its time since MPI_Init (also right after the restart: the
# total is not carried in the images).
# usage: sim_speed_rebalance.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 1 --slots 3 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
added=$("$Y" sim add --slots 3 --cpu-per-slot 0.03 --name "$NAME") || { fail "sim add"; finish; }
[[ "$added" == *", 3 slots, 0.03 CPU per slot)" ]] && pass "n2 added with its own CPU limit" || fail "sim add: $added"
cd "$WORK"
ckpt="$WORK/ckpt"
H="yk$NAME"
timeout -k 5 500 "$Y" run --sim "$NAME" --hosts n1:2,n2:2 -n 4 --mpi "$FLAVOUR" --policy speed \
    --ckpt-dir "$ckpt" --interval 1 -- "$@" >run.out 2>run.err </dev/null &
job=$!
# Two commits: the compute times are then those of one whole interval between commits.
two_committed() { (($(ls "$ckpt"/*/MANIFEST 2>/dev/null | wc -l) >= 2)); }
logged() { grep -q "$1" run.err; }

wait_for 120 two_committed && pass "two epochs committed" || fail "fewer than two epochs committed"
# Every rank reports a compute time (time outside MPI since its MPI_Init, never more than that).
compute_within_init() {  # compute_within_init WHAT: `yadokari status --json` checked as above
    "$Y" status --json >status.json 2>status.err || { fail "status ($1): $(cat status.err)"; return; }
    python3 - status.json <<'PY' && pass "status shows every rank's compute seconds ($1)" || fail "status ($1): $(cat status.json)"
import json, sys
ranks = json.load(open(sys.argv[1]))["ranks"]
assert len(ranks) == 4, ranks
for r in ranks:
    assert isinstance(r["compute_seconds"], float), r
    assert 0 <= r["compute_seconds"] <= r["seconds_since_init"] + 0.05, r
PY
}
compute_within_init "first run"

# The rebalance's own epoch is the one measured: its interval starts at the previous commit. Asked
# for right after a commit it would hold a step or two; a moment later it holds several.
newest() { ls "$ckpt"/*/MANIFEST 2>/dev/null | sort -V | tail -n 1; }
seen=$(newest)
wait_for 60 eval '[[ "$(newest)" != "$seen" ]]' || fail "no further epoch committed"
sleep 0.8
reply=$("$Y" rebalance 2>&1)
[[ "$reply" == "yadokari: rebalance of job "*" started: "* ]] && pass "rebalance accepted" || fail "rebalance: $reply"
wait_for 120 logged "^yadokari: restart 1 (rebalance): detect -, " && pass "restart 1 (rebalance)" \
    || fail "no rebalance restart: $(grep '^yadokari' run.err | tail -3)"
# The restarted processes count afresh (nothing of the first run's total comes back with the image).
kill -0 "$job" 2>/dev/null && compute_within_init "after the restart" || fail "the job ended right after the restart"
grep -q "^yadokari: rebalance; restarting from epoch [0-9]* on $H-n1:3,$H-n2:1 (policy speed, ranks moved: 3)" run.err \
    && pass "speed placed 3 ranks on n1 and 1 on the slow n2" \
    || fail "placement: $(grep 'rebalance; restarting' run.err)"
grep -q "^yadokari: compute time per rank \(in the epoch ending at [0-9]*\|since its process started (the epoch ending at [0-9]* shows none for some ranks)\): $H-n1 [0-9.e+-]* s (ranks 0,1), $H-n2 [0-9.e+-]* s (ranks 2,3)$" run.err \
    && pass "the measured compute times are logged per node" || fail "compute line: $(grep 'compute time' run.err)"
grep -q "^yadokari: placement: speed: node speeds $H-n1 [0-9.e+-]* (inferred), $H-n2 [0-9.e+-]* (inferred); ranks per node (ranks/slots) $H-n1 3/3, $H-n2 1/3" run.err \
    && pass "the placement says the speeds were inferred from the measurements" \
    || fail "placement line: $(grep '^yadokari: placement' run.err)"

grep "^yadokari: \(rebalance; restarting\|compute time\|placement\)" run.err | sed 's/^/log: /'

wait_job "$job" run.out
code=$?
expect_finished "$code"
# The reference runs on the fast node only (the final line does not depend on the layout).
REFERENCE_HOSTS=n1:4 expect_reference_final 4 "$@"
finish
