#!/usr/bin/env bash
# LAMMPS (C++, Debian package `lammps`, Open MPI): a Lennard-Jones liquid of 864 atoms for 2000
# steps, checkpointed once the run is past step 400, stopped, restarted, and compared with an
# uninterrupted run: stdout, log.lammps, the trajectory dump (positions and velocities at full
# precision), the final data file and the binary restart file. Common part and usage: common.sh.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

APP_NAME=lammps
APP_CMD=(lmp -in in.lj)
# LAMMPS links libgomp; one thread is also what it picks by itself when this is unset, setting it
# only keeps the "OMP_NUM_THREADS environment is not set" note out of the output.
APP_ENV=(OMP_NUM_THREADS=1)
steps=2000
ckpt_after=400
kill_after=1000 # --kill

app_prepare() {
    cat >"$1/in.lj" <<INPUT
# Lennard-Jones liquid (written for bench/apps/lammps.sh)
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block 0 6 0 6 0 6
create_box      1 box
create_atoms    1 box
mass            1 1.0
velocity        all create 1.44 87287 loop geom
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    every 20 delay 0 check no
fix             1 all nve
thermo          100
thermo_style    custom step temp epair emol etotal press
thermo_modify   flush yes format float %.15g
dump            d all custom 500 dump.lj id type x y z vx vy vz
dump_modify     d sort id format float %.17g
run             $steps
write_data      final.data
write_restart   final.restart
INPUT
}

# The last step of the thermo output in log.lammps (0 before the run starts).
last_step() {
    awk '/^Step /{on=1; next} /^Loop time/{on=0} on && /^ *[0-9]+ /{s=$1} END{print s+0}' "$1/log.lammps" 2>/dev/null || echo 0
}

app_progress() { [[ $(last_step "$1") -ge $ckpt_after ]]; }
app_progress_kill() { [[ $(last_step "$1") -ge $kill_after ]]; }
app_where() { echo "after thermo step $(last_step "$1") of $steps"; }

# Only time measurements are dropped: the CPU time of setup commands (create_atoms), the loop time,
# the performance and CPU-use lines, the per-section timing table and the total wall time.
app_filter() {
    case "$1" in
        stdout | log.lammps)
            grep -Ev -e '^([0-9]+:)? +[a-z_]+ CPU = [0-9.]+ seconds$' \
                -e '^([0-9]+:)?(Loop time of |Performance: |-?[0-9.]+% CPU use |Total wall time: )' \
                -e '^([0-9]+:)?(Section|Pair|Neigh|Comm|Output|Modify|Other) +\|' "$2" ;;
        *) cat "$2" ;;
    esac
}

app_main "$@"
