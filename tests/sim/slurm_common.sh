# Sourced by the tests of jobs under a real Slurm on the simulated nodes (sim up --slurm): skipped
# (77) without Slurm's programs, else sim_common.sh, a cluster of 3 nodes x 2 slots running Slurm,
# the test's work directory as the current one and h, the nodes' hostname prefix ($h-n1).
# Needs: $Y (the yadokari CLI).
for tool in munged slurmctld slurmd sbatch; do
    command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed (ci/install-deps.sh installs Slurm)"; exit 77; }
done
source "$(dirname "${BASH_SOURCE[0]}")/sim_common.sh"

"$Y" sim up --nodes 3 --slots 2 --slurm --name "$NAME" >"$WORK/up.out" 2>&1 || { fail "sim up --slurm: $(cat "$WORK/up.out")"; finish; }
cd "$WORK" || exit 1
h="yk$NAME"

# write_run_script FILE RUN_OPTIONS... -- PROGRAM [ARGS...]: a batch script that runs `yadokari run
# -n 4 --mpi $FLAVOUR RUN_OPTIONS... -- PROGRAM ARGS...` under a 400 s watchdog, with the launcher
# options the simulated nodes need (they share the host's cores: no binding, docs/platform.md §2).
# The script runs on the allocation's first node with this environment (sbatch's --export=ALL).
write_run_script() {
    local file="$1" mpi_args=""
    shift
    local options=()
    while (($#)) && [[ "$1" != "--" ]]; do options+=("$1"); shift; done
    shift
    if [[ "$FLAVOUR" == openmpi ]]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        mpi_args="--bind-to none"
    fi
    {
        echo '#!/bin/bash'
        printf 'exec timeout -k 5 400 %q run -n 4 --mpi %q --mpi-args %q' "$Y" "$FLAVOUR" "$mpi_args"
        printf ' %q' "${options[@]}" --
        printf ' %q' "$@"
        echo
    } >"$file"
    chmod +x "$file"
}
