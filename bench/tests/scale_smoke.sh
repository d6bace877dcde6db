#!/usr/bin/env bash
# The scale harness at its smallest (64 fake ranks on 4 fake nodes, 2 cut rounds, one epoch, a
# node loss): the epoch commits, the front end sees exactly the checkpoint protocol's messages
# (in: a first report, one per cut round and ImageWritten per rank; out: prepare, the cut rounds'
# targets, GO and resume per rank), the lost node is detected and every policy plans the restart.
set -uo pipefail
harness=$1
# 25 missed heartbeats (5 s): a busy machine must not make a live fake node look lost.
out=$("$harness" --ranks 64 --ranks-per-node 16 --rounds 1 --cut-rounds 2 --traffic sparse --heartbeat-misses 25 2>&1)
rc=$?
fail() { echo "FAIL: $1"; echo "$out"; exit 1; }
[[ $rc == 0 ]] || fail "exit code $rc"
grep -q '^round 1: epoch 1 committed, prepare->commit' <<<"$out" || fail "the epoch did not commit"
grep -qx 'messages per checkpoint at the front end: 256 in, 320 out' <<<"$out" || fail "message counts"
grep -q '^node loss: n3 declared lost' <<<"$out" || fail "the lost node was not detected"
for policy in node balanced comm speed auto; do
  grep -Eq "^plan after the loss, policy $policy +[0-9.]+ s \(moved [0-9]+ ranks\)$" <<<"$out" || fail "policy $policy"
done
echo ok
