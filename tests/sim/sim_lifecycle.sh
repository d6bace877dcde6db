#!/usr/bin/env bash
# yadokari sim up/list/exec/kill/down: idempotence, node identity (hostname, address, /etc/hosts),
# reachability, a killed node is gone, error lines. usage: sim_lifecycle.sh YADOKARI
Y="$1"
source "$(dirname "$0")/sim_common.sh"

expect_error() { # expect_error CODE MESSAGE CMD...: exact one-line stderr and exit code
    local code="$1" message="$2"
    shift 2
    local err
    err=$("$@" 2>&1 >/dev/null)
    local got=$?
    if [[ $got == "$code" && "$err" == "$message" ]]; then
        pass "error: $message"
    else
        fail "$* -> exit $got, stderr '$err' (expected $code, '$message')"
    fi
}

# --- down on nothing, bad input -----------------------------------------------------------------
out=$("$Y" sim down --name "$NAME") && [[ "$out" == "no cluster $NAME to remove" ]] && pass "down with nothing there" \
    || fail "down with nothing there: $out"
expect_error 2 "yadokari: --nodes must be from 1 to 250, not 0" "$Y" sim up --nodes 0 --name "$NAME"
expect_error 2 "yadokari: --slots must be at least 1, not 0" "$Y" sim up --nodes 1 --slots 0 --name "$NAME"
expect_error 2 "yadokari: --name must be 1 to 12 lowercase letters or digits, not 'Bad_Name'" "$Y" sim up --nodes 1 --name Bad_Name
expect_error 1 "yadokari: no simulated cluster named $NAME (start one with yadokari sim up)" "$Y" sim list --name "$NAME"
expect_error 1 "yadokari: no simulated cluster named $NAME (start one with yadokari sim up)" "$Y" sim kill n1 --name "$NAME"
expect_error 127 "yadokari: ip not found in PATH (install iproute2)" env PATH=/nonexistent "$Y" sim up --nodes 1 --name "$NAME"
if command -v setpriv >/dev/null; then
    expect_error 1 "yadokari: sim needs root (it creates namespaces and network devices)" \
        setpriv --reuid=65534 --regid=65534 --clear-groups "$Y" sim up --nodes 1 --name "$NAME"
fi

# --- up, reuse ----------------------------------------------------------------------------------
"$Y" sim up --nodes 2 --slots 2 --name "$NAME" >"$WORK/up.out" || fail "sim up"
grep -q "^started cluster $NAME" "$WORK/up.out" && pass "up started" || fail "up: $(cat "$WORK/up.out")"
pids_before=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(*[n["pid"] for n in s["nodes"]])' "$DIR/state.json")
"$Y" sim up --nodes 2 --slots 2 --name "$NAME" >"$WORK/up2.out" || fail "second sim up"
pids_after=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(*[n["pid"] for n in s["nodes"]])' "$DIR/state.json")
grep -q "^reusing the running cluster $NAME" "$WORK/up2.out" && [[ "$pids_before" == "$pids_after" ]] \
    && pass "second up reuses the cluster" || fail "second up: $(cat "$WORK/up2.out")"
"$Y" sim list --name "$NAME" --json >"$WORK/list.json" || fail "sim list --json"
python3 - "$WORK/list.json" "$NAME" <<'PY' && pass "list --json" || fail "list --json: $(cat "$WORK/list.json")"
import json, sys
clusters = json.load(open(sys.argv[1]))["clusters"]
name = sys.argv[2]
assert len(clusters) == 1 and clusters[0]["name"] == name
nodes = clusters[0]["nodes"]
assert [n["hostname"] for n in nodes] == [f"yk{name}-n1", f"yk{name}-n2"], nodes
assert [n["address"] for n in nodes] == ["10.213.0.1", "10.213.0.2"], nodes
assert all(n["state"] == "up" and n["slots"] == 2 for n in nodes), nodes
assert clusters[0]["frontend"]["state"] == "up"
PY
"$Y" sim list >"$WORK/list.txt"
grep -Eq "^n2 +yk$NAME-n2 +10\.213\.0\.2 +2  up$" "$WORK/list.txt" && pass "list table" || fail "list: $(cat "$WORK/list.txt")"
[[ "$(cat "$DIR/hostfile.openmpi")" == "yk$NAME-n1 slots=2"$'\n'"yk$NAME-n2 slots=2" ]] && pass "hostfile.openmpi" \
    || fail "hostfile.openmpi: $(cat "$DIR/hostfile.openmpi")"
[[ "$(cat "$DIR/hostfile.mpich")" == "yk$NAME-n1:2"$'\n'"yk$NAME-n2:2" ]] && pass "hostfile.mpich" \
    || fail "hostfile.mpich: $(cat "$DIR/hostfile.mpich")"

