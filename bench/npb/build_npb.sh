#!/usr/bin/env bash
# Build the NAS Parallel Benchmarks (NPB 3.4, MPI version) once per MPI flavour.
#
# NPB is third-party code: it is never part of this repository. Point --npb-dir (or NPB_DIR) at an
# unpacked NPB3.4-MPI tree (the directory holding config/make.def.template and sys/setparams.c).
# The tree is left untouched: each flavour is built in its own copy under --out.
#
#   build_npb.sh --npb-dir DIR [--mpi openmpi|mpich|both] [--kernels "bt cg ep ft is lu mg sp"]
#                [--classes "S A"] [--ranks 4] [--out DIR] [--fflags FLAGS] [--cflags FLAGS]
#
# Result: <out>/<flavour>/bin/<kernel>.<class>.<ranks>, build logs in <out>/<flavour>/logs/.
# NPB 3.4 binaries take the process count at run time; the <ranks> suffix records the count the
# binary was checked against (power of two for CG, FT, IS, MG; square for BT, SP).
set -euo pipefail

prog=$(basename "$0")
die() { echo "$prog: error: $*" >&2; exit 2; }
usage() {
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
  exit "${1:-0}"
}

npb_dir=${NPB_DIR:-}
mpi=both
kernels="bt cg ep ft is lu mg sp"
classes="S A"
ranks=4
out=""
fflags="-O2"
cflags="-O2"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --npb-dir) [[ $# -ge 2 ]] || die "--npb-dir needs a value"; npb_dir=$2; shift 2 ;;
    --mpi)     [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    --kernels) [[ $# -ge 2 ]] || die "--kernels needs a value"; kernels=$2; shift 2 ;;
    --classes) [[ $# -ge 2 ]] || die "--classes needs a value"; classes=$2; shift 2 ;;
    --ranks)   [[ $# -ge 2 ]] || die "--ranks needs a value"; ranks=$2; shift 2 ;;
    --out)     [[ $# -ge 2 ]] || die "--out needs a value"; out=$2; shift 2 ;;
    --fflags)  [[ $# -ge 2 ]] || die "--fflags needs a value"; fflags=$2; shift 2 ;;
    --cflags)  [[ $# -ge 2 ]] || die "--cflags needs a value"; cflags=$2; shift 2 ;;
    -h|--help) usage 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

# ---- validate arguments -------------------------------------------------------------------------
[[ -n "$npb_dir" ]] || die "no NPB tree given: pass --npb-dir DIR or set NPB_DIR"
[[ -d "$npb_dir" ]] || die "NPB directory '$npb_dir' does not exist"
npb_dir=$(cd "$npb_dir" && pwd)
for f in config/make.def.template sys/setparams.c sys/make.common Makefile; do
  [[ -f "$npb_dir/$f" ]] || die "'$npb_dir' is not an NPB3.4-MPI tree (missing $f)"
done
grep -q 'VERSION "3.4"' "$npb_dir/sys/setparams.c" ||
  echo "$prog: warning: $npb_dir/sys/setparams.c does not say VERSION \"3.4\"; continuing" >&2

case "$mpi" in
  openmpi|mpich) flavours=("$mpi") ;;
  both) flavours=(openmpi mpich) ;;
  *) die "unknown --mpi '$mpi' (openmpi, mpich or both)" ;;
esac

[[ "$ranks" =~ ^[1-9][0-9]*$ ]] || die "--ranks must be a positive integer, got '$ranks'"
is_pow2() { (( $1 > 0 && ($1 & ($1 - 1)) == 0 )); }
is_square() { local r; r=$(awk -v n="$1" 'BEGIN { r = int(sqrt(n) + 0.5); print r }'); (( r * r == $1 )); }

read -r -a kernel_list <<<"$kernels"
[[ ${#kernel_list[@]} -gt 0 ]] || die "--kernels is empty"
for k in "${kernel_list[@]}"; do
  case "$k" in
    cg|is|mg|ft) is_pow2 "$ranks" || die "kernel $k needs a power-of-two number of ranks, got $ranks" ;;
    bt|sp) is_square "$ranks" || die "kernel $k needs a square number of ranks, got $ranks" ;;
    ep|lu) ;;
    dt) die "kernel dt is not supported by this script (it needs a graph argument)" ;;
    *) die "unknown kernel '$k' (known: bt cg ep ft is lu mg sp)" ;;
  esac
done

read -r -a class_list <<<"$classes"
[[ ${#class_list[@]} -gt 0 ]] || die "--classes is empty"
for c in "${class_list[@]}"; do
  case "$c" in
    S|W|A|B|C|D|E) ;;
    F) for k in "${kernel_list[@]}"; do [[ $k != is ]] || die "class F is not defined for IS"; done ;;
    *) die "unknown class '$c' (S W A B C D E F)" ;;
  esac
done

[[ -n "$out" ]] || out="$(dirname "$npb_dir")/npb-build"
mkdir -p "$out"
out=$(cd "$out" && pwd)
case "$out/" in
  "$npb_dir"/*) die "--out '$out' must not be inside the NPB tree" ;;
esac

for fl in "${flavours[@]}"; do
  for tool in "mpifort.$fl" "mpicc.$fl"; do
    command -v "$tool" >/dev/null || die "$tool not found (is the $fl MPI installed?)"
  done
done
command -v make >/dev/null || die "make not found"

# gfortran >= 10 rejects NPB's mixed-type MPI buffer arguments and its X'..' hex constants
# (common/randi8.f) unless told to allow them. MPICH's wrapper adds both flags itself; Open MPI's doesn't.
fortran_extra=""
# Captured, not piped into `head | grep -q`: under pipefail the compiler may die of SIGPIPE when
# they stop reading, and the test would then fail by chance.
gf_major=$(mpifort."${flavours[0]}" -dumpversion 2>/dev/null | cut -d. -f1 || true)
gf_banner=$("mpifort.${flavours[0]}" --version 2>/dev/null || true)
if [[ "${gf_banner%%$'\n'*}" == *"GNU Fortran"* ]] &&
   [[ "$gf_major" =~ ^[0-9]+$ ]] && (( gf_major >= 10 )); then
  fortran_extra="-fallow-argument-mismatch -fallow-invalid-boz"
fi

# ---- build ----------------------------------------------------------------------------------------
write_make_def() { # <tree> <flavour>
  cat >"$1/config/make.def" <<EOF
# Generated by yadokari bench/npb/build_npb.sh for MPI flavour '$2'. Do not edit; re-run the script.
MPIFC = mpifort.$2
FLINK = \$(MPIFC)
FMPI_LIB =
FMPI_INC =
FFLAGS = $fflags $fortran_extra
FLINKFLAGS = \$(FFLAGS)
MPICC = mpicc.$2
CLINK = \$(MPICC)
CMPI_LIB =
CMPI_INC =
CFLAGS = $cflags
CLINKFLAGS = \$(CFLAGS)
CC = gcc -g
BINDIR = ../bin
CONVERTFLAG = -DFORTRAN_REC_SIZE=1
RAND = randi8
EOF
}

failures=()
built=()
for fl in "${flavours[@]}"; do
  tree="$out/$fl/src"
  mkdir -p "$out/$fl/bin" "$out/$fl/logs"
  # Fresh copy of the pristine sources for every run (NPB builds in-tree, into its own bin/).
  rm -rf "$tree"
  mkdir -p "$tree"
  (cd "$npb_dir" && tar --exclude='./bin/*' --exclude='*.o' --exclude='*.mod' -cf - .) | (cd "$tree" && tar -xf -)
  mkdir -p "$tree/bin"
  write_make_def "$tree" "$fl"
  echo "== $fl: building in $tree (FFLAGS='$fflags $fortran_extra', CFLAGS='$cflags')"
  for k in "${kernel_list[@]}"; do
    K=${k^^}
    for c in "${class_list[@]}"; do
      log="$out/$fl/logs/$k.$c.log"
      dest="$out/$fl/bin/$k.$c.$ranks"
      rm -f "$dest" "$tree/bin/$k.$c.x"
      printf '  %-8s ' "$k.$c"
      if (cd "$tree/$K" && make clean && cd .. && make "$k" CLASS="$c") >"$log" 2>&1 &&
         [[ -x "$tree/bin/$k.$c.x" ]]; then
        cp "$tree/bin/$k.$c.x" "$dest"
        built+=("$fl/bin/$k.$c.$ranks")
        echo "ok   -> $dest"
      else
        failures+=("$fl $k.$c (log: $log)")
        echo "FAILED (log: $log)"
        tail -n 15 "$log" | sed 's/^/      | /'
      fi
    done
  done
done

echo
echo "built ${#built[@]} binaries under $out"
if [[ ${#failures[@]} -gt 0 ]]; then
  echo "$prog: ${#failures[@]} build(s) failed:" >&2
  printf '  %s\n' "${failures[@]}" >&2
  exit 1
fi
