#!/usr/bin/env bash
# Elk (Fortran, Debian package `elk-lapw`, Open MPI, k-points spread over the ranks): the
# self-consistent ground state of fcc aluminium, a fixed number of loops, checkpointed once loop 4
# has started, stopped, restarted, and compared with an uninterrupted run: stdout and every file Elk
# writes through its Fortran units (INFO.OUT, TOTENERGY.OUT, the eigenvalues and vectors, the
# density and potential in STATE.OUT, ...). Common part and usage: common.sh.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

APP_NAME=elk
APP_CMD=(elk-lapw)
# One OpenMP thread per rank: Elk's own threads are the OpenMP runtime's (README.md here).
APP_ENV=(OMP_NUM_THREADS=1)
loops=20
ckpt_at=4
kill_at=9 # --kill

# The species file comes with the package; the convergence targets are out of reach so that the run
# always makes exactly $loops loops.
app_prepare() {
    cat >"$1/elk.in" <<INPUT
! fcc aluminium, ground state (written for bench/apps/elk.sh)
tasks
  0

sppath
  '/usr/share/elk-lapw/species/'

avec
  0.5  0.5  0.0
  0.5  0.0  0.5
  0.0  0.5  0.5

scale
  7.6

atoms
  1
  'Al.in'
  1
  0.0  0.0  0.0

ngridk
  8  8  8

maxscl
  $loops

epspot
  1.0e-14

epsengy
  1.0e-14
INPUT
}

# The number of the self-consistent loop INFO.OUT shows last (0 before the first).
last_loop() {
    awk '/Loop number :/{n=$(NF-1)} END{print n+0}' "$1/INFO.OUT" 2>/dev/null || echo 0
}

app_progress() { [[ $(last_loop "$1") -ge $ckpt_at ]]; }
app_progress_kill() { [[ $(last_loop "$1") -ge $kill_at ]]; }
app_where() { echo "in self-consistent loop $(last_loop "$1") of $loops"; }

# Only dates and times are dropped: the start date and time, the CPU time after every loop and the
# timings table at the end. In EVECFV.OUT the rows of each eigenvector past nmat(k), which Elk
# allocates but never writes, are zeroed (elk_evecfv_defined.py; README.md here tells why they
# differ): ELK_COMPARE_UNWRITTEN=1 compares them too.
app_filter() {
    case "$1" in
        EVECFV.OUT)
            if [[ ${ELK_COMPARE_UNWRITTEN:-0} == 1 ]]; then
                cat "$2"
            else
                python3 "$(dirname "${BASH_SOURCE[0]}")/elk_evecfv_defined.py" "$2" "$(dirname "$2")/KPOINTS.OUT"
            fi ;;
        INFO.OUT)
            sed -E '/^Timings \(CPU seconds\) :/,/^ total /d' "$2" |
                grep -Ev '^(Date \(YYYY-MM-DD\)|Time \(hh:mm:ss\)|Time \(CPU seconds\)) +:' ;;
        *) cat "$2" ;;
    esac
}

app_main "$@"
