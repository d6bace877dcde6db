#!/usr/bin/env bash
# Node-local images with replicas on a partner node (--node-dir; issue 4). Every simulated node has
# a private tmpfs at /run/yadokari/node-disk, gone when the node is killed. 3 nodes x 2 slots,
# 6 ranks, checkpoints when the test asks for them (`yadokari checkpoint`: no interval, so no epoch
# the test reads is pruned under it); each image is replicated to the next node (n1->n2->n3->n1),
# agent to agent (`yadokari status`: no image chunk passed on by the front end).
#   loss      once an epoch is committed, n2 is killed: its own images and the replicas of n1's
#             are gone with it. Checked: every MANIFEST entry names two nodes; the job restarts
#             once, the images of n2's ranks are staged from n3 (their replica) to wherever they
#             go, n1's come from n1 itself; an epoch taken after the restart is replicated between
#             n1 and n3; the job finishes with the uninterrupted run's final line on the
#             survivors' layout.
#   chain     as loss, with a second epoch before the kill: an increment of the first on every rank
#             (MANIFEST parent_epoch), replicated like it; the restart stages the images of n2's
#             ranks of both epochs from n3, restores the increment from its chain on the node it is
#             placed on and finishes with the uninterrupted run's final line.
#   both      n2 and n3 are killed together: the images of n2's ranks are on no live node, so the
#             job stops (exit 1) with the one-line reason, never restarting from a partial set.
#   manual    as chain, with PROGRAM waiting at its pause point (YK_APP_PAUSE, pause_then_crash.c)
#             while both epochs are taken, and the job stopped after the increment
#             (--stop-after-epoch 2, exit 75); n2 is killed; `yadokari restart` without --node-dir
#             is refused with the reason (exit 2); with it, the restart (the same job id, its own
#             agents) stages the images of both epochs that the placement on n1 and n3 needs,
#             restores the increment from its chain and prints the uninterrupted run's final line
#             (the first run stopped before printing it).
# usage: sim_node_local.sh YADOKARI openmpi|mpich loss|chain|both|manual PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2" MODE="$3"
shift 3
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 3 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
ckpt="$WORK/ckpt"
disk=/run/yadokari/node-disk
extra=() pause=""
if [[ $MODE == manual ]]; then
    pause="$WORK/go"
    extra=(--stop-after-epoch 2)
    [[ "$FLAVOUR" == openmpi ]] && extra+=(--mpi-args "-x YK_APP_PAUSE")
fi
YK_APP_PAUSE="$pause" timeout -k 5 400 "$Y" run --sim "$NAME" -n 6 --mpi "$FLAVOUR" --ckpt-dir "$ckpt" \
    --node-dir "$disk" "${extra[@]}" -- "$@" >run.out 2>run.err </dev/null &
job=$!
# nodes_of EPOCH: the nodes each image of EPOCH's MANIFEST names, "a,b" per rank.
nodes_of() {
    python3 -c 'import json,sys; print(" ".join(",".join(i["nodes"]) for i in json.load(open(sys.argv[1]))["images"]))' \
        "$ckpt/$1/MANIFEST"
}
if epoch=$(ask_checkpoint); then
    pairs=$(nodes_of "$epoch")
    [[ "$pairs" == "n1,n2 n1,n2 n2,n3 n2,n3 n3,n1 n3,n1" ]] && pass "epoch $epoch committed with replicas: $pairs" \
        || fail "MANIFEST nodes of epoch $epoch: '$pairs'"
else
    fail "no epoch committed: $(tail -3 run.err)"
fi
# The replicas went node to node, to the partners' image ports: no chunk through the front end.
status=$("$Y" status 2>&1)
grep -q "^image chunks passed on by the front end: 0$" <<<"$status" &&
    pass "the replicas went node to node (no image chunk through the front end)" || fail "status: $status"
