#!/usr/bin/env bash
# An example MPI job on a simulated cluster: 4 ranks over 2 nodes x 2 slots must print exactly
# what a local 4-rank run prints. usage: sim_ring.sh YADOKARI openmpi|mpich PROGRAM [ARGS...]
Y="$1" FLAVOUR="$2"
shift 2
source "$(dirname "$0")/sim_common.sh"

"$Y" sim up --nodes 2 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
eval "$("$Y" sim env --mpi "$FLAVOUR" --name "$NAME" --job-dir "$WORK")" || { fail "sim env"; finish; }
cd "$WORK"
if [[ "$FLAVOUR" == openmpi ]]; then
    local_run=(env -u OMPI_MCA_plm_rsh_agent mpirun.openmpi --oversubscribe --bind-to none -n 4)
    sim_run=($sim_launch mpirun.openmpi $sim_launcher_args -n 4)
    where=(--mca btl_base_verbose 0)
else
    local_run=(mpiexec.mpich -n 4)
    sim_run=($sim_launch mpiexec.mpich $sim_launcher_args -n 4)
    where=()
fi
timeout --kill-after=5 120 "${local_run[@]}" "$@" >local.out 2>local.err </dev/null
[[ $? == 0 ]] && pass "local run" || fail "local run: $(tail -5 local.err)"
# MPICH gets a shorter watchdog: its runs end in seconds, or hang in MPI_Finalize (see below).
[[ "$FLAVOUR" == mpich ]] && watchdog=90 || watchdog=180
timeout --kill-after=5 $watchdog "${sim_run[@]}" "${where[@]}" "$@" >sim.out 2>sim.err </dev/null
code=$?
if [[ $code == 0 ]]; then
    pass "run on the simulated cluster"
elif [[ "$FLAVOUR" == mpich && ($code == 124 || $code == 137) ]] &&
     cmp -s local.out <(without_launcher_banner sim.out); then
    # docs/platform.md §1: MPICH/UCX over TCP can hang in MPI_Finalize; all output was there (the
    # watchdog's kill makes Hydra append its banner to it).
    without_launcher_banner sim.out >sim.trimmed && mv sim.trimmed sim.out
    pass "run on the simulated cluster (hung after its output, killed by the watchdog: MPICH finalize)"
else
    fail "simulated run (exit $code): $(tail -5 sim.err)"
fi
[[ -s local.out ]] && cmp -s local.out sim.out && pass "same output ($(wc -l <sim.out) lines)" \
    || fail "outputs differ: $(diff local.out sim.out | head -5)"
# Where the ranks ran: one process per rank, two on each node (hostname via the agent's shell).
hosts=$(timeout 30 "${sim_run[@]}" hostname </dev/null 2>/dev/null | sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd' ')
[[ "$hosts" == "yk$NAME-n1x2 yk$NAME-n2x2" ]] && pass "ranks placed 2+2: $hosts" || fail "placement: $hosts"
finish
