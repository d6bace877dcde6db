#!/usr/bin/env bash
# Optional comparison: the same NPB binaries under DMTCP (dmtcp_launch) — checkpoint time and image size.
#
#   DMTCP_ROOT=/opt/dmtcp bench/dmtcp/npb_dmtcp.sh --npb-dir DIR [--mpi openmpi|mpich] [--kernels "cg mg"]
#                                                [--classes A] [--np 4] [--interval S] [--out FILE]
#
# Without DMTCP_ROOT it prints one line and exits 0 (DMTCP is not packaged for Debian 12 and is not a
# dependency). With it: for each kernel.class, one 'dmtcp_launch --interval S mpirun ...' run under a
# private coordinator; afterwards the ckpt_*.dmtcp images are counted and measured, and one JSON line
# (mode "dmtcp", same fields as bench/npb.sh: npb_seconds, wall_seconds, epochs, image_bytes_per_rank)
# is appended to --out (default ./npb-dmtcp.jsonl), so bench/report can read it next to npb.sh's records.
set -uo pipefail
prog=npb_dmtcp.sh
if [[ -z "${DMTCP_ROOT:-}" ]]; then
  echo "bench: DMTCP_ROOT not set; skipping the DMTCP comparison"
  exit 0
fi
here=$(cd "$(dirname "$0")/.." && pwd)
npb_dir=${NPB_DIR:-}; mpi=openmpi; kernels="cg mg"; classes="A"; np=4; interval=10; out="$PWD/npb-dmtcp.jsonl"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --npb-dir) npb_dir=$2; shift 2 ;; --mpi) mpi=$2; shift 2 ;; --kernels) kernels=$2; shift 2 ;;
    --classes) classes=$2; shift 2 ;; --np) np=$2; shift 2 ;; --interval) interval=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "$prog: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -n "$npb_dir" ]] || { echo "$prog: --npb-dir is required" >&2; exit 2; }
launch="$DMTCP_ROOT/bin/dmtcp_launch"
[[ -x "$launch" ]] || { echo "$prog: $launch not found" >&2; exit 2; }
bindir=$npb_dir; [[ -d "$npb_dir/npb-build" ]] && bindir="$npb_dir/npb-build"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rc_all=0
for k in $kernels; do
  for c in $classes; do
    bin="$bindir/$mpi/bin/$k.$c.$np"
    work=$(mktemp -d); log="$work/out.log"
    if [[ $mpi == openmpi ]]; then cmd=(mpirun.openmpi --oversubscribe -n "$np" "$bin"); else cmd=(mpiexec.mpich -n "$np" "$bin"); fi
    t0=$(date +%s.%N)
    (cd "$work" && timeout -k 10 1200 "$launch" --new-coordinator --coord-port 0 --ckptdir "$work" \
       --interval "$interval" "${cmd[@]}") >"$log" 2>&1
    rc=$?
    wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
    mapfile -t imgs < <(find "$work" -maxdepth 1 -name 'ckpt_*.dmtcp' | sort)
    sizes=$(for f in "${imgs[@]}"; do stat -c %s "$f"; done | paste -sd, -)
    st=ok; (( rc == 0 )) || st="EXIT-$rc"
    rec=$(python3 "$here/npb_parse.py" --log "$log" --set "kernel=$k" --set "class=$c" --set "mpi=$mpi" \
      --set mode=dmtcp --set placement=local --set "status=$st" --num "ranks=$np" --num "rep=0" \
      --num "wall_seconds=$wall" --num "interval=$interval" --num "exit_code=$rc")
    python3 -c 'import json,sys; r=json.loads(sys.argv[1]); s=[int(x) for x in sys.argv[2].split(",") if x]
r["image_bytes_per_rank"]=s or None; r["image_bytes_total"]=sum(s) if s else None; print(json.dumps(r))' \
      "$rec" "$sizes" >>"$out"
    echo "$prog: $mpi $k.$c $st wall ${wall}s images ${#imgs[@]}" >&2
    [[ $st == ok ]] || rc_all=1
    rm -rf "$work"
  done
done
exit "$rc_all"
