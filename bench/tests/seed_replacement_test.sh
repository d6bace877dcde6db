#!/usr/bin/env bash
# bench/seed_replacement.sh: argument handling and the report from recorded data (no cluster, no MPI).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
script=$here/../seed_replacement.sh
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

err=$("$script" --frobnicate 2>&1 >/dev/null); rc=$?
[[ $rc == 2 && $(head -n 1 <<<"$err") == "seed_replacement.sh: unknown argument --frobnicate" ]] \
  || fail "unknown argument: exit $rc, '$err'"
grep -q "^usage: seed_replacement.sh" <<<"$err" || fail "no usage after an unknown argument: $err"
err=$("$script" --report "$tmp/none.jsonl" 2>&1 >/dev/null); rc=$?
[[ $rc == 2 && "$err" == "seed_replacement.sh: no such file $tmp/none.jsonl" ]] || fail "missing report file: exit $rc, '$err'"
if [[ $(id -u) == 0 ]]; then
  err=$("$script" --mpi lam --yadokari /bin/true 2>&1 >/dev/null); rc=$?
  [[ $rc == 2 && "$err" == "seed_replacement.sh: --mpi must be openmpi or mpich" ]] || fail "--mpi lam: exit $rc, '$err'"
  err=$("$script" --yadokari "$tmp/nope" 2>&1 >/dev/null); rc=$?
  [[ $rc == 2 && "$err" == "seed_replacement.sh: no yadokari at $tmp/nope (build it or give --yadokari)" ]] \
    || fail "missing yadokari: exit $rc, '$err'"
fi

"$script" --report "$here/data/sample_seed_replacement.jsonl" --md "$tmp/table.md" || fail "--report exited $?"
expected='| placement | hosts | compute s, median (range) | wall s, median | vs 0:3 | runs ok |
|---|---|---|---|---|---|
| before | n1:2,n2:2,n3:3 | 0.80 (0.80–0.80) | 2.54 | -61.8 % | 1/1 |
| 0:3 | n1:2,n2:5 | 2.10 (2.10–2.10) | 4.54 | – | 1/1 |
| 1:2 | n1:3,n2:4 | 1.70 (1.70–1.70) | 3.79 | -19.0 % | 1/1 |
| 2:1 | n1:4,n2:3 | 1.60 (1.60–1.60) | 3.69 | -23.7 % | 1/1 |

nqueens --static 15, 7 ranks, openmpi, 0.25 CPU per slot; seed 000: 0:3 212.85 s, 1:2 179.63 s (-15.6 %).'
[[ "$(cat "$tmp/table.md")" == "$expected" ]] || fail "report:
$(cat "$tmp/table.md")"
echo "ok: seed_replacement.sh arguments and report"
