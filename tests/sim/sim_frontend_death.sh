#!/usr/bin/env bash
# The front end killed (SIGKILL) while the ranks write an epoch's images: nothing of the job may run
# on headless, and the epoch before stays usable. 2 nodes x 2 slots, 4 ranks of
# tests/sim/pause_then_crash.c waiting at their pause point; epoch 1 is asked for and committed, then
# epoch 2, whose image write every rank makes last 5 minutes (YADOKARI_FAULT_SLOW_WRITE). Once its
# images are being written, `kill -9` of `yadokari run`. Checked:
#   - no process is left in the cluster's nodes or its frontend but their namespace holders (the
#     launcher gets SIGTERM when the front end dies and takes its daemons and ranks with it); the
#     wait is bounded only to turn a hang into a failure;
#   - `yadokari restart --sim` from the checkpoint directory uses epoch 1 and ends with the final line
#     of an uninterrupted run.
# usage: sim_frontend_death.sh YADOKARI openmpi|mpich PROGRAM
Y="$1" FLAVOUR="$2" PROGRAM="$3"
source "$(dirname "$0")/sim_common.sh"
# The program's own variables reach the ranks on the nodes: Hydra forwards the whole environment,
# Open MPI only what it is told to (the nodes start its daemons with a login's environment).
forward=()
[[ "$FLAVOUR" == openmpi ]] && forward=(--mpi-args "-x YK_APP_PAUSE")

"$Y" sim up --nodes 2 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
ckpt="$WORK/ckpt" go="$WORK/go"

being_written() { [[ -d "$ckpt/2" && ! -e "$ckpt/2/MANIFEST" ]] && ls "$ckpt/2"/rank-* >/dev/null 2>&1; }

YK_APP_PAUSE="$go" YADOKARI_FAULT_SLOW_WRITE=2:300000 timeout -k 5 300 "$Y" run --sim "$NAME" -n 4 \
    --mpi "$FLAVOUR" --ckpt-dir "$ckpt" "${forward[@]}" -- "$PROGRAM" >run.out 2>run.err </dev/null &
job=$!
wait_for 300 test -e "$go.reached" || fail "the job never reached its pause point"
frontend=$(pgrep -P "$job" -x yadokari)  # the front end, under `timeout`
epoch=$(ask_checkpoint) && [[ $epoch == 1 ]] && pass "epoch 1 committed" || fail "epoch '$epoch' committed, not 1"
"$Y" checkpoint >checkpoint.out 2>&1 &
asker=$!
wait_for 60 being_written && pass "epoch 2 is being written" || fail "epoch 2 never started"
[[ -n "$frontend" ]] && kill -KILL "$frontend" && pass "front end (pid $frontend) killed" || fail "no front end to kill"
wait "$job" 2>/dev/null
# Its front end is gone: the CLI would wait out its own 130 s limit for an answer.
kill "$asker" 2>/dev/null
wait "$asker" 2>/dev/null
job=$$  # for wait_for: the job is gone, keep polling
if wait_for 120 none_left; then
    pass "no process of the job is left in the cluster"
else
    fail "left running after the front end died: $(job_processes | paste -sd';')"
    job_processes | awk '{ print $1 }' | xargs -r kill -KILL
fi
[[ -e "$ckpt/1/MANIFEST" ]] && pass "epoch 1 is intact" || fail "epoch 1 has no MANIFEST"
[[ -e "$ckpt/2/MANIFEST" ]] && fail "epoch 2 was committed without its front end"

touch "$go"
timeout -k 5 300 "$Y" restart --sim "$NAME" --ckpt-dir "$ckpt" >run.out 2>run.err </dev/null &
job=$!
wait_job "$job" run.out
expect_finished $?
grep -q "epoch 2 is not usable" run.err && pass "restart passed over the unfinished epoch 2" || true
expect_reference_final 4 "$PROGRAM"
finish