# --- identity inside the nodes ------------------------------------------------------------------
[[ "$("$Y" sim exec n1 --name "$NAME" -- hostname)" == "yk$NAME-n1" ]] && pass "hostname of n1" || fail "hostname of n1"
[[ "$("$Y" sim exec n2 --name "$NAME" -- hostname)" == "yk$NAME-n2" ]] && pass "hostname of n2" || fail "hostname of n2"
[[ "$("$Y" sim exec fe --name "$NAME" -- hostname)" == "yk$NAME-fe" ]] && pass "hostname of the frontend" || fail "frontend hostname"
[[ "$(hostname)" != yk$NAME-* ]] && pass "root hostname untouched" || fail "root hostname changed"
addr=$("$Y" sim exec n2 --name "$NAME" -- ip -4 -o address show dev eth0 | awk '{print $4}')
[[ "$addr" == "10.213.0.2/24" ]] && pass "address of n2" || fail "address of n2: $addr"
[[ "$("$Y" sim exec n1 --name "$NAME" -- getent hosts "yk$NAME-n2" | awk '{print $1}')" == 10.213.0.2 ]] \
    && pass "n1 resolves n2" || fail "n1 does not resolve n2"
getent hosts "yk$NAME-n2" >/dev/null && fail "the root namespace resolves yk$NAME-n2" || pass "root /etc/hosts untouched"
[[ "$("$Y" sim exec n1 --name "$NAME" -- pwd)" == "$PWD" ]] && pass "exec keeps the directory" || fail "exec directory"
"$Y" sim exec n1 --name "$NAME" -- sh -c 'exit 3'
[[ $? == 3 ]] && pass "exec passes the exit code" || fail "exec exit code"
"$Y" sim exec n1 --name "$NAME" -- sh -c 'echo x > /dev/shm/yk-sim-probe'
[[ -e /dev/shm/yk-sim-probe ]] && fail "/dev/shm of a node is the host's" || pass "/dev/shm is private to the node"
[[ "$("$Y" sim exec n2 --name "$NAME" -- ls /dev/shm)" == "" ]] && pass "/dev/shm not shared between nodes" \
    || fail "/dev/shm shared between nodes"

# probe FROM ADDRESS: "reachable" (connection refused: the peer's kernel answered) or "unreachable"
probe() {
    local out
    out=$(timeout 8 "$Y" sim exec "$1" --name "$NAME" -- bash -c "exec 3<>/dev/tcp/$2/9" 2>&1)
    [[ "$out" == *"Connection refused"* ]] && echo reachable || echo unreachable
}
[[ $(probe n1 10.213.0.2) == reachable ]] && pass "n1 reaches n2" || fail "n1 does not reach n2"
[[ $(probe n2 "yk$NAME-n1") == reachable ]] && pass "n2 reaches n1 by name" || fail "n2 does not reach n1"
[[ $(probe fe 10.213.0.1) == reachable ]] && pass "the frontend reaches n1" || fail "frontend does not reach n1"

# --- the agent ----------------------------------------------------------------------------------
[[ "$("$DIR/agent" -x -o StrictHostKeyChecking=no -p 22 "yk$NAME-n2" 'echo $(hostname)' '$USER')" == "yk$NAME-n2 root" ]] \
    && pass "agent runs a command like ssh" || fail "agent"
"$DIR/agent" nosuchhost true 2>"$WORK/agent.err"
[[ $? == 255 && "$(cat "$WORK/agent.err")" == *"Could not resolve hostname nosuchhost"* ]] && pass "agent: unknown host" \
    || fail "agent unknown host"

# --- kill a node --------------------------------------------------------------------------------
"$DIR/agent" "yk$NAME-n2" 'sleep 300' </dev/null >/dev/null 2>&1 &
victim=$!
sleep 0.5
out=$("$Y" sim kill n2 --name "$NAME") || fail "sim kill"
[[ "$out" =~ ^killed\ yk$NAME-n2\ \(([0-9]+)\ processes\)$ ]] && ((BASH_REMATCH[1] >= 2)) \
    && pass "kill: $out" || fail "kill output: $out"
wait "$victim" 2>/dev/null
[[ $? == 137 ]] && pass "the process inside n2 was SIGKILLed" || fail "process inside n2 not killed"
[[ "$("$Y" sim kill "yk$NAME-n2" --name "$NAME")" == "yk$NAME-n2 is already down" ]] && pass "kill twice" || fail "kill twice"
"$Y" sim list --name "$NAME" | grep -Eq "^n2 .* down$" && pass "list shows n2 down" || fail "list after kill"
[[ "$(cat "$DIR/hostfile.mpich")" == "yk$NAME-n1:2" ]] && pass "hostfile without the dead node" || fail "hostfile after kill"
"$DIR/agent" "yk$NAME-n2" true 2>"$WORK/agent.err"
[[ $? == 255 && "$(cat "$WORK/agent.err")" == *"No route to host"* ]] && pass "agent: dead node" || fail "agent to dead node"
expect_error 1 "yadokari: node yk$NAME-n2 of cluster $NAME is down (killed with yadokari sim kill)" \
    "$Y" sim exec n2 --name "$NAME" -- true
