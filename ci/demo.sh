#!/usr/bin/env bash
# The demo: builds yadokari and runs example MPI programs under `yadokari run` with both MPI
# implementations, shows `yadokari status` of the running job and the per-rank traffic the shim
# recorded; then checkpoints a job, kills it right after the epoch commits and restarts it on
# another transport and rank order; then brings up a simulated 2-node cluster and shows that the
# MPI library uses shared memory inside a node and TCP across nodes; finally a job on a simulated
# 3-node cluster loses a node mid-run and restarts itself on the survivors to the same result.
# Nothing here races the machine's speed: every step that needs a running job holds its ranks at
# MPI_Finalize until the step is done (YADOKARI_FAULT_HOLD_FINALIZE, docs/CONTRACTS.md) and asks
# for the checkpoint it needs (`yadokari checkpoint`) instead of hoping an interval comes first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
bash ci/build.sh >/dev/null
y=build/bin/yadokari
stats=$(mktemp -d)
trap 'rm -rf "$stats"' EXIT
export YADOKARI_STATE_DIR="$stats/state"  # the demo's own jobs only, for status and checkpoint

# ask_checkpoint: `yadokari checkpoint` as soon as the job is registered; prints its answer.
ask_checkpoint() {
  for _ in $(seq 600); do
    "$y" checkpoint 2> "$stats/ask.err" && return 0
    grep -q "no running job found" "$stats/ask.err" || { cat "$stats/ask.err" >&2; return 1; }
    sleep 0.1
  done
  cat "$stats/ask.err" >&2
  return 1
}

for flavour in openmpi mpich; do
  echo "== N-queens master-worker, 4 ranks, $flavour, under yadokari run"
  release="$stats/release-nqueens-$flavour"
  YADOKARI_FAULT_HOLD_FINALIZE="$release" YADOKARI_STATS="$stats/$flavour" \
    "$y" run -n 4 -- "build/examples/$flavour/nqueens" 15 > "$stats/$flavour.out" &
  job=$!
  # Ask the running job what its ranks are doing (once all have registered).
  until "$y" status > "$stats/status" 2>/dev/null && ! grep -q "not answering" "$stats/status"; do
    kill -0 "$job" 2>/dev/null || break
    sleep 0.2
  done
  echo "-- yadokari status, while the job runs:"
  cat "$stats/status"
  touch "$release"
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
  YADOKARI_FAULT_HOLD_FINALIZE="$stats/release-stencil-$flavour" \
    "$y" run -n 4 --ckpt-dir "$ckpt" --stop-after-epoch 1 -- \
    "build/examples/$flavour/stencil" 200 200 1000 > "$stats/part1.out" &
  job=$!
  echo "-- $(ask_checkpoint)"
  wait "$job"
  echo "-- exit code $? (75 = stopped after epoch 1, as asked); committed: $(ls "$ckpt"/*/MANIFEST)"
  set -e
  "$y" inspect "$ckpt/1/rank-0.img" | sed -n '1,8p'
  if [[ $flavour == openmpi ]]; then other=(--mpi-args "--mca btl self,tcp"); else other=(); fi
  echo "-- yadokari restart --ckpt-dir ... --rank-map 3,2,1,0 ${other[*]}"
  "$y" restart --ckpt-dir "$ckpt" --rank-map 3,2,1,0 "${other[@]}" > "$stats/part2.out"
  "$y" run -n 4 -- "build/examples/$flavour/stencil" 200 200 1000 > "$stats/whole.out"
  # stdout into a file is block-buffered: lines the killed job had not flushed travel in its image.
  echo "-- output lines: $(wc -l < "$stats/part1.out") from the killed job, $(wc -l < "$stats/part2.out") from the restart"
  # The job's last line, whichever part printed it.
  echo "-- restarted job's last line:  $(cat "$stats/part1.out" "$stats/part2.out" | tail -n 1)"
  echo "-- uninterrupted run's last:   $(tail -n 1 "$stats/whole.out")"
  cmp -s <(cat "$stats/part1.out" "$stats/part2.out" | tail -n 1) <(tail -n 1 "$stats/whole.out") && echo "-- identical" ||
    { echo "-- DIFFERENT: the restart changed the result" >&2; exit 1; }
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
release="$stats/release-sim"
set +e
YADOKARI_FAULT_HOLD_FINALIZE="$release" \
  "$y" run --sim demo -n 6 --ckpt-dir "$ckpt" --interval 2 -- build/examples/openmpi/ring 400 250 \
  > "$stats/sim.out" 2> "$stats/sim.err" &
job=$!
echo "-- $(ask_checkpoint); yadokari sim kill n2"
"$y" sim kill --name demo n2
until grep -q "^yadokari: restart 1 " "$stats/sim.err" || ! kill -0 $job 2>/dev/null; do sleep 0.2; done
echo "-- yadokari status of the restarted job:"
"$y" status | sed -n '/^last committed/,$p'
touch "$release"
wait $job
echo "-- exit code $?; what the front end logged:"
grep "^yadokari:" "$stats/sim.err"
set -e
"$y" run --sim demo -n 6 -- build/examples/openmpi/ring 400 250 > "$stats/sim-whole.out" 2>/dev/null
echo "-- restarted job's last line:  $(tail -n 1 "$stats/sim.out")"
echo "-- uninterrupted run's last:   $(tail -n 1 "$stats/sim-whole.out")"
cmp -s <(tail -n 1 "$stats/sim.out") <(tail -n 1 "$stats/sim-whole.out") && echo "-- identical" ||
  { echo "-- DIFFERENT: the restart changed the result" >&2; exit 1; }
"$y" sim down --name demo
