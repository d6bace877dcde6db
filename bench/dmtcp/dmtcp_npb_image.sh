#!/usr/bin/env bash
# `yadokari inspect` on real DMTCP images of an NPB kernel: the MPI job run under DMTCP's own
# `dmtcp_launch` (launcher and ranks), checkpointed once with `dmtcp_command --bcheckpoint` while
# it iterates, then stopped. Every image DMTCP wrote is listed by `yadokari inspect`, and its
# mappings must be exactly those DMTCP's own `mtcp_restart --simulate` lists (start, end, in order)
# (docs/formats/dmtcp-image.md).
#
#   flock /tmp/yadokari-tests.lock bench/dmtcp/dmtcp_npb_image.sh --dmtcp DIR --npb-dir DIR
#       [--mpi openmpi|mpich] [--binary cg.A.4] [--np 4] [--rows N] [--build DIR] [--out FILE]
#
# --dmtcp: a DMTCP build or install (bin/dmtcp_launch, dmtcp_command, mtcp_restart; default
# $DMTCP_ROOT); --npb-dir: NPB built by bench/npb/build_npb.sh (<dir>/<mpi>/bin/<binary>; default
# $NPB_DIR); --np 0 starts the binary alone (an MPI singleton) instead of through the MPI launcher;
# --rows: area rows shown per rank image (default 25, 0 = all); --build: tree with bin/yadokari
# (default <repo>/build); --out: where the listings go (default stdout only). Paths in the output are
# shown as <dmtcp>, <npb-dir> and <work>.
#
# Images are written uncompressed (--no-gzip) so that mtcp_restart --simulate, which seeks, reads
# them too. The job runs with HWLOC_COMPONENTS=-linux: with hwloc's Linux backend, Open MPI's
# launcher stops in DMTCP's file plugin (`Unimplemented file type: path=vda`) before the job starts.
# Exit 0 when every image is listed and matches, 1 when one does not, 2 on a usage or setup error
# (DMTCP failing to run or checkpoint the job included: its output is shown).
set -uo pipefail
prog=dmtcp_npb_image.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
dmtcp=${DMTCP_ROOT:-}; npb_dir=${NPB_DIR:-}; mpi=openmpi; binary=cg.A.4; np=4; rows=25
build="$repo/build"; out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dmtcp) [[ $# -ge 2 ]] || die "--dmtcp needs a value"; dmtcp=$2; shift 2 ;;
    --npb-dir) [[ $# -ge 2 ]] || die "--npb-dir needs a value"; npb_dir=$2; shift 2 ;;
    --mpi) [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    --binary) [[ $# -ge 2 ]] || die "--binary needs a value"; binary=$2; shift 2 ;;
    --np) [[ $# -ge 2 ]] || die "--np needs a value"; np=$2; shift 2 ;;
    --rows) [[ $# -ge 2 ]] || die "--rows needs a value"; rows=$2; shift 2 ;;
    --build) [[ $# -ge 2 ]] || die "--build needs a value"; build=$2; shift 2 ;;
    --out) [[ $# -ge 2 ]] || die "--out needs a value"; out=$2; shift 2 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
[[ -n "$dmtcp" ]] || die "--dmtcp (or DMTCP_ROOT) is required"
[[ -n "$npb_dir" ]] || die "--npb-dir (or NPB_DIR) is required"
dmtcp=$(cd "$dmtcp" && pwd) || die "no directory $dmtcp"
npb_dir=$(cd "$npb_dir" && pwd) || die "no directory $npb_dir"
for tool in dmtcp_launch dmtcp_command mtcp_restart; do
  [[ -x "$dmtcp/bin/$tool" ]] || die "$dmtcp/bin/$tool not found"
done
yadokari="$build/bin/yadokari"
app="$npb_dir/$mpi/bin/$binary"
[[ -x "$yadokari" ]] || die "$yadokari not built"
[[ -x "$app" ]] || die "$app not found"
work=$(mktemp -d "${TMPDIR:-/tmp}/dmtcp-npb.XXXXXX")
launcher=""
cleanup() {
  if [[ -s "$work/port" ]]; then "$dmtcp/bin/dmtcp_command" --coord-port "$(cat "$work/port")" --quit >/dev/null 2>&1; fi
  if [[ -n "$launcher" ]]; then kill "$launcher" 2>/dev/null; wait "$launcher" 2>/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT
case "$mpi:$np" in
  *:0) job=("$app") ;;
  # The job is killed once checkpointed: its shared-memory segments go into the work directory,
  # removed with it, instead of being left in /dev/shm.
  openmpi:*) job=(mpirun.openmpi --oversubscribe -n "$np" -x GFORTRAN_UNBUFFERED_PRECONNECTED -x HWLOC_COMPONENTS
                  --mca btl_vader_backing_directory "$work" "$app") ;;
  mpich:*) job=(mpiexec.mpich -n "$np" -genvall "$app") ;;
  *) die "--mpi must be openmpi or mpich" ;;
esac

shown() { sed -e "s|$work|<work>|g" -e "s|$dmtcp|<dmtcp>|g" -e "s|$npb_dir|<npb-dir>|g"; }
report() { if [[ -n "$out" ]]; then shown | tee -a "$out"; else shown; fi; }
[[ -n "$out" ]] && : >"$out"

echo "== dmtcp_launch --new-coordinator --no-gzip ${job[*]}" | report
# The kernel's Fortran output unbuffered: its first lines say it runs, so the checkpoint is taken
# while it iterates, whatever the machine's speed.
(cd "$work" && exec env GFORTRAN_UNBUFFERED_PRECONNECTED=y HWLOC_COMPONENTS=-linux OMPI_ALLOW_RUN_AS_ROOT=1 \
   OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$dmtcp/bin/dmtcp_launch" --new-coordinator --coord-port 0 \
   --port-file "$work/port" --ckptdir "$work" --no-gzip "${job[@]}") >"$work/job.txt" 2>&1 &
launcher=$!
for _ in $(seq 6000); do
  grep -q "Total number of processes" "$work/job.txt" 2>/dev/null && break
  kill -0 "$launcher" 2>/dev/null || break
  sleep 0.05
done
if ! grep -q "Total number of processes" "$work/job.txt"; then
  shown <"$work/job.txt" >&2
  die "the job did not start under DMTCP (its output above)"
fi
timeout 300 "$dmtcp/bin/dmtcp_command" --coord-port "$(cat "$work/port")" --bcheckpoint >"$work/ckpt.txt" 2>&1 ||
  { shown <"$work/ckpt.txt" >&2; shown <"$work/job.txt" >&2; die "dmtcp_command --bcheckpoint failed"; }
"$dmtcp/bin/dmtcp_command" --coord-port "$(cat "$work/port")" --quit >/dev/null 2>&1
wait "$launcher" 2>/dev/null
launcher=""
rm -f "$work/port"
mapfile -t images < <(find "$work" -maxdepth 1 -name 'ckpt_*.dmtcp' | sort)
[[ ${#images[@]} -gt 0 ]] || { shown <"$work/job.txt" >&2; die "DMTCP wrote no image"; }
{
  echo "-- DMTCP wrote ${#images[@]} images:"
  for image in "${images[@]}"; do echo "   $(basename "$image")  $(stat -c %s "$image") bytes"; done
} | report

status=0
for image in "${images[@]}"; do
  name=$(basename "$image")
  echo | report
  echo "== yadokari inspect $name" | report
  if ! "$yadokari" inspect "$image" >"$work/listing.txt" 2>"$work/inspect.err"; then
    shown <"$work/inspect.err" | report
    status=1
    continue
  fi
  # The ranks' images with --rows rows of areas, the launcher's and daemons' without their rows.
  total=$(awk '/^ *#/ { table = 1; next } table' "$work/listing.txt" | wc -l)
  limit=0; [[ "$name" == ckpt_"$binary"_* ]] && limit=$rows
  [[ "$name" == ckpt_"$binary"_* && $rows -eq 0 ]] && limit=$total
  awk -v n="$limit" '/^ *#/ { table = 1; if (n > 0) print; next } !table || ++row <= n' "$work/listing.txt" | report
  ((total > limit)) && echo "   ... $((total - limit)) more rows" | report
  "$yadokari" inspect --json "$image" >"$work/listing.json"
  (cd "$work" && "$dmtcp/bin/mtcp_restart" --simulate "$image") >"$work/simulate.txt" 2>&1
  if python3 - "$work/simulate.txt" "$work/listing.json" "$image" <<'PY' | report; then :; else status=1; fi
import json, os, re, sys
listing = open(sys.argv[1]).read()
image = json.load(open(sys.argv[2]))
# mtcp_restart --simulate prints every record but the children of a parent: "%p-%p rwxp ..." (src/mtcp/mtcp_restart.c)
after = listing.split("**** Listing ckpt image area:", 1)
shown = [tuple(int(x, 16) for x in m.groups())
         for m in (re.match(r"^(0x[0-9a-f]+)-(0x[0-9a-f]+) ", line)
                   for line in (after[1] if len(after) == 2 else "").splitlines()) if m]
mappings = [(int(a["start"], 16), int(a["end"], 16)) for a in image["areas"] if not a["properties"] & 4]
# Uncompressed, the bytes yadokari's reader walked (records and data to the end-of-areas record)
# are the whole file.
whole = image["image_bytes"] == os.path.getsize(sys.argv[3])
ok = shown == mappings and whole
print(f"-- mtcp_restart --simulate lists {len(shown)} mappings, yadokari inspect {len(mappings)} "
      f"({len(image['areas'])} records), {image['image_bytes']} bytes walked of the file's "
      f"{os.path.getsize(sys.argv[3])}: {'MATCH' if ok else 'MISMATCH'}")
for a, b in zip(shown + [None] * len(mappings), mappings + [None] * len(shown)):
    if a != b:
        print(f"   first difference: mtcp_restart {a}, yadokari {b}")
        break
sys.exit(0 if ok else 1)
PY
done
echo | report
echo "== $( ((status == 0)) && echo "every image DMTCP wrote listed by yadokari inspect as mtcp_restart --simulate lists it" || echo "FAILED")" | report
exit "$status"
