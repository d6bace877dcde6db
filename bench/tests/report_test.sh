#!/usr/bin/env bash
# bench/report on recorded JSON lines (tests/data): Markdown rows and non-empty PNGs.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
report="$here/../report"
fail() { echo "FAIL: $*"; [[ -f "$tmp/report.md" ]] && cat "$tmp/report.md"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$report" --out-dir "$tmp" "$here/data/sample_npb.jsonl" "$here/data/sample_experiment.jsonl" \
  "$here/data/sample_seed_replacement.jsonl" "$here/data/sample_seed_consolidation.jsonl" || fail "report exited $?"
md="$tmp/report.md"
[[ -s "$md" ]] || fail "no report.md"
has() { grep -qF -- "$1" "$md" || fail "report.md lacks: $1"; }
has "| mpi | bench | reps | native npb s | shim/native npb | ckpt/native npb | shim/native wall | ckpt/native wall | ok/runs | anchor |"
# the recorded sample: Open MPI CG, one rep of each mode (ratios computed from the JSON lines)
has "| openmpi | cg.S | 1 | 0.40 | 0.500 | 1.325 | 0.842 | 1.129 | 4/4 |  |"
has "| openmpi | cg.A | 1 | 6.42 | 0.562 | 1.070 | 0.643 | 1.087 | 5/5 |  |"
has "## Checkpoint cost"
# one row per checkpoint interval; the pause from the ranks' MANIFEST times (median 0.30 of 0.2/0.4/0.3 s)
has "| openmpi | cg.A | 1.0 | 1 | 6.0 | 14.0 | 55.8 | 0.30 | 3.26 | 0.54 | +90.3 % | 1.070 |  |"
has "| openmpi | cg.A | 30.0 | 1 | 0.0 | – | – | – | 0.09 | – | +2.5 % | 0.576 |  |"
has "## Restart phases"
has "| openmpi | cg.A | 1/1 | 0 | 4.1 | 4.42 | 4.36 | 8.78 | 8.13 | 1.080 | 14.0 |"
has "## Re-placement experiments"
has "| colocate | openmpi | mg.A | native | n1:2,n2:2 | 1/1 | 4.00 | +0.0 % | -42.2 % |"
has "| colocate | openmpi | mg.A | native | n1:4 | 1/1 | 3.00 | -25.0 % | -42.2 % |"
has "MANA 1.2: < 1 % for most codes"
# the seed experiments' sections come from their scripts' own --report (one table definition each);
# their records (link/check lines without a status) are not counted as failed runs
has "## Seed experiments"
has "### seed 000: per-process vs node-level re-placement"
has "| 1:2 | n1:3,n2:4 | 1.70 (1.70–1.70) | 3.79 | -19.0 % | 1/1 |"
has "### seed 000 §5.7: consolidation vs spreading"
has "| openmpi | 15mbit (14.5 Mbit/s) | IS W | 0.52 (0.52–0.52) | 10.9 (10.4–11.4) | 20.96 | 738 | one:FAILED (1 finalize hangs, time kept) |"
grep -q "run(s) failed" "$md" && fail "seed records counted as failed npb.sh runs"
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || python3 -c 'import matplotlib' 2>/dev/null; then
  for p in overhead.png ckpt_cost.png restart.png replacement.png consolidation.png; do
    [[ -s "$tmp/$p" ]] || fail "$p missing or empty"
    [[ $(head -c 8 "$tmp/$p" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "$p is not a PNG"
    (( $(stat -c %s "$tmp/$p") < 200000 )) || fail "$p larger than 200 KB"
    has "![$p]($p)"
  done
else
  echo "note: matplotlib missing, PNGs not checked (apt-get install python3-matplotlib)"
fi
# bad input: exit 2 with one line
err=$("$report" --out-dir "$tmp" "$tmp/nope.jsonl" 2>&1); rc=$?
[[ $rc == 2 && "$err" == "report: $tmp/nope.jsonl: no such file" ]] || fail "missing file: rc $rc '$err'"
echo '{not json' >"$tmp/bad.jsonl"
err=$("$report" --out-dir "$tmp" "$tmp/bad.jsonl" 2>&1); rc=$?
[[ $rc != 0 && "$err" == "report: $tmp/bad.jsonl:1: not JSON"* ]] || fail "bad JSON: rc $rc '$err'"
echo ok
