#!/usr/bin/env bash
# `yadokari inspect` on an image DMTCP itself wrote: a small serial program checkpointed under
# dmtcp_launch, its image listed, and the listing's "bytes uncompressed" checked against the image's
# real uncompressed length (the reader must have walked every record and every byte of data).
#
#   DMTCP_ROOT=<prefix of a DMTCP install> bench/dmtcp/inspect_dmtcp_image.sh [--build DIR] [--keep DIR]
#
# --build: tree with bin/yadokari (default <repo>/build); --keep: copy the image there.
# Without DMTCP_ROOT it prints one line and exits 0 (DMTCP is not a Debian 12 package).
set -uo pipefail
prog=inspect_dmtcp_image.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
if [[ -z "${DMTCP_ROOT:-}" ]]; then
  echo "bench: DMTCP_ROOT not set; skipping"
  exit 0
fi
repo=$(cd "$(dirname "$0")/../.." && pwd)
build="$repo/build"
keep=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) [[ $# -ge 2 ]] || die "--build needs a value"; build=$2; shift 2 ;;
    --keep) [[ $# -ge 2 ]] || die "--keep needs a value"; keep=$2; shift 2 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
yadokari="$build/bin/yadokari"
[[ -x "$yadokari" ]] || die "$yadokari not built"
for tool in dmtcp_launch dmtcp_command; do
  [[ -x "$DMTCP_ROOT/bin/$tool" ]] || die "$DMTCP_ROOT/bin/$tool not found"
done
work=$(mktemp -d "${TMPDIR:-/tmp}/inspect-dmtcp.XXXXXX")
coordinator=""
cleanup() {
  [[ -n "$coordinator" ]] && "$DMTCP_ROOT/bin/dmtcp_command" --coord-port "$coordinator" --quit >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

# A program with a heap, a large zero-filled array and a file mapping, waiting to be checkpointed.
cat >"$work/sleeper.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static char zeros[8 << 20];
int main(void) {
  char *heap = malloc(4 << 20);
  memset(heap, 7, 4 << 20);
  printf("ready %p %p\n", (void *)heap, (void *)zeros);
  fflush(stdout);
  for (int i = 0; i < 600; i++) sleep(1);
  return heap[1] + zeros[1];
}
C
cc -O1 -o "$work/sleeper" "$work/sleeper.c" || die "cannot compile the test program"
(cd "$work" && exec "$DMTCP_ROOT/bin/dmtcp_launch" --new-coordinator --coord-port 0 --port-file "$work/port" \
   --ckptdir "$work" ./sleeper >"$work/out.txt" 2>&1) &
for _ in $(seq 100); do [[ -s "$work/port" ]] && grep -q ready "$work/out.txt" && break; sleep 0.1; done
coordinator=$(cat "$work/port" 2>/dev/null) || die "dmtcp_launch did not start: $(cat "$work/out.txt")"
"$DMTCP_ROOT/bin/dmtcp_command" --coord-port "$coordinator" --bcheckpoint >/dev/null || die "checkpoint failed"
image=$(find "$work" -maxdepth 1 -name 'ckpt_sleeper_*.dmtcp' | head -n 1)
[[ -n "$image" ]] || die "DMTCP wrote no image"
"$yadokari" inspect "$image" >"$work/listing.txt" || die "yadokari inspect failed"
cat "$work/listing.txt"
listed=$(sed -n 's/^format .*, \([0-9]*\) bytes uncompressed$/\1/p' "$work/listing.txt")
actual=$(gzip -dc -f "$image" | wc -c)
echo "uncompressed bytes: listed $listed, gzip -dc $actual"
[[ -n "$keep" ]] && cp "$image" "$keep/"
[[ "$listed" == "$actual" ]] || { echo "$prog: the listing did not account for every byte" >&2; exit 1; }
