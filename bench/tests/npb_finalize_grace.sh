#!/usr/bin/env bash
# npb.sh stops a run that printed NPB's complete report but does not exit (MPICH over TCP may hang in
# MPI_Finalize): it is kept as verified with finalize_hang 1 instead of waiting out the watchdog. A run
# that exits by itself has no such field. The "NPB binaries" are scripts printing a recorded report;
# they run natively under mpirun.openmpi (2 ranks), so no NPB and no yadokari are needed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
npb="$here/../npb.sh"
fail() { echo "FAIL: $*"; exit 1; }
command -v mpirun.openmpi >/dev/null || fail "mpirun.openmpi not found (Open MPI is a dependency of the suite)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bin="$tmp/npb-build/openmpi/bin"
mkdir -p "$bin"
report="$here/data/npb_is.S.mpich.native.log"
# is.S: prints the report and exits; cg.S: prints it, then "hangs" (a process whose command line names
# the binary, as a real NPB rank's does)
printf '#!/bin/sh\ncat "%s"\n' "$report" >"$bin/is.S.2"
printf '#!/bin/sh\ncat "%s"\nexec python3 -c "import time; time.sleep(60)" "$0"\n' "$report" >"$bin/cg.S.2"
chmod +x "$bin/is.S.2" "$bin/cg.S.2"
env -u NPB_DIR "$npb" --npb-dir "$tmp" --mpi openmpi --kernels "is cg" --classes S --np 2 --reps 1 \
  --modes native --finalize-grace 1 --timeout 25 --out "$tmp/r.jsonl" 2>"$tmp/err" ||
  fail "npb.sh exited $?: $(tail -5 "$tmp/err")"
python3 - "$tmp/r.jsonl" <<'PY' || fail "records: $(cat "$tmp/r.jsonl")"
import json, sys
recs = {r["kernel"]: r for r in map(json.loads, open(sys.argv[1]))}
assert set(recs) == {"is", "cg"}, recs.keys()
for r in recs.values():
    assert r["status"] == "ok" and r["verification"] == "SUCCESSFUL" and r["exit_code"] == 0, r
assert recs["cg"].get("finalize_hang") == 1, recs["cg"]
assert "finalize_hang" not in recs["is"], recs["is"]
PY
# stopped, not left behind: npb.sh returns after the launcher ended and kills ranks it left behind
pgrep -f -- "$bin/cg.S.2" >/dev/null && fail "the hanging ranks are still running: $(pgrep -af -- "$bin/cg.S.2")"
# a bad value is a one-line usage error
err=$(env -u NPB_DIR "$npb" --npb-dir "$tmp" --finalize-grace 0 --dry-run 2>&1); rc=$?
[[ $rc == 2 && "$err" == "npb.sh: --finalize-grace must be a positive integer, not '0'" ]] || fail "bad grace: rc $rc '$err'"
echo ok
