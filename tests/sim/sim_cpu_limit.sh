#!/usr/bin/env bash
# Per-node CPU limits (`sim up --cpu-per-slot F`): each node's CPU cgroup has a quota of slots x F
# CPUs (also for a node added later with other slots, or with its own F: `sim add --cpu-per-slot`),
# what the launch agent starts on a node runs in that node's cgroup, bad values are refused, and
# `sim down` removes the cgroups.
# usage: sim_cpu_limit.sh YADOKARI
Y="$1"
source "$(dirname "$0")/sim_common.sh"

out=$("$Y" sim up --nodes 1 --slots 2 --cpu-per-slot -1 --name "$NAME" 2>&1)
code=$?
[[ $code == 2 && "$out" == "yadokari: --cpu-per-slot must be a number of CPUs from 0 (no limit) to 64" ]] \
    && pass "negative --cpu-per-slot refused" || fail "negative --cpu-per-slot: exit $code, '$out'"

"$Y" sim up --nodes 2 --slots 2 --cpu-per-slot 0.25 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
"$Y" sim add --slots 3 --name "$NAME" >/dev/null || fail "sim add"
out=$("$Y" sim add --cpu-per-slot 100 --name "$NAME" 2>&1)
code=$?
[[ $code == 2 && "$out" == "yadokari: --cpu-per-slot must be a number of CPUs from 0 (no limit) to 64" ]] \
    && pass "sim add refuses a bad --cpu-per-slot" || fail "sim add --cpu-per-slot 100: exit $code, '$out'"
# A node of its own speed: 1 slot x 0.1 CPU, whatever the cluster's limit.
out=$("$Y" sim add --slots 1 --cpu-per-slot 0.1 --name "$NAME") && [[ "$out" == *", 1 slots, 0.1 CPU per slot)" ]] \
    && pass "sim add --cpu-per-slot" || fail "sim add --cpu-per-slot 0.1: $out"
"$Y" sim list --name "$NAME" | grep -Eq "^n4 .* up  \(0.1 CPU per slot\)$" && pass "sim list shows n4's own limit" \
    || fail "sim list: $("$Y" sim list --name "$NAME")"
"$Y" sim list --name "$NAME" | head -n 1 | grep -q ", 0.25 CPU per slot," && pass "sim list shows the limit" \
    || fail "sim list: $("$Y" sim list --name "$NAME" | head -n 1)"
for node in n1 n2 n3 n4; do
    cgroup=$(grep -o "cgroup='[^']*/$node'" "$DIR/agent" | cut -d"'" -f2)
    [[ -n "$cgroup" ]] || { fail "no cgroup for $node in the launch agent"; continue; }
    if [[ -f "$cgroup/cpu.cfs_quota_us" ]]; then
        quota=$(cat "$cgroup/cpu.cfs_quota_us")/$(cat "$cgroup/cpu.cfs_period_us")
    else
        quota=$(awk '{print $1 "/" $2}' "$cgroup/cpu.max")
    fi
    expected=50000/100000
    [[ $node == n3 ]] && expected=75000/100000
    [[ $node == n4 ]] && expected=10000/100000
    [[ "$quota" == "$expected" ]] && pass "$node: quota $quota" || fail "$node: quota $quota, expected $expected"
    inside=$("$DIR/agent" "yk$NAME-$node" cat /proc/self/cgroup)
    grep -q "${cgroup#/sys/fs/cgroup/cpu}\$\|${cgroup#/sys/fs/cgroup}\$" <<<"$inside" \
        && pass "$node: a command started through the launch agent runs in its cgroup" \
        || fail "$node: /proc/self/cgroup inside: $inside"
    cgroups+=("$cgroup")
done
"$Y" sim down --name "$NAME" >/dev/null || fail "sim down"
left=0
for cgroup in "${cgroups[@]}"; do [[ -e "$cgroup" ]] && left=1; done
((left == 0)) && pass "sim down removed the cgroups" || fail "cgroups left: ${cgroups[*]}"
finish
