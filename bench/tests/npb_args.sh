#!/usr/bin/env bash
# bench/npb.sh argument handling and --dry-run (no NPB, no MPI needed).
set -uo pipefail
npb=$(cd "$(dirname "$0")/.." && pwd)/npb.sh
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# expect RC STDERR-LINE args...: exit status and the exact single stderr line
expect() {
  local want_rc=$1 want_err=$2; shift 2
  local err rc
  err=$(env -u NPB_DIR "$npb" "$@" 2>&1 >/dev/null); rc=$?
  [[ $rc == "$want_rc" ]] || fail "npb.sh $*: exit $rc, expected $want_rc (stderr: $err)"
  [[ "$err" == "$want_err" ]] || fail "npb.sh $*: stderr '$err', expected '$want_err'"
}
expect 2 "npb.sh: unknown option --foo" --foo
expect 2 "npb.sh: unknown option --foo" --npb-dir "$tmp" --foo
expect 2 "npb.sh: --npb-dir is required (or set NPB_DIR)"
expect 2 "npb.sh: --npb-dir is required (or set NPB_DIR)" --mpi openmpi --dry-run
expect 2 "npb.sh: --npb-dir '$tmp/nope' is not a directory" --npb-dir "$tmp/nope"
expect 2 "npb.sh: option --reps needs a value" --npb-dir "$tmp" --reps
expect 2 "npb.sh: --mpi must be openmpi, mpich or both, not 'lam'" --npb-dir "$tmp" --mpi lam
expect 2 "npb.sh: --reps must be a positive integer, not '0'" --npb-dir "$tmp" --reps 0
expect 2 "npb.sh: unknown kernel 'dt' (bt cg ep ft is lu mg sp)" --npb-dir "$tmp" --kernels "cg dt"
expect 2 "npb.sh: unknown mode 'fast' (native shim ckpt restart)" --npb-dir "$tmp" --modes "native fast"
expect 2 "npb.sh: --interval must be positive numbers of seconds, not 'x'" --npb-dir "$tmp" --interval x
expect 2 "npb.sh: --interval must be positive numbers of seconds, not '30 0'" --npb-dir "$tmp" --interval "30 0"

# --dry-run: a fake build tree (layout of build_npb.sh --out under <dir>/npb-build); nothing is executed
mkdir -p "$tmp/npb-build/openmpi/bin" "$tmp/npb-build/mpich/bin"
for b in openmpi/bin/cg.S.4 mpich/bin/cg.S.4; do
  printf '#!/bin/sh\necho EXECUTED >>"%s/executed"\n' "$tmp" >"$tmp/npb-build/$b"; chmod +x "$tmp/npb-build/$b"
done
out=$(env -u NPB_DIR "$npb" --npb-dir "$tmp" --kernels "cg mg" --classes S --reps 2 --modes "native shim ckpt" \
      --interval 3 --out "$tmp/r.jsonl" --dry-run) || fail "--dry-run exited $?"
[[ $(grep -c '^rep ' <<<"$out") == 24 ]] || fail "expected 24 planned runs (2 reps x 2 mpi x 2 kernels x 3 modes):
$out"
head -1 <<<"$out" | grep -q "^# npb.sh dry run: 24 runs, binaries under $tmp/npb-build" || fail "header: $(head -1 <<<"$out")"
grep -qx "rep 0 openmpi cg.S np=4 native: $tmp/npb-build/openmpi/bin/cg.S.4" <<<"$out" || fail "native line missing:
$out"
grep -qx "rep 0 mpich cg.S np=4 ckpt --interval 3: $tmp/npb-build/mpich/bin/cg.S.4" <<<"$out" || fail "ckpt line missing"
grep -qx "rep 0 openmpi mg.S np=4 shim: $tmp/npb-build/openmpi/bin/mg.S.4  (missing binary)" <<<"$out" ||
  fail "missing binary not flagged"
# interleaving: within a benchmark, even reps in --modes order, odd reps reversed
mapfile -t cg1 < <(grep '^rep 1 openmpi cg.S' <<<"$out" | awk '{ print $6 }' | tr -d :)
[[ "${cg1[*]}" == "ckpt shim native" ]] || fail "rep 1 order '${cg1[*]}'"
[[ ! -e "$tmp/executed" && ! -e "$tmp/r.jsonl" ]] || fail "--dry-run executed something"
# several intervals: ckpt mode once per interval, in order (reversed on odd reps like the other modes)
iv=$(env -u NPB_DIR "$npb" --npb-dir "$tmp" --kernels cg --classes S --reps 2 --mpi openmpi \
     --modes "native shim ckpt" --interval "30 60" --dry-run) || fail "--interval '30 60' --dry-run"
mapfile -t iv0 < <(grep '^rep 0 ' <<<"$iv" | sed 's/^rep 0 openmpi cg.S np=4 //; s/: .*//')
[[ "${iv0[*]}" == "native shim ckpt --interval 30 ckpt --interval 60" ]] || fail "rep 0 with two intervals: '${iv0[*]}'"
mapfile -t iv1 < <(grep '^rep 1 ' <<<"$iv" | sed 's/^rep 1 openmpi cg.S np=4 //; s/: .*//')
[[ "${iv1[*]}" == "ckpt --interval 60 ckpt --interval 30 shim native" ]] || fail "rep 1 with two intervals: '${iv1[*]}'"
# --quick expands to its set (still a dry run)
q=$(env -u NPB_DIR "$npb" --npb-dir "$tmp" --quick --mpi openmpi --out "$tmp/q.jsonl" --dry-run) || fail "--quick --dry-run"
grep -q "restart --stop-after-epoch 1 at half-time" <<<"$q" || fail "--quick has no restart mode"
[[ $(grep -c '^rep ' <<<"$q") == 64 ]] || fail "--quick openmpi: expected 64 runs (2 reps x 4 kernels x 2 classes x 4 modes)"
# NPB_DIR works instead of --npb-dir
NPB_DIR=$tmp "$npb" --kernels cg --classes S --reps 1 --mpi mpich --dry-run >/dev/null || fail "NPB_DIR not used"
echo ok