[[ $(probe n1 10.213.0.2) == unreachable ]] && pass "n2 unreachable from n1" || fail "n2 still reachable"
expect_error 1 "yadokari: cluster $NAME has no node n9 (nodes: yk$NAME-n1, yk$NAME-n2)" "$Y" sim kill n9 --name "$NAME"
expect_error 2 "yadokari: yk$NAME-fe is the frontend, not a node; use yadokari sim down to remove the cluster" \
    "$Y" sim kill fe --name "$NAME"

# --- rebuild: broken, then another shape --------------------------------------------------------
out=$("$Y" sim up --nodes 2 --slots 2 --name "$NAME")
[[ "$out" == *"replaced the existing cluster $NAME: it was broken"* ]] && "$Y" sim list --name "$NAME" --json |
    python3 -c 'import json,sys; c=json.load(sys.stdin)["clusters"][0]; assert all(n["state"]=="up" for n in c["nodes"])' \
    && pass "up rebuilds a broken cluster" || fail "rebuild: $out"
out=$("$Y" sim up --nodes 3 --slots 1 --name "$NAME")
[[ "$out" == *"it had another shape (2 nodes x 2 slots)"* && "$(wc -l <"$DIR/hostfile.openmpi")" == 3 ]] \
    && pass "up with another shape rebuilds" || fail "reshape: $out"
[[ $(probe n3 10.213.0.1) == reachable ]] && pass "n3 reaches n1" || fail "n3 does not reach n1"

# --- link shaping (netem may be missing from the kernel: then a clean refusal) ------------------
if "$Y" sim up --nodes 2 --slots 1 --link "delay 5ms" --name "$NAME" >"$WORK/link.out" 2>"$WORK/link.err"; then
    "$Y" sim exec n1 --name "$NAME" -- tc qdisc show dev eth0 | grep -q "netem.*delay 5ms" && pass "--link netem" \
        || fail "--link: no netem qdisc"
else
    [[ "$(cat "$WORK/link.err")" == "yadokari: --link 'delay 5ms' was refused by tc: "*"(this kernel has no sch_netem; 'rate R' alone works without it)" ]] &&
        ! pgrep -f "^yadokari-sim:$YADOKARI_SIM_DIR/" >/dev/null && [[ ! -e "$DIR" ]] \
        && pass "--link refused cleanly: $(cat "$WORK/link.err")" || fail "--link failure: $(cat "$WORK/link.err")"
fi

# A plain rate needs no netem: a token bucket on every node's eth0.
"$Y" sim up --nodes 2 --slots 1 --link "rate 15mbit" --name "$NAME" >"$WORK/rate.out" 2>&1 || fail "--link rate: $(cat "$WORK/rate.out")"
for n in n1 n2; do
    "$Y" sim exec "$n" --name "$NAME" -- tc qdisc show dev eth0 | grep -q "qdisc tbf .* rate 15Mbit burst 64Kb" \
        && pass "--link 'rate 15mbit' is a token bucket on $n" || fail "--link rate: no tbf on $n"
done
[[ $(probe n2 10.213.0.1) == reachable ]] && pass "shaped n2 reaches n1" || fail "shaped n2 does not reach n1"
out=$("$Y" sim up --nodes 2 --slots 1 --link "rate lots" --name "$NAME" 2>&1)
rc=$?
[[ $rc == 2 && "$out" == "yadokari: --link: 'lots' is not a rate (e.g. 15mbit, 1gbit, 2mbps)" ]] \
    && pass "bad --link rate refused" || fail "bad --link rate: rc=$rc $out"

# --- down ---------------------------------------------------------------------------------------
"$Y" sim up --nodes 1 --name "$NAME" >/dev/null || fail "up before down"
[[ "$("$Y" sim down --name "$NAME")" == "removed cluster $NAME" ]] && pass "down" || fail "down"
pgrep -f "^yadokari-sim:$YADOKARI_SIM_DIR/" >/dev/null && fail "holders left after down" || pass "no holder left"
[[ ! -e "$DIR" ]] && pass "state directory removed" || fail "state directory left"
[[ "$("$Y" sim down --name "$NAME")" == "no cluster $NAME to remove" ]] && pass "down twice" || fail "down twice"
finish
