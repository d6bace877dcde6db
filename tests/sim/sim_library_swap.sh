#!/usr/bin/env bash
# Swaps of the MPI library across simulated nodes (pmpi-layer/src/shim/library_swap.cpp; the
# one-node cases are pmpi-layer/tests/run_swap_case.sh): 2 ranks, one on n1 and one on n2 (TCP
# between them), run `PROGRAM swap 2` under the shim. At each swap every rank finalizes and waits
# for a stand-in; the launch is killed, the kept processes' node daemons first (Open MPI's orted
# and MPICH's proxy would take their ranks with them once their launcher is gone); the next launch
# starts the program under the shim with both ranks listed as kept, and each stands in for its
# rank. The launches' lines together are a native run's, every rank is the same process throughout,
# and the last launch exits 0 (MPICH's finalize over TCP in a copy included).
# usage: sim_library_swap.sh YADOKARI openmpi|mpich SHIM PROGRAM
Y="$1" FLAVOUR="$2" SHIM="$3" APP="$4"
source "$(dirname "$0")/sim_common.sh"
unset YADOKARI_FAULT_HOLD_FINALIZE  # these launches have no front end to release them
SWAPS=2

"$Y" sim up --nodes 2 --slots 2 --name "$NAME" >/dev/null || { fail "sim up"; finish; }
eval "$("$Y" sim env --mpi "$FLAVOUR" --name "$NAME" --job-dir "$WORK")" || { fail "sim env"; finish; }
cd "$WORK" || exit 1
mkdir -p swap && chmod 755 "$WORK" swap

# launch OUT ENV... : one rank per node, in the background; the launcher's pid in $launcher.
launcher=""
launch() {
    local out=$1 envs=() forward=()
    shift
    for e in "$@"; do envs+=("$e"); done
    if [[ "$FLAVOUR" == openmpi ]]; then
        # NAME=VALUE to mpirun itself: exported here, the shim would be preloaded into every
        # command this script runs afterwards (ps, pgrep, ...).
        for e in "${envs[@]}"; do forward+=(-x "$e"); done
        $sim_launch mpirun.openmpi $sim_launcher_args -n 2 --map-by node "${forward[@]}" "$APP" swap "$SWAPS" \
            >"$out.out" 2>"$out.err" &
    else
        for e in "${envs[@]}"; do forward+=(-genv "${e%%=*}" "${e#*=}"); done
        $sim_launch mpiexec.mpich $sim_launcher_args -n 2 -ppn 1 "${forward[@]}" "$APP" swap "$SWAPS" \
            >"$out.out" 2>"$out.err" &
    fi
    launcher=$!
}
descendants() { local c; for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done; }
# Waits up to S seconds for the launcher to end; its exit status, or 124.
ended_within() {
    local s=$1
    for _ in $(seq $((s * 10))); do kill -0 "$launcher" 2>/dev/null || { wait "$launcher"; return; }; sleep 0.1; done
    return 124
}

launch native NONE=1
ended_within 120 || fail "the native run failed or did not end"
launch launch-0 "LD_PRELOAD=$SHIM" "YADOKARI_SWAP_DIR=$WORK/swap"
for s in $(seq "$SWAPS"); do
    for _ in $(seq 600); do
        (($(ls swap/rank-*.pid 2>/dev/null | wc -l) == 2)) && break
        kill -0 "$launcher" 2>/dev/null || break
        sleep 0.1
    done
    if (($(ls swap/rank-*.pid 2>/dev/null | wc -l) != 2)); then
        fail "launch $((s - 1)): the ranks did not wait for a stand-in"
        for f in launch-*.out launch-*.err; do echo "--- $f"; tail -20 "$f"; done
        finish
    fi
    cat swap/rank-*.pid | sort >"kept-$s.pids"
    # The node daemons above the launch's ranks first (the kept processes at the first swap, the
    # stand-ins later), then the rest of the launch, launcher last: a daemon that sees its launcher
    # gone, or a stand-in die, signals the ranks it started, and a stand-in passes that on. Open
    # MPI's orted daemonizes: it is not below the launcher.
    for pid in $(pgrep -x "$(basename "$APP" | cut -c1-15)"); do
        grep -qzx "YADOKARI_SWAP_DIR=$WORK/swap" "/proc/$pid/environ" 2>/dev/null || continue
        parent=$(ps -o ppid= -p "$pid" | tr -d ' ')
        [[ $(ps -o comm= -p "$parent") =~ ^(orted|hydra_pmi_proxy)$ ]] && kill -9 "$parent"
    done
    # shellcheck disable=SC2046
    kill -9 $(descendants "$launcher" | grep -vxF -f "kept-$s.pids") "$launcher" 2>/dev/null
    wait "$launcher" 2>/dev/null
    while read -r pid; do kill -0 "$pid" 2>/dev/null || fail "kept process $pid died with launch $((s - 1))"; done <"kept-$s.pids"
    ((s > 1)) && ! diff -q kept-1.pids "kept-$s.pids" >/dev/null && fail "other processes at swap $s"
    rm swap/rank-*.pid
    launch "launch-$s" "LD_PRELOAD=$SHIM" "YADOKARI_SWAP_DIR=$WORK/swap" "YADOKARI_KEPT_RANKS=0,1"
done
ended_within 120
rc=$?
((rc == 0)) && pass "the last launch (stand-ins for both ranks) exited 0" || fail "the last launch exited $rc"
grep -q "^round $((SWAPS + 1)) rank 0:" "launch-$SWAPS.out" && grep -q "^round $((SWAPS + 1)) rank 1:" "launch-$SWAPS.out" \
    && pass "both kept processes ran the last round in the last launch" || fail "the last round is not in the last launch"
grep -q "the same process as in round 1: no" launch-*.out && fail "a rank is not the same process"
sort native.out >native.sorted
cat launch-*.out | sort >swapped.sorted
diff -u native.sorted swapped.sorted && pass "the launches' lines together are the native run's" \
    || fail "output differs from the native run"
for f in launch-*.err; do [[ -s $f ]] && { echo "--- $f"; head -20 "$f"; }; done
for f in kept-*.pids; do xargs kill -9 <"$f" 2>/dev/null; done
finish
