#!/usr/bin/env bash
# DMTCP's own `mtcp_restart --simulate` on images yadokari wrote in DMTCP's layout: an NPB kernel
# run under `yadokari run --image-format dmtcp`, stopped once its first epoch is committed; every
# rank's image of that epoch is listed by DMTCP's tool, and its listing must name exactly the areas
# `yadokari inspect` shows in the DMTCP part (start, end, protection, name, in order) and read the
# image to its end-of-areas record (docs/formats/dmtcp-image.md).
#
#   flock /tmp/yadokari-tests.lock bench/dmtcp/simulate_npb_image.sh --dmtcp DIR --npb-dir DIR
#       [--mpi openmpi|mpich] [--binary cg.A.4] [--np 4] [--interval S] [--build DIR] [--out FILE]
#
# --dmtcp: a DMTCP build or install (bin/mtcp_restart; default $DMTCP_ROOT); --npb-dir: NPB built by
# bench/npb/build_npb.sh (<dir>/<mpi>/bin/<binary>; default $NPB_DIR); --build: tree with bin/yadokari
# (default <repo>/build); --out: where the listings go (default stdout only). The job is held at
# MPI_Finalize until it is stopped, so the epoch comes before the end however fast the kernel is.
# Exit 0 when every rank's listing matches, 1 when one does not, 2 on a usage or setup error.
set -uo pipefail
prog=simulate_npb_image.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
dmtcp=${DMTCP_ROOT:-}; npb_dir=${NPB_DIR:-}; mpi=openmpi; binary=cg.A.4; np=4; interval=0.5
build="$repo/build"; out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dmtcp) [[ $# -ge 2 ]] || die "--dmtcp needs a value"; dmtcp=$2; shift 2 ;;
    --npb-dir) [[ $# -ge 2 ]] || die "--npb-dir needs a value"; npb_dir=$2; shift 2 ;;
    --mpi) [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    --binary) [[ $# -ge 2 ]] || die "--binary needs a value"; binary=$2; shift 2 ;;
    --np) [[ $# -ge 2 ]] || die "--np needs a value"; np=$2; shift 2 ;;
    --interval) [[ $# -ge 2 ]] || die "--interval needs a value"; interval=$2; shift 2 ;;
    --build) [[ $# -ge 2 ]] || die "--build needs a value"; build=$2; shift 2 ;;
    --out) [[ $# -ge 2 ]] || die "--out needs a value"; out=$2; shift 2 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
[[ -n "$dmtcp" ]] || die "--dmtcp (or DMTCP_ROOT) is required"
[[ -n "$npb_dir" ]] || die "--npb-dir (or NPB_DIR) is required"
mtcp_restart="$dmtcp/bin/mtcp_restart"
yadokari="$build/bin/yadokari"
app="$npb_dir/$mpi/bin/$binary"
[[ -x "$mtcp_restart" ]] || die "$mtcp_restart not found"
[[ -x "$yadokari" ]] || die "$yadokari not built"
[[ -x "$app" ]] || die "$app not found"

work=$(mktemp -d "${TMPDIR:-/tmp}/simulate-npb.XXXXXX")
trap 'rm -rf "$work"' EXIT
report() { if [[ -n "$out" ]]; then tee -a "$out"; else cat; fi; }
[[ -n "$out" ]] && : >"$out"

echo "== yadokari run -n $np --mpi $mpi --image-format dmtcp --interval $interval --stop-after-epoch 1 -- $binary" | report
(cd "$work" && env YADOKARI_FAULT_HOLD_FINALIZE="$work/never-created" OMPI_ALLOW_RUN_AS_ROOT=1 \
   OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout -k 10 600 "$yadokari" run -n "$np" --mpi "$mpi" \
   --ckpt-dir "$work/ckpt" --interval "$interval" --stop-after-epoch 1 --image-format dmtcp \
   -- "$app") >"$work/run.log" 2>&1
rc=$?
[[ $rc -eq 75 ]] || { cat "$work/run.log" >&2; die "yadokari run exited $rc, not 75 (stopped after epoch 1)"; }
[[ -f "$work/ckpt/1/MANIFEST" ]] || die "epoch 1 was not committed"

status=0
for image in "$work"/ckpt/1/rank-*.img; do
  name=$(basename "$image")
  {
    echo
    echo "== $name: $(stat -c %s "$image") bytes"
    echo "-- <dmtcp>/bin/mtcp_restart --simulate $name"
  } | report
  (cd "$work" && "$mtcp_restart" --simulate "$image") >"$work/simulate.txt" 2>&1
  sim_rc=$?
  sed "s|$work/ckpt/|<ckpt>/|g" "$work/simulate.txt" | report
  echo "-- exit $sim_rc" | report
  "$yadokari" inspect --json "$image" >"$work/inspect.json" || die "yadokari inspect failed on $name"
  if python3 - "$work/simulate.txt" "$work/inspect.json" <<'PY' | report; then :; else status=1; fi
import json, re, sys
listing = open(sys.argv[1]).read()
image = json.load(open(sys.argv[2]))
# What mtcp_restart prints per area: "%p-%p rwxp Anon          name" (src/mtcp/mtcp_restart.c).
shown = []
after = listing.split("**** Listing ckpt image area:", 1)
for line in (after[1] if len(after) == 2 else "").splitlines():
    m = re.match(r"^(0x[0-9a-f]+|\(nil\))-(0x[0-9a-f]+) ([r-][w-][x-])([ps-]) (Anon|    )\s+(.*)$", line)
    if m:
        start = 0 if m.group(1) == "(nil)" else int(m.group(1), 16)
        shown.append((start, int(m.group(2), 16), m.group(3), m.group(6)))
expected = [(int(a["address"], 16), int(a["address"], 16) + a["length"], a["protection"], a["name"])
            for a in image["areas"] if a["compression"] == "dmtcp part"]
zero_runs = sum(a["zero_pages"] for a in image["areas"] if a["compression"] == "dmtcp part")
ok = shown == expected and "DMTCP: DMTCP_CHECKPOINT_IMAGE_v4.0" in listing
print(f"-- mtcp_restart listed {len(shown)} areas; yadokari inspect lists {len(expected)} in the DMTCP part "
      f"({zero_runs} zero pages in DMTCP zero runs): {'MATCH' if ok else 'MISMATCH'}")
if not ok:
    for a, b in zip(shown + [None] * len(expected), expected + [None] * len(shown)):
        if a != b:
            print(f"   mtcp_restart {a} / yadokari {b}")
sys.exit(0 if ok else 1)
PY
  [[ $sim_rc -eq 0 ]] || status=1
done
echo | report
echo "== $( ((status == 0)) && echo "every rank's image listed by mtcp_restart --simulate as yadokari wrote it" || echo "FAILED")" | report
exit "$status"
