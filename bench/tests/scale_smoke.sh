#!/usr/bin/env bash
# The scale harness at its smallest (64 fake ranks on 4 fake nodes, 2 cut rounds, one epoch, a
# node loss), with the ranks relayed by their nodes' agents (the product's default) and with every
# rank connected to the front end itself (--direct): the epoch commits, the lost node is detected
# and every policy plans the restart. Direct, the front end sees exactly the checkpoint protocol's
# messages per rank (in: a first report, one per cut round and ImageWritten; out: prepare, the cut
# rounds' targets, GO and resume). Relayed, every message out goes once per node (5 x 4 agents), and
# what comes in is batched per node: at most half of the direct count, at least two batches per node
# (the reports, then after GO the images). Usually 16 (a batch per node and phase); a loaded machine
# may split a batch at the agent's linger, and a node whose ranks get the second round's targets
# before their first answers left sends both rounds' reports in one batch (14 seen). With
# --node-dir (relayed), the epoch's replicas add messages per node, not per image.
set -uo pipefail
harness=$1
fail() { echo "FAIL: $1"; echo "$out"; exit 1; }
for path in relayed direct node-dir; do
  flag=()
  [[ $path == direct ]] && flag=(--direct)
  [[ $path == node-dir ]] && flag=(--node-dir)
  # 25 missed heartbeats (5 s): a busy machine must not make a live fake node look lost.
  out=$("$harness" --ranks 64 --ranks-per-node 16 --rounds 1 --cut-rounds 2 --traffic sparse --heartbeat-misses 25 \
    "${flag[@]}" 2>&1)
  rc=$?
  [[ $rc == 0 ]] || fail "$path: exit code $rc"
  grep -q '^round 1: epoch 1 committed, prepare->commit' <<<"$out" || fail "$path: the epoch did not commit"
  if [[ $path == direct ]]; then
    grep -qx 'ranks through their agents'"'"' relays: 0 of 64 (--direct)' <<<"$out" || fail "direct: ranks relayed"
    grep -qx 'messages per checkpoint at the front end: 256 in, 320 out' <<<"$out" || fail "direct: message counts"
  else
    grep -qx 'ranks through their agents'"'"' relays: 64 of 64 (relayed)' <<<"$out" || fail "$path: ranks not relayed"
    counts=$(sed -n 's/^messages per checkpoint at the front end: \([0-9]*\) in, \([0-9]*\) out$/\1 \2/p' <<<"$out")
    read -r in out_count <<<"$counts"
    if [[ $path == relayed ]]; then
      [[ -n $in && $in -ge 8 && $in -le 128 && $out_count == 20 ]] || fail "relayed: message counts '$counts'"
    else
      # Per node, one message more in (the answers to its copy orders) and three more out (the
      # release while the replicas are made, the copy orders in one message, the epochs to keep).
      [[ -n $in && $in -ge 12 && $in -le 132 && $out_count == 32 ]] || fail "node-dir: message counts '$counts'"
    fi
  fi
  grep -q '^node loss: n3 declared lost' <<<"$out" || fail "$path: the lost node was not detected"
  for policy in node balanced comm speed auto; do
    grep -Eq "^plan after the loss, policy $policy +[0-9.]+ s \(moved [0-9]+ ranks\)$" <<<"$out" || fail "$path: policy $policy"
  done
done
echo ok
