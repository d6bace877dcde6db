#!/usr/bin/env bash
# Which transport each MPI picks on a simulated cluster, from the libraries' own logs: 2 ranks on
# one node must use shared memory, one rank on each of two nodes TCP over the cluster's network.
#   Open MPI: --mca btl_base_verbose 100 -> "Using vader btl ..." / "Using tcp btl ..."
#   MPICH:    UCX_LOG_LEVEL=info         -> "tag(sysv/memory cma/memory)" / "tag(tcp/eth0)"
# usage: sim_transport.sh YADOKARI openmpi|mpich PINGPONG
Y="$1" FLAVOUR="$2" APP="$3"
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 2 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
eval "$("$Y" sim env --mpi "$FLAVOUR" --name "$NAME" --job-dir "$WORK")" || { fail "sim env"; finish; }
cd "$WORK"

# run NAME ARGS...: the launcher inside the frontend; MPICH may hang in MPI_Finalize over TCP
# (docs/platform.md §1), so a watchdog, and the verdict comes from the transport lines.
run() {
    local name="$1"
    shift
    if [[ "$FLAVOUR" == openmpi ]]; then
        timeout --kill-after=5 60 $sim_launch mpirun.openmpi $sim_launcher_args --mca btl_base_verbose 100 "$@" \
            "$APP" 200 4096 >"$name.out" 2>"$name.err"
    else
        UCX_LOG_LEVEL=info timeout --kill-after=5 60 $sim_launch mpiexec.mpich $sim_launcher_args "$@" \
            "$APP" 200 4096 >"$name.out" 2>"$name.err"
    fi
    echo "exit code $?" >>"$name.out"
}

if [[ "$FLAVOUR" == openmpi ]]; then
    run same -n 2 --map-by slot
    run split -n 2 --map-by node
    shm='Using vader btl for send to .* on node yk'"$NAME"'-n1'
    tcp='Using tcp btl for send to .* on node yk'"$NAME"'-n[12]'
else
    run same -n 2
    run split -n 2 -ppn 1
    shm='ep_cfg\[[0-9]+\]: tag\(sysv/memory cma/memory\)'
    tcp='ep_cfg\[[0-9]+\]: tag\(tcp/eth0\)'
fi
grep -q "pingpong ok: .* between yk$NAME-n1 and yk$NAME-n1" same.out && pass "one node: both ranks on n1" \
    || fail "one node: $(cat same.out same.err | tail -5)"
# UCX logs on stdout, Open MPI on stderr: look at both.
cat same.out same.err >same.log
cat split.out split.err >split.log
grep -Eq "$shm" same.log && pass "one node: shared memory ($(grep -Eo "$shm" same.log | head -1))" \
    || fail "one node: no shared-memory line"
grep -Eq "$tcp" same.log && fail "one node: TCP between ranks of one node" || pass "one node: no TCP"
if grep -q "pingpong ok: .* between yk$NAME-n1 and yk$NAME-n2" split.out; then
    pass "two nodes: ranks on n1 and n2"
else
    fail "two nodes: $(cat split.out split.err | tail -5)"
fi
grep -Eq "$tcp" split.log && pass "two nodes: TCP ($(grep -Eo "$tcp" split.log | head -1))" \
    || fail "two nodes: no TCP line"
grep -Eq "$shm" split.log && fail "two nodes: shared memory between nodes" || pass "two nodes: no shared memory"
ls -A "$WORK" | grep -Ev '^(same|split)\.(out|err|log)$' | grep -q . && fail "files left in the job directory: $(ls -A)" \
    || pass "job directory clean"
finish
