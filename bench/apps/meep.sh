#!/usr/bin/env bash
# Meep (Python, Debian package `python3-meep-openmpi`, Open MPI, the cell split into one chunk per
# rank): a continuous wave in a dielectric waveguide, 400 time units, checkpointed once the field
# probe is past time 20, stopped, restarted, and compared with an uninterrupted run: stdout, the
# probe's field values, the field and dielectric arrays saved with numpy and the transmitted flux.
# Common part and usage: common.sh.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

APP_NAME=meep
# Debian's interpreter: another python3 earlier on PATH may not see Debian's modules.
APP_CMD=(/usr/bin/python3 waveguide.py)
APP_ENV=()
until_time=400
ckpt_after=20
kill_after=240 # --kill

# The script uses Meep's documented Python interface only. Its arrays are gathered with
# Simulation.get_array and saved by rank 0 with numpy, not with Meep's own HDF5 output: that goes
# through parallel HDF5 and MPI-IO, which yadokari does not support (pmpi-layer/README.md).
app_prepare() {
    cat >"$1/waveguide.py" <<INPUT
# A dielectric waveguide driven by a continuous source (written for bench/apps/meep.sh).
import meep as mp
import numpy as np

cell = mp.Vector3(16, 8, 0)
geometry = [mp.Block(mp.Vector3(mp.inf, 1, mp.inf), center=mp.Vector3(), material=mp.Medium(epsilon=12))]
sources = [mp.Source(mp.ContinuousSource(frequency=0.15), component=mp.Ez, center=mp.Vector3(-7, 0))]
sim = mp.Simulation(cell_size=cell, boundary_layers=[mp.PML(1.0)], geometry=geometry,
                    sources=sources, resolution=20)
flux = sim.add_flux(0.15, 0, 1, mp.FluxRegion(center=mp.Vector3(6, 0), size=mp.Vector3(0, 4)))
master = mp.am_master()
probe = open("probe.txt", "w") if master else None


def record(sim):
    ez = sim.get_field_point(mp.Ez, mp.Vector3(4, 0))
    if master:
        probe.write("%.2f %.17g\n" % (sim.meep_time(), ez.real))
        probe.flush()


def snapshot(sim):
    ez = sim.get_array(component=mp.Ez, center=mp.Vector3(), size=cell)
    if master:
        np.save("ez-%06.2f.npy" % sim.meep_time(), ez)


def save_eps(sim):
    eps = sim.get_array(component=mp.Dielectric, center=mp.Vector3(), size=cell)
    if master:
        np.save("eps.npy", eps)


sim.run(mp.at_beginning(save_eps), mp.at_every(1, record), mp.at_every(50, snapshot), until=$until_time)
transmitted = mp.get_fluxes(flux)[0]
ez = sim.get_field_point(mp.Ez, mp.Vector3(4, 0))
if master:
    print("flux at x=6: %.17g" % transmitted)
    print("Ez at (4,0): %.17g" % ez.real)
INPUT
}

# The time of the last probe line (0 before the first).
last_time() {
    awk '{t=$1} END{printf "%d\n", t}' "$1/probe.txt" 2>/dev/null || echo 0
}

app_progress() { [[ $(last_time "$1") -ge $ckpt_after ]]; }
app_progress_kill() { [[ $(last_time "$1") -ge $kill_after ]]; }
app_where() { echo "at simulated time $(last_time "$1") of $until_time"; }

# Only what the wall clock decides is dropped from stdout: the setup times, Meep's progress lines
# (printed every few seconds of wall-clock time, so their number and content are the clock's) and
# the elapsed run time.
app_filter() {
    case "$1" in
        stdout)
            grep -Ev -e '^[0-9]+:time for [a-z_]+ = [0-9.e+-]+ s$' \
                -e '^[0-9]+:(Meep progress: |on time step [0-9]+ \(time=|Elapsed run time = )' "$2" ;;
        *) cat "$2" ;;
    esac
}

app_main "$@"
