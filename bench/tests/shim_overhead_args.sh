#!/usr/bin/env bash
# bench/shim_overhead/run.sh: --via values, and the reference interposer missing from a build tree
# and --compare-build's argument checks (checked before anything is launched), and a variant whose ranks
# report another memory layer / armed state than it claims (a stand-in program under mpirun, no MPI).
set -uo pipefail
s=$(cd "$(dirname "$0")/.." && pwd)/shim_overhead/run.sh
fail() { echo "FAIL: $*"; exit 1; }

out=$("$s" --via preload,bogus 2>&1); rc=$?
[[ $rc == 2 && "$out" == "run.sh: error: unknown --via 'bogus' (preload, cli, minimal, tracked, armed, both or a comma list of the first five)" ]] ||
  fail "bad --via: rc $rc '$out'"

out=$("$s" --compare-build /nonexistent/old-build 2>&1); rc=$?
[[ $rc == 2 && "$out" == "run.sh: error: --compare-build directory '/nonexistent/old-build' does not exist" ]] ||
  fail "missing --compare-build: rc $rc '$out'"

build=$(mktemp -d); trap 'rm -rf "$build"' EXIT
mkdir -p "$build/bench/openmpi"
printf '#!/bin/sh\nexit 0\n' >"$build/bench/openmpi/shim_overhead"
chmod +x "$build/bench/openmpi/shim_overhead"
out=$("$s" --mpi openmpi --via minimal --reps 1 --build "$build" 2>&1); rc=$?
[[ $rc == 1 ]] || fail "missing interposer: rc $rc, expected 1: '$out'"
grep -qxF "run.sh: $build/bench/openmpi/libminimal_interposer.so not built (target minimal_interposer-openmpi); skipping --via minimal for openmpi" <<<"$out" ||
  fail "missing interposer: no skip line in '$out'"
grep -qxF "timing 0 comparison(s): up to 1 interleaved reps each, stop after 75 s" <<<"$out" ||
  fail "missing interposer: something was still timed: '$out'"
out=$("$s" --mpi openmpi --via minimal --reps 1 --build "$build" --compare-build "$build" 2>&1); rc=$?
[[ $rc == 2 && "$out" == "run.sh: error: --compare-build compares shims: --via minimal has no shim to compare" ]] ||
  fail "--compare-build with --via minimal: rc $rc '$out'"
out=$("$s" --layer --compare-build "$build" 2>&1); rc=$?
[[ $rc == 2 && "$out" == "run.sh: error: --layer and --compare-build are two different comparisons: pick one" ]] ||
  fail "--layer with --compare-build: rc $rc '$out'"

# A variant whose ranks say they are not what it claims is not timed: a stand-in program writes the
# stats of a plain shim (layer off, calls not armed) whatever is preloaded (here an empty file).
mkdir -p "$build/lib"
: >"$build/lib/libyadokari-openmpi.so"
cat >"$build/bench/openmpi/shim_overhead" <<'APP'
#!/bin/sh
[ -n "${YADOKARI_STATS:-}" ] && echo '{"memory_layer": false, "checkpoints_armed": false}' >"$YADOKARI_STATS/rank-${OMPI_COMM_WORLD_RANK:-0}.json"
exit 0
APP
out=$("$s" --mpi openmpi --layer --reps 1 --build "$build" 2>&1); rc=$?
[[ $rc == 1 ]] || fail "mismatched variant: rc $rc, expected 1: '$out'"
grep -qxF "openmpi plain shim: active (2 stats file(s) written in the check run)" <<<"$out" ||
  fail "mismatched variant: the plain shim's check did not pass: '$out'"
grep -qxF "run.sh: openmpi shim with the memory layer: the ranks report memory layer, armed = 'False False', expected 'True False'" <<<"$out" ||
  fail "mismatched variant: no refusal line in '$out'"
grep -qxF "timing 0 comparison(s): up to 1 interleaved reps each, stop after 75 s" <<<"$out" ||
  fail "mismatched variant: something was still timed: '$out'"
echo ok
