#!/usr/bin/env bash
# The memory layer's interposition of the application's libc calls, failure-free cost:
#   run.sh BUILD_DIR [ROUNDS] [CALLS]
# runs build/bench/libc_calls ROUNDS times alternately without and with the layer
# (LD_PRELOAD of the memory layer's test driver, libyk_memtest.so: the layer alone, no MPI) and
# prints, per kind of call, the median ns per call of each and their ratio.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [ROUNDS] [CALLS]}
rounds=${2:-7}
calls=${3:-100000}
prog=$build/bench/libc_calls
layer=$build/checkpoint/memory/tests/libyk_memtest.so
[[ -x $prog && -f $layer ]] || { echo "build libc_calls and yk_memtest first" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for ((r = 0; r < rounds; r++)); do
  "$prog" "$calls" >>"$out/without"
  LD_PRELOAD=$layer "$prog" "$calls" >>"$out/with"
done
median() { awk -v k="$1" '$1 == k { print $2 }' "$2" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '%-12s %12s %12s %8s\n' call "without ns" "with ns" ratio
for kind in mmap+munmap mprotect sigaction setjmp getenv; do
  a=$(median "$kind" "$out/without")
  b=$(median "$kind" "$out/with")
  printf '%-12s %12s %12s %8.2f\n' "$kind" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')"
done
