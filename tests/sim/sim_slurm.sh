#!/usr/bin/env bash
# yadokari sim up --slurm: a real Slurm (Debian's packages) on a 3-node simulated cluster. sbatch of
# `srun hostname` over the 3 nodes, a killed node goes DOWN in Slurm, an added node joins the
# partition, and `sim down` leaves no daemon, mount or file. usage: sim_slurm.sh YADOKARI
Y="$1"
for tool in munged slurmctld slurmd sbatch; do
    command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed (ci/install-deps.sh installs Slurm)"; exit 77; }
done
source "$(dirname "$0")/sim_common.sh"

in_fe() { timeout 120 "$Y" sim exec fe --name "$NAME" -- "$@"; }
# This cluster's daemons that are still alive (not zombies): their command lines name its directory.
our_daemons() { ps -eo stat=,pid=,args= | awk '$1 !~ /^Z/' | grep -F "$DIR/slurm" | grep -v grep; }
# node_state HOST: Slurm's state of the node (e.g. IDLE, DOWN+NOT_RESPONDING).
node_state() { in_fe scontrol show node "$1" -o | sed -n 's/.* State=\([^ ]*\) .*/\1/p'; }
node_is_down() { [[ "$(node_state "$1")" == DOWN* ]]; }

"$Y" sim up --nodes 3 --slots 2 --slurm --name "$NAME" >"$WORK/up.out" 2>&1 \
    && grep -q "^cluster $NAME: 3 nodes x 2 slots, Slurm," "$WORK/up.out" && pass "sim up --slurm" \
    || { fail "sim up --slurm: $(cat "$WORK/up.out")"; finish; }
mounts_before=$(findmnt -n -o TARGET /etc/slurm)
[[ -z "$mounts_before" ]] && pass "/etc/slurm of the host untouched" || fail "/etc/slurm mounted on the host: $mounts_before"

# sim up waited for the nodes: they are idle with their slots as CPUs, no SLURM_CONF needed.
sinfo_out=$(env -u SLURM_CONF timeout 60 "$Y" sim exec fe --name "$NAME" -- sinfo -h -N -o '%N %T %c %P')
expected="yk$NAME-n1 idle 2 main*"$'\n'"yk$NAME-n2 idle 2 main*"$'\n'"yk$NAME-n3 idle 2 main*"
[[ "$sinfo_out" == "$expected" ]] && pass "three idle nodes with 2 CPUs each" || fail "sinfo: $sinfo_out"

# --- sbatch of srun hostname over the 3 nodes -----------------------------------------------------
printf '#!/bin/bash\nsrun hostname\n' >"$WORK/hostnames.sh"
in_fe sbatch --wait -N 3 -n 3 --chdir "$WORK" -o "$WORK/hostnames.out" "$WORK/hostnames.sh" >"$WORK/sbatch.out" 2>&1 \
    && pass "sbatch --wait: $(cat "$WORK/sbatch.out")" || fail "sbatch --wait: $(cat "$WORK/sbatch.out")"
got=$(sort "$WORK/hostnames.out" 2>/dev/null)
[[ "$got" == "yk$NAME-n1"$'\n'"yk$NAME-n2"$'\n'"yk$NAME-n3" ]] && pass "srun hostname ran on the 3 nodes" \
    || fail "srun hostname printed: $got"

# --- a killed node goes DOWN -----------------------------------------------------------------------
"$Y" sim kill n2 --name "$NAME" >/dev/null || fail "sim kill n2"
killed_at=$SECONDS
wait_for_down() { # up to 60 s (SlurmdTimeout is 5 s; DOWN came after about 16 s here, docs/platform.md §6)
    for _ in $(seq 300); do
        node_is_down "yk$NAME-n2" && return 0
        sleep 0.2
    done
    return 1
}
wait_for_down && pass "killed n2 is $(node_state "yk$NAME-n2") in Slurm (after about $((SECONDS - killed_at)) s)" \
    || fail "n2 not DOWN in Slurm within 60 s: $(in_fe scontrol show node "yk$NAME-n2" -o)"

# --- an added node joins the partition --------------------------------------------------------------
"$Y" sim add --name "$NAME" >"$WORK/add.out" 2>&1 || fail "sim add: $(cat "$WORK/add.out")"
state=$(node_state "yk$NAME-n4")  # IDLE+DYNAMIC_NORM: a dynamic node (slurmd -Z)
[[ "$state" == IDLE* ]] && pass "added n4 is $state" || fail "n4: $(in_fe scontrol show node "yk$NAME-n4" -o)"
got=$(in_fe srun -N 3 -n 3 hostname 2>&1 | sort)
[[ "$got" == "yk$NAME-n1"$'\n'"yk$NAME-n3"$'\n'"yk$NAME-n4" ]] && pass "srun over the live nodes n1, n3, n4" \
    || fail "srun -N 3 after the loss and the join: $got"

# --- down: no daemon, mount or file is left ------------------------------------------------------------
"$Y" sim down --name "$NAME" >/dev/null || fail "sim down"
for _ in $(seq 100); do
    [[ -z "$(our_daemons)" ]] && break
    sleep 0.1
done
[[ -z "$(our_daemons)" ]] && pass "no Slurm daemon left" || fail "daemons left after sim down: $(our_daemons)"
[[ -z "$(findmnt -n -o TARGET /etc/slurm)" ]] && pass "no mount left on the host" || fail "/etc/slurm still mounted"
[[ ! -e "$DIR" ]] && pass "state directory removed" || fail "state directory left: $(ls -R "$DIR" | head)"
finish
