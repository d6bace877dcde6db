#!/usr/bin/env bash
# A node's link goes down while it holds ranks (`ip link set eth0 down` inside the node, as an
# unplugged cable or a dead switch port: no FIN, its processes run on). The MPI libraries alone hang
# for minutes there (docs/platform.md §3); the heartbeats must catch it. 3 nodes x 2 slots, 6 ranks
# under `yadokari run --sim`; once an epoch is committed, n2's link goes down. Checked:
#   - the loss is detected (the "node n2 lost" line appears) within 2 s of the cut;
#   - the ranks that ran on n2 are gone once the job restarted (nothing of the job runs on in the cut node);
#   - the job finishes by itself, exit 0, after exactly one automatic restart, on n1 and n3 only;
#   - nothing of the job is left in any node once it has ended (Open MPI's daemon in the cut node),
#     nor in the cut node's /dev/shm;
#   - the final line equals an uninterrupted run's on the survivors' layout.
# usage: sim_link_down.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 3 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
cd "$WORK"
ckpt="$WORK/ckpt"
timeout -k 5 400 "$Y" run --sim "$NAME" -n 6 --mpi "$FLAVOUR" --ckpt-dir "$ckpt" --interval 60 -- "$@" \
    >run.out 2>run.err </dev/null &
job=$!
epoch=$(ask_checkpoint) && pass "epoch $epoch was committed before the cut" || fail "no epoch committed"

# The job's processes inside n2 (its network namespace) before the cut: the ranks placed there.
n2_netns=$(readlink "/proc/$("$Y" sim list --name "$NAME" --json |
    python3 -c 'import json,sys; print([n["pid"] for n in json.load(sys.stdin)["clusters"][0]["nodes"] if n["node"] == "n2"][0])')/ns/net")
job_pids_in_n2() {
    local pid
    for pid in $(pgrep -f "$(basename "$1")"); do
        [[ $(readlink "/proc/$pid/ns/net" 2>/dev/null) == "$n2_netns" ]] && echo "$pid"
    done
}
before=$(job_pids_in_n2 "$1" | wc -l)
((before > 0)) && pass "$before process(es) of the program run in n2 before the cut" || fail "no rank in n2 before the cut"

"$Y" sim exec --name "$NAME" n2 -- ip link set eth0 down || fail "cutting n2's link"
cut=$(date +%s.%N)
detected=""
for _ in $(seq 200); do
    grep -q "node n2 lost" run.err && { detected=$(date +%s.%N); break; }
    sleep 0.02
done
if [[ -n "$detected" ]]; then
    delay=$(awk -v a="$cut" -v b="$detected" 'BEGIN { printf "%.2f", b - a }')
    awk -v d="$delay" 'BEGIN { exit !(d < 2) }' && pass "loss of n2 detected ${delay} s after its link went down" \
        || fail "loss of n2 detected only ${delay} s after its link went down"
else
    fail "no 'node n2 lost' line within 4 s of the cut: $(tail -3 run.err)"
fi

wait_for 120 grep -q "^yadokari: restart 1 (node n2 lost)" run.err || fail "no restart line: $(tail -3 run.err)"
left=$(job_pids_in_n2 "$1" | paste -sd' ')
[[ -z "$left" ]] && pass "nothing of the program runs on in the cut node" || fail "left running in n2: $left"

wait_job "$job" run.out
code=$?
expect_finished "$code"
# Nothing of the job outlives it, in the cut node either: Open MPI's orted there is no child of
# mpirun (it daemonizes) and never hears through the cut link that mpirun died; the node's agent
# stops it when the job ends. The wait is bounded only to turn a leftover into a failure.
job=$$
if wait_for 30 none_left; then
    pass "nothing of the job is left in the cluster, the cut n2 included"
else
    fail "left running after the job ended: $(job_processes | paste -sd';')"
fi
# The node's own /dev/shm (runtime/sim/holder.cpp) holds no shared-memory file of the job's ranks.
shm=$("$Y" sim exec --name "$NAME" n2 -- ls -A /dev/shm | paste -sd' ')
[[ -z "$shm" ]] && pass "the cut n2's /dev/shm is empty" || fail "left in the cut n2's /dev/shm: $shm"
restarts=$(grep -c "^yadokari: restart [0-9]* (" run.err)
[[ $restarts == 1 ]] && pass "one automatic restart" || fail "$restarts automatic restarts"
grep -Eq "restarting from epoch [0-9]+ on yk$NAME-n1:[0-9]+,yk$NAME-n3:[0-9]+ " run.err &&
    pass "restarted on n1 and n3" || fail "restart placement: $(grep 'restarting from epoch' run.err)"

# The reference runs on the survivors' layout; every node of the cluster gets an agent, so n2's
# link comes back first (its old agent has given up on the coordinator by now).
"$Y" sim exec --name "$NAME" n2 -- ip link set eth0 up || fail "bringing n2's link back"
REFERENCE_HOSTS="n1:3,n3:3" expect_reference_final 6 "$@"
finish
