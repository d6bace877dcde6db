#!/usr/bin/env bash
# bench/seed_consolidation.sh: argument handling and the report from recorded data (no cluster, no MPI).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
script=$here/../seed_consolidation.sh
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

expect_error() {  # expected-message args...
  local want=$1 err rc
  shift
  err=$("$script" "$@" 2>&1 >/dev/null); rc=$?
  [[ $rc == 2 && "$err" == "$want" ]] || fail "$*: exit $rc, '$err' (wanted '$want')"
}
expect_error "seed_consolidation.sh: unknown option --frobnicate" --frobnicate x
expect_error "seed_consolidation.sh: option --reps needs a value" --reps
expect_error "seed_consolidation.sh: no such file $tmp/none.jsonl" --report "$tmp/none.jsonl"
expect_error "seed_consolidation.sh: --ranks must be an even number >= 2" --ranks 7
expect_error "seed_consolidation.sh: --reps must be a positive number" --reps 0
expect_error "seed_consolidation.sh: --nqueens must be 0 (none) or 4..20" --nqueens 21
expect_error "seed_consolidation.sh: nothing to run (--kernels \"\" and --nqueens 0)" --kernels "" --nqueens 0
expect_error "seed_consolidation.sh: --links needs at least one rate" --links ""
if [[ $(id -u) == 0 ]]; then
  expect_error "seed_consolidation.sh: no yadokari CLI at $tmp/nope (build it or give --yadokari)" --yadokari "$tmp/nope"
  expect_error "seed_consolidation.sh: --mpi: openmpi or mpich, not lam" --mpi lam --yadokari /bin/true
  expect_error "seed_consolidation.sh: missing $tmp/openmpi/bin/is.W.4" --npb-dir "$tmp" --kernels is --yadokari /bin/true
fi

"$script" --report "$here/data/sample_seed_consolidation.jsonl" --md "$tmp/table.md" || fail "--report exited $?"
expected='| MPI | link (measured) | program | 1 node [s] | 2 nodes [s] | ratio 2/1 | seed 000 ratio | failed |
|---|---|---|---|---|---|---|---|
| openmpi | 1gbit (870 Mbit/s) | IS W | 0.5 (0.5–0.5) | 0.6 (0.6–0.6) | 1.20 | 738 | 0 |
| openmpi | 1gbit (870 Mbit/s) | N-queen N=16 | 20 (20–20) | 11 (11–11) | 0.55 | 0.69 | 0 |
| openmpi | 15mbit (14.5 Mbit/s) | IS W | 0.52 (0.52–0.52) | 10.9 (10.4–11.4) | 20.96 | 738 | one:FAILED (1 finalize hangs, time kept) |

8 ranks; 1 node = 8 ranks on one node of 4 slots, 2 nodes = 4 + 4; 0.25 CPU per slot; times: NPB'"'"'s own, N-queen'"'"'s compute time; median (range). Seed 000: 8 ranks, 4-core PCs, ratio of the 2-node to the 1-node time.'
[[ "$(cat "$tmp/table.md")" == "$expected" ]] || fail "report:
$(diff <(echo "$expected") "$tmp/table.md")"
echo "ok: seed_consolidation.sh arguments and report"
