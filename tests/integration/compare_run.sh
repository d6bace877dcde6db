#!/usr/bin/env bash
# Run an MPI program natively and under `yadokari run`; pass only if both exit 0 and print
# byte-identical stdout. The examples are deterministic for a fixed rank count, so any
# difference means the shim changed what the program computed or printed.
#
# usage: compare_run.sh --yadokari PATH --flavour openmpi|mpich --np N [--timeout SECONDS]
#                       -- PROGRAM [ARGS...]
# Launchers can be overridden with YADOKARI_MPIRUN_OPENMPI / YADOKARI_MPIEXEC_MPICH.
# KEEP_WORKDIR=1 keeps the outputs (the path is printed) instead of deleting them.
set -u

usage() {
    sed -n '6,9p' "$0" >&2
    exit 2
}

yadokari="" flavour="" np="" limit=120
while [[ $# -gt 0 ]]; do
    case "$1" in
        --yadokari) yadokari="$2"; shift 2 ;;
        --flavour) flavour="$2"; shift 2 ;;
        --np) np="$2"; shift 2 ;;
        --timeout) limit="$2"; shift 2 ;;
        --) shift; break ;;
        *) usage ;;
    esac
done
[[ -n "$yadokari" && -n "$flavour" && -n "$np" && $# -ge 1 ]] || usage
program=("$@")

case "$flavour" in
    openmpi) native=("${YADOKARI_MPIRUN_OPENMPI:-mpirun.openmpi}" --allow-run-as-root --oversubscribe -n "$np") ;;
    mpich) native=("${YADOKARI_MPIEXEC_MPICH:-mpiexec.mpich}" -n "$np") ;;
    *) echo "compare_run: unknown flavour '$flavour'" >&2; exit 2 ;;
esac
[[ -x "$yadokari" ]] || { echo "compare_run: no yadokari CLI at $yadokari" >&2; exit 2; }
[[ -x "${program[0]}" ]] || { echo "compare_run: no program at ${program[0]}" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/yk-compare.XXXXXX")
if [[ "${KEEP_WORKDIR:-0}" == 1 ]]; then
    echo "compare_run: outputs kept in $work"
else
    trap 'rm -rf "$work"' EXIT
fi

# The watchdog matters: a broken shim typically hangs (e.g. a lost message), and MPICH can hang
# in MPI_Finalize on its own; --kill-after catches launchers that ignore SIGTERM.
run() { # run NAME CMD...: stdout/stderr to $work/NAME.{out,err}, prints the exit code
    local name="$1"; shift
    timeout --kill-after=10 "$limit" "$@" >"$work/$name.out" 2>"$work/$name.err" </dev/null
    echo $?
}
describe() { # describe CODE
    case "$1" in
        0) echo "exit 0" ;;
        124|137) echo "TIMED OUT after ${limit}s (code $1)" ;;
        *) echo "exit $1" ;;
    esac
}

rc_native=$(run native "${native[@]}" "${program[@]}")
rc_shim=$(run shim "$yadokari" run -n "$np" --mpi "$flavour" -- "${program[@]}")

status=0
if [[ "$rc_native" != 0 ]]; then
    echo "FAIL native run: $(describe "$rc_native"): ${native[*]} ${program[*]}"
    status=1
fi
if [[ "$rc_shim" != 0 ]]; then
    echo "FAIL yadokari run: $(describe "$rc_shim"): $yadokari run -n $np --mpi $flavour -- ${program[*]}"
    status=1
fi
if [[ ! -s "$work/native.out" ]]; then
    echo "FAIL native run printed nothing on stdout"
    status=1
fi
if ! cmp -s "$work/native.out" "$work/shim.out"; then
    echo "FAIL stdout differs (--- native, +++ yadokari):"
    diff -u --label native --label yadokari "$work/native.out" "$work/shim.out" | head -n 200
    status=1
fi

if [[ $status != 0 ]]; then
    for name in native shim; do
        if [[ -s "$work/$name.err" ]]; then
            echo "---- stderr of $name run (last 40 lines) ----"
            tail -n 40 "$work/$name.err"
        fi
    done
    exit 1
fi
echo "PASS $(basename "${program[0]}") $flavour np=$np: $(wc -l <"$work/native.out") identical lines"
