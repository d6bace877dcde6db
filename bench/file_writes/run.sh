#!/usr/bin/env bash
# The memory layer's watch on writes, failure-free cost:
#   run.sh BUILD_DIR [ROUNDS] [CALLS]
# runs build/bench/file_writes ROUNDS times, each round four variants one after the other: without
# the layer, with it preloaded (libyk_memtest.so: the layer alone, no MPI; no checkpoint, so the
# journal is off), with it after one checkpoint (the journal on: every write to an application file
# is watched), and without the layer again (the A/A control: the noise floor of this invocation).
# Prints, per kind of call, the median ns per call of each and the ratios to the first run without
# the layer. The files go to a fresh directory under $TMPDIR.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [ROUNDS] [CALLS]}
rounds=${2:-7}
calls=${3:-100000}
prog=$build/bench/file_writes
layer=$build/checkpoint/memory/tests/libyk_memtest.so
[[ -x $prog && -f $layer ]] || { echo "build file_writes and yk_memtest first" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for ((r = 0; r < rounds; r++)); do
  for variant in without preloaded journal again; do
    work="$out/$variant.$r"
    mkdir "$work"
    case $variant in
      without | again) "$prog" "$calls" "$work" >>"$out/$variant" ;;
      preloaded) LD_PRELOAD=$layer "$prog" "$calls" "$work" >>"$out/$variant" ;;
      journal) YK_MEMTEST_CKPT_AT=1 YK_MEMTEST_CKPT_FILE="$work/image" YK_MEMTEST_CONTINUE=1 \
        LD_PRELOAD=$layer "$prog" "$calls" "$work" >>"$out/$variant" ;;
    esac
    rm -rf "$work"
  done
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print b / a }'; }
median() { awk -v k="$1" '$1 == k { print $2 }' "$2" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '%-15s %10s %10s %10s %10s %10s %10s\n' call "without ns" "layer ns" "journal ns" "again/w" "layer/w" "journal/w"
for kind in write-append pwrite-inplace fprintf; do
  a=$(median "$kind" "$out/without")
  b=$(median "$kind" "$out/preloaded")
  c=$(median "$kind" "$out/journal")
  d=$(median "$kind" "$out/again")
  printf '%-15s %10s %10s %10s %10.2f %10.2f %10.2f\n' "$kind" "$a" "$b" "$c" "$(ratio "$a" "$d")" "$(ratio "$a" "$b")" \
    "$(ratio "$a" "$c")"
done
