#!/usr/bin/env bash
# A node lost mid-run, and the job restarted rank by rank on the survivors (by hand: the
# automatic loop of the cluster runtime is not built yet). 3 nodes x 2 slots, 6 ranks under
# `yadokari run --sim` with checkpoints every 0.3 s; once an epoch is committed, `sim kill n2`;
# the job must end (the MPI library aborts it); `yadokari restart --sim` then runs the 6 ranks on
# the 2 surviving nodes and must finish with the final line of an uninterrupted run on that
# layout. usage: sim_node_loss.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 3 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
ckpt="$WORK/ckpt"
timeout -k 5 300 "$Y" run --sim "$NAME" -n 6 --mpi "$FLAVOUR" --ckpt-dir "$ckpt" --interval 0.3 -- "$@" \
    >run.out 2>run.err </dev/null &
job=$!
for _ in $(seq 600); do
    ls "$ckpt"/*/MANIFEST >/dev/null 2>&1 && break
    sleep 0.05
done
if ls "$ckpt"/*/MANIFEST >/dev/null 2>&1; then
    pass "an epoch was committed before the node loss"
else
    fail "no epoch committed"
fi
"$Y" sim kill --name "$NAME" n2 >/dev/null || fail "sim kill n2"
wait "$job"
code=$?
[[ $code != 0 ]] && pass "the job ended with exit $code after losing n2" || fail "the job survived the node loss?"

timeout -k 5 300 "$Y" restart --sim "$NAME" --ckpt-dir "$ckpt" >restart.out 2>restart.err </dev/null
code=$?
if [[ $code == 0 || ( "$FLAVOUR" == mpich && $code == 124 ) ]]; then
    pass "restart on the survivors (exit $code)"
else
    fail "restart on the survivors exited $code: $(tail -3 restart.err)"
fi
# Reference: an uninterrupted run on the survivors' layout (6 ranks on n1 and n3).
timeout -k 5 300 "$Y" run --sim "$NAME" -n 6 --mpi "$FLAVOUR" -- "$@" >reference.out 2>reference.err </dev/null
final=$(grep '^final' reference.out | tail -n 1)
got=$(grep '^final' restart.out | tail -n 1)
[[ -n "$final" && "$got" == "$final" ]] && pass "same final result: $final" || fail "final result '$got', expected '$final'"
finish