# The front end sees only MANIFESTs: the images are on the nodes.
ls "$ckpt"/*/rank-*.img >/dev/null 2>&1 && fail "images in the checkpoint directory" \
    || pass "no image in the checkpoint directory"

# parents_of EPOCH: every image's parent epoch in EPOCH's MANIFEST (0: a full image).
parents_of() {
    python3 -c 'import json,sys; print(" ".join(str(i.get("parent_epoch", 0)) for i in json.load(open(sys.argv[1]))["images"]))' \
        "$ckpt/$1/MANIFEST"
}
if [[ $MODE == chain || $MODE == manual ]]; then
    if second=$(ask_checkpoint); then
        parents=$(parents_of "$second")
        [[ "$parents" == "$epoch $epoch $epoch $epoch $epoch $epoch" && "$(nodes_of "$second")" == "$pairs" ]] &&
            pass "epoch $second is an increment of epoch $epoch on every rank, replicated like it" ||
            fail "epoch $second: parents '$parents', nodes '$(nodes_of "$second")'"
    else
        fail "no second epoch committed: $(tail -3 run.err)"
    fi
fi

case "$MODE" in
loss | chain)
    "$Y" sim kill --name "$NAME" n2 >/dev/null || fail "sim kill n2"
    wait_for 60 grep -q "^yadokari: restart 1 (" run.err && pass "restart 1" || fail "no restart 1: $(tail -3 run.err)"
    # An epoch of the restarted job is replicated between the survivors.
    if after=$(ask_checkpoint); then
        nodes=$(nodes_of "$after" | tr ' ,' '\n\n' | sort -u | paste -sd' ')
        [[ "$nodes" == "n1 n3" ]] && pass "epoch $after (after the restart) is kept on n1 and n3" \
            || fail "epoch $after is on '$nodes'"
    else
        fail "no epoch after the restart"
    fi
    wait_job "$job" run.out
    code=$?
    expect_finished "$code"
    restarts=$(grep -c "^yadokari: restart [0-9]* (" run.err)
    [[ $restarts == 1 ]] && pass "one automatic restart" || fail "$restarts automatic restarts: $(tail -5 run.err)"
    # n2's ranks (2, 3) have their only live copy on n3; whatever went to n1 was staged from there.
    staged=$(grep "^yadokari: staged rank" run.err)
    bad=$(grep -v -E "^yadokari: staged rank [23]'s image of epoch [0-9]+ from n3 to n1$" <<<"$staged")
    [[ -n "$staged" && -z "$bad" ]] && pass "staged from the replicas: $(paste -sd';' <<<"$staged")" \
        || fail "staging: '$staged'"
    if [[ $MODE == chain ]]; then
        for e in "$epoch" "$second"; do
            grep -q "^yadokari: staged rank [23]'s image of epoch $e from n3 to n1$" <<<"$staged" &&
                pass "epoch $e of the chain staged" || fail "epoch $e of the chain was not staged: '$staged'"
        done
    fi
    expect_reference_final 6 "$@"
    ;;
manual)
    wait "$job"
    code=$?
    [[ $code == 75 ]] && pass "the job stopped after epoch $second (exit 75)" || fail "the job exited $code, expected 75"
    "$Y" sim kill --name "$NAME" n2 >/dev/null || fail "sim kill n2"
    "$Y" restart --ckpt-dir "$ckpt" --sim "$NAME" >refused.out 2>refused.err </dev/null
    code=$?
    want="yadokari: epoch $second in $ckpt is kept on node-local storage of n1, n2, n3 (--node-dir): restart it with --node-dir (the job's) on the cluster whose nodes hold it (--sim, --hosts or --hostfile)"
    [[ $code == 2 && "$(cat refused.err)" == "$want" ]] && pass "without --node-dir: refused with the reason" ||
        fail "without --node-dir: exit $code, '$(cat refused.err)'"
    grep -q '^final' run.out && fail "the first run printed its final line before it stopped"
    mv run.out first.out
    mv run.err first.err
    touch "$pause"  # the restarted ranks go on past the pause point
    # job.json keeps the run's --mpi-args (-x YK_APP_PAUSE): the variable is set for the restart too.
    YK_APP_PAUSE="$pause" timeout -k 5 400 "$Y" restart --ckpt-dir "$ckpt" --sim "$NAME" --node-dir "$disk" \
        >run.out 2>run.err </dev/null &
    job=$!
    wait_job "$job" run.out
    code=$?
    expect_finished "$code"
    grep -q "^yadokari: restarting from epoch $second (node-local images) on " run.err &&
        pass "restarted from epoch $second" || fail "no restart from epoch $second: $(head -5 run.err)"
    staged=$(grep "^yadokari: staged rank" run.err)
    bad=$(grep -v -E "^yadokari: staged rank [0-5]'s image of epoch ($epoch|$second) from n[13] to n[13]$" <<<"$staged")
    [[ -n "$staged" && -z "$bad" ]] && pass "staged: $(paste -sd';' <<<"$staged")" || fail "staging: '$staged'"
    for e in "$epoch" "$second"; do
        grep -q "^yadokari: staged rank [0-5]'s image of epoch $e " <<<"$staged" &&
            pass "epoch $e of the chain staged" || fail "epoch $e of the chain was not staged: '$staged'"
    done
    expect_reference_final 6 "$@"
    ;;
both)
    "$Y" sim kill --name "$NAME" n2 >/dev/null || fail "sim kill n2"
    "$Y" sim kill --name "$NAME" n3 >/dev/null || fail "sim kill n3"
    wait_job "$job" run.out
    code=$?
    last=$(tail -n 1 run.err)
    [[ $code == 1 ]] && pass "the job stopped with exit 1" || fail "the job exited $code"
    grep -Eq "^yadokari: node n[23](, n[23])? lost; cannot restart: no committed epoch has a good copy of every rank's image on a live node \(epoch [0-9]+: rank [2-5]" <<<"$last" \
        && pass "reason: $last" || fail "last line: '$last'"
    grep -q "^final" run.out && fail "a final line after losing both copies" || pass "no final result"
    ;;
*)
    fail "unknown mode $MODE"
    ;;
esac
finish
