#!/usr/bin/env bash
# MPICH over UCX's TCP transport under `yadokari run`: MPI_Finalize must return (docs/platform.md
# §1, "MPICH's finalize over TCP"), and what the program does after it must still happen. Runs
# finalize_tail RUNS times with 4 ranks over TCP on loopback; each run must end by itself, exit
# with the program's status 3 and print exactly its three lines (the one before MPI_Finalize, one
# left in stdio's buffer after it, one from an atexit handler). Without the shim's fix about 4 runs
# in 10 hung natively and 1 in 10 under yadokari (docs/platform.md §1): 16 clean runs in a row
# would happen by chance less than one time in five.
#
# usage: finalize_tcp.sh YADOKARI PROGRAM [RUNS]
# KEEP_WORKDIR=1 keeps the outputs (the path is printed); HANG_LIMIT=S sets the watchdog (default 120 s).
set -u

yadokari="$1" program="$2" runs="${3:-16}"
[[ -x "$yadokari" && -x "$program" ]] || { echo "finalize_tcp: usage: $0 YADOKARI PROGRAM [RUNS]" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/yk-finalize.XXXXXX")
if [[ "${KEEP_WORKDIR:-0}" == 1 ]]; then
    echo "finalize_tcp: outputs kept in $work"
else
    trap 'rm -rf "$work"' EXIT
fi
printf 'final 120\nafter MPI_Finalize\natexit handler ran\n' >"$work/expected"

failed=0
for run in $(seq "$runs"); do
    # The watchdog only catches the hang: a run takes a few seconds.
    UCX_TLS=tcp,self UCX_NET_DEVICES=lo timeout --kill-after=10 ${HANG_LIMIT:-120} \
        "$yadokari" run -n 4 --mpi mpich -- "$program" >"$work/$run.out" 2>"$work/$run.err" </dev/null
    code=$?
    if [[ $code == 124 || $code == 137 ]]; then
        echo "FAIL: run $run of $runs did not end (hung in MPI_Finalize?): $(tail -n 2 "$work/$run.err")"
        failed=1
    elif [[ $code != 3 ]]; then
        echo "FAIL: run $run of $runs exited $code, the program's status is 3: $(tail -n 2 "$work/$run.err")"
        failed=1
    elif ! cmp -s "$work/expected" "$work/$run.out"; then
        echo "FAIL: run $run of $runs printed something else:"
        diff "$work/expected" "$work/$run.out"
        failed=1
    fi
done
((failed)) && exit 1
echo "PASS: $runs runs over TCP ended by themselves, with the program's exit status and output"
