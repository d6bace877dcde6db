#!/usr/bin/env bash
# The demo: builds yadokari and runs example MPI programs under `yadokari run` with both MPI
# implementations, shows `yadokari status` of the running job and the per-rank traffic the shim
# recorded; then checkpoints a job, kills it right after the epoch commits and restarts it on
# another transport and rank order; then brings up a simulated 2-node cluster and shows that the
# MPI library uses shared memory inside a node and TCP across nodes; finally a job on a simulated
# 3-node cluster loses a node mid-run and restarts itself on the survivors to the same result.
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

echo
for flavour in openmpi mpich; do
  echo "== Checkpoint/restart, stencil, 4 ranks, $flavour"
  ckpt="$stats/ckpt-$flavour"
  set +e
  "$y" run -n 4 --ckpt-dir "$ckpt" --interval 0.2 --stop-after-epoch 1 -- \
    "build/examples/$flavour/stencil" 200 200 400 > "$stats/part1.out"
  echo "-- exit code $? (75 = stopped after epoch 1, as asked); committed: $(ls "$ckpt"/*/MANIFEST)"
  set -e
  "$y" inspect "$ckpt/1/rank-0.img" | sed -n '1,8p'
  if [[ $flavour == openmpi ]]; then other=(--mpi-args "--mca btl self,tcp"); else other=(); fi
  echo "-- yadokari restart --ckpt-dir ... --rank-map 3,2,1,0 ${other[*]}"
  "$y" restart --ckpt-dir "$ckpt" --rank-map 3,2,1,0 "${other[@]}" > "$stats/part2.out"
  "$y" run -n 4 -- "build/examples/$flavour/stencil" 200 200 400 > "$stats/whole.out"
  echo "-- restarted run's last line: $(tail -n 1 "$stats/part2.out")"
  echo "-- uninterrupted run's last:  $(tail -n 1 "$stats/whole.out")"
  cmp -s <(tail -n 1 "$stats/part2.out") <(tail -n 1 "$stats/whole.out") && echo "-- identical"
  echo
done

echo "== A simulated cluster: 2 nodes x 2 slots (network, UTS, IPC and mount namespaces)"
export YADOKARI_SIM_DIR="$stats/sim"
trap '"$y" sim down --name demo >/dev/null 2>&1 || true; rm -rf "$stats"' EXIT
"$y" sim up --name demo --nodes 2 --slots 2
eval "$("$y" sim env --name demo --mpi openmpi --job-dir "$stats/simjob")"
echo "-- Open MPI ping-pong ring over the two nodes; which transport each pair uses:"
# shellcheck disable=SC2086  # the launcher settings are meant to split into words
$sim_launch mpirun.openmpi $sim_launcher_args -n 4 --mca btl_base_verbose 100 \
  "$PWD/build/examples/openmpi/ring" 2>&1 | grep -oE "Using (vader|tcp) btl" | sort | uniq -c
"$y" sim down --name demo

echo
echo "== A node lost mid-run: 3 nodes x 2 slots, 6 ranks, checkpoint every 2 s, then sim kill n2"
"$y" sim up --name demo --nodes 3 --slots 2 >/dev/null
ckpt="$stats/ckpt-sim"
set +e
"$y" run --sim demo -n 6 --ckpt-dir "$ckpt" --interval 2 -- build/examples/openmpi/ring 400 250 \
  > "$stats/sim.out" 2> "$stats/sim.err" &
job=$!
until ls "$ckpt"/*/MANIFEST >/dev/null 2>&1; do sleep 0.1; done
echo "-- epoch committed; yadokari sim kill n2"
"$y" sim kill --name demo n2
until grep -q "^yadokari: restart 1 " "$stats/sim.err" || ! kill -0 $job 2>/dev/null; do sleep 0.2; done
echo "-- yadokari status of the restarted job:"
"$y" status | sed -n '/^last committed/,$p'
wait $job
echo "-- exit code $?; what the front end logged:"
grep "^yadokari:" "$stats/sim.err"
set -e
"$y" run --sim demo -n 6 -- build/examples/openmpi/ring 400 250 > "$stats/sim-whole.out" 2>/dev/null
echo "-- restarted job's last line:  $(tail -n 1 "$stats/sim.out")"
echo "-- uninterrupted run's last:   $(tail -n 1 "$stats/sim-whole.out")"
cmp -s <(tail -n 1 "$stats/sim.out") <(tail -n 1 "$stats/sim-whole.out") && echo "-- identical"
"$y" sim down --name demo
