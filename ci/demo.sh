#!/usr/bin/env bash
# The demo: builds yadokari and runs example MPI programs under `yadokari run` with both MPI
# implementations, shows `yadokari status` of the running job and the per-rank traffic the shim
# recorded. (The simulated multi-node cluster joins the demo with the cluster runtime.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
bash ci/build.sh >/dev/null
y=build/bin/yadokari
stats=$(mktemp -d)
trap 'rm -rf "$stats"' EXIT

for flavour in openmpi mpich; do
  echo "== N-queens master-worker, 4 ranks, $flavour, under yadokari run"
  YADOKARI_STATS="$stats/$flavour" "$y" run -n 4 -- "build/examples/$flavour/nqueens" 15 > "$stats/$flavour.out" &
  job=$!
  # Ask the running job what its ranks are doing (once all have registered).
  for _ in $(seq 50); do
    if "$y" status > "$stats/status" 2>/dev/null && ! grep -q "not answering" "$stats/status"; then
      echo "-- yadokari status, while the job runs:"
      cat "$stats/status"
      break
    fi
    sleep 0.2
  done
  wait "$job"
  echo "-- the job's output (last lines):"
  tail -n 2 "$stats/$flavour.out"
  echo "-- traffic each rank recorded (YADOKARI_STATS):"
  python3 - "$stats/$flavour" <<'PY'
import json, pathlib, sys
rows = [json.loads(p.read_text()) for p in sorted(pathlib.Path(sys.argv[1]).glob("rank-*.json"))]
print("rank  MPI calls  messages sent/received  bytes sent/received")
for r in rows:
    t = r["totals"]
    print(f'{r["logical_rank"]:>4}  {t["calls"]:>9}  {t["messages_sent"]:>10}/{t["messages_received"]:<10}  {t["bytes_sent"]}/{t["bytes_received"]}')
PY
  echo
done
echo "== Fortran CG (use mpi), 4 ranks, Open MPI: the shim's Fortran bindings"
"$y" run -n 4 -- build/examples/openmpi/cg | tail -n 3
