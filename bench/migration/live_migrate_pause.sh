#!/usr/bin/env bash
# What the ranks that stay pay when two ranks move (issue 20; docs/flows/migrate.md, "Live moves"):
# `yadokari migrate --live` (the kept ranks swap their MPI library, only the moved ranks restart)
# against the same `yadokari migrate` without --live (a checkpoint and a restart of the whole job).
# On a simulated cluster of its own: 4 ranks of bench/migration/swap_pause.c (MB megabytes each,
# an MPI_Allreduce every 50 ms) on n1:2,n2:2; n3 joins; ranks 2,3 move to n3. Each rank times the
# longest gap between two of its rounds (CLOCK_MONOTONIC, inside the process): for ranks 0,1 that is
# the pause the move cost them, checkpoint included. The memory's checksum is checked after the move.
# Needs root (the simulated nodes are namespaces). Run it under the tests' lock on a shared machine:
#
#   flock /tmp/yadokari-tests.lock bench/migration/live_migrate_pause.sh [--build DIR]
#                                  [--mpi openmpi|mpich|both] [--mb "0 50"] [--reps 3]
#
#   --build  build tree holding bin/yadokari and lib/libyadokari-<mpi>.so (default: <repo>/build)
#   --mpi    MPIs to measure (default both)
#   --mb     megabytes per rank (default "0 50")
#   --reps   runs of each kind per size, alternating live and full (default 3)
#
# Prints one line per run (the kept ranks' longest round, the restart's timeline line), then a table
# per MPI: MB, the median kept-rank pause of each kind (the slower of ranks 0,1 per run) and the
# median of the per-rep ratios live / full. Exit 1 if a run failed (its output is shown).
set -uo pipefail
prog=live_migrate_pause.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../../build"
mpi=both
mbs="0 50"
reps=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) [[ $# -ge 2 ]] || die "--build needs a value"; build=$2; shift 2 ;;
    --mpi) [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    --mb) [[ $# -ge 2 ]] || die "--mb needs a value"; mbs=$2; shift 2 ;;
    --reps) [[ $# -ge 2 ]] || die "--reps needs a value"; reps=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
case "$mpi" in
  openmpi | mpich) flavours=("$mpi") ;;
  both) flavours=(openmpi mpich) ;;
  *) die "unknown --mpi '$mpi' (openmpi, mpich or both)" ;;
esac
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || die "--reps needs a whole number, got '$reps'"
for mb in $mbs; do [[ "$mb" =~ ^[0-9]+$ ]] || die "--mb needs whole numbers of megabytes, got '$mb'"; done
[[ -n "${mbs// /}" ]] || die "--mb needs at least one size"
build=$(cd "$build" 2>/dev/null && pwd) || die "no build tree $build"
yk="$build/bin/yadokari"
[[ -x "$yk" ]] || die "no $yk (build first, or pass --build)"
(( EUID == 0 )) || die "needs root (simulated nodes are namespaces)"

work=$(mktemp -d "${TMPDIR:-/tmp}/live-migrate.XXXXXX")
chmod 755 "$work"
export YADOKARI_STATE_DIR="$work/state"  # `yadokari migrate` finds this script's job only
job="" name=""
cleanup() {
  [[ -n "$job" ]] && kill -9 "$job" 2>/dev/null
  [[ -n "$name" ]] && "$yk" sim down --name "$name" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
results="$work/results"  # KIND FL MB REP LONGEST
: >"$results"
failed=0
show() { local f; for f in "$@"; do [[ -s "$f" ]] && { echo "  --- ${f#"$work"/}"; tail -n 15 "$f" | sed 's/^/  | /'; }; done; }

# one_run KIND FL MB REP: a fresh cluster, the job, n3 joins, the move; the kept ranks' pause.
one_run() {
  local kind=$1 fl=$2 mb=$3 rep=$4 d="$work/$1-$2-$3-$4" reply line longest code="" live=()
  [[ $kind == live ]] && live=(--live)
  name="lm$$$rep"
  mkdir -p "$d" && chmod 755 "$d"
  "$yk" sim up --nodes 2 --slots 2 --name "$name" >/dev/null || { echo "sim up failed"; return 1; }
  timeout -k 5 300 "$yk" run --sim "$name" -n 4 --mpi "$fl" --ckpt-dir "$d/ckpt" --max-oversubscribe 1 -- \
    "$work/$fl/swap_pause" "$mb" 0 "$d/stop" >"$d/run.out" 2>"$d/run.err" </dev/null &
  job=$!
  for _ in $(seq 1200); do
    (($(grep -c '^rank [0-3] of 4 holds' "$d/run.out") == 4)) && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  "$yk" sim add --name "$name" >/dev/null
  for _ in $(seq 300); do grep -q '^yadokari: node n3 joined' "$d/run.err" && break; sleep 0.1; done
  sleep 1  # a few rounds on the first placement
  for _ in $(seq 300); do
    reply=$("$yk" migrate "${live[@]}" --ranks 2,3 --to n3 2>&1) && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  for _ in $(seq 1200); do
    grep -q '^yadokari: restart 1 (migrate ranks 2,3 to n3): ' "$d/run.err" && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  sleep 1
  touch "$d/stop"
  local since=""
  while kill -0 "$job" 2>/dev/null; do
    [[ -z "$since" ]] && (($(grep -c '^checksum ok rank [0-3] after' "$d/run.out") == 4)) && since=$SECONDS
    if [[ -n "$since" ]] && ((SECONDS - since >= 30)); then
      kill -TERM "$job" 2>/dev/null; sleep 5; kill -9 "$job" 2>/dev/null; code=124; break
    fi
    sleep 0.2
  done
  wait "$job"
  [[ -z "$code" ]] && code=$?
  job=""
  "$yk" sim down --name "$name" >/dev/null 2>&1
  name=""
  line=$(grep '^yadokari: restart 1 (migrate ranks 2,3 to n3): ' "$d/run.err" | head -n 1)
  if [[ -z "$line" || $(grep -c '^checksum ok rank [0-3] after' "$d/run.out") != 4 ]] ||
     { [[ $kind == live ]] && ! grep -q '^yadokari: live move: ranks 0,1 keep their processes' "$d/run.err"; }; then
    echo "$fl $mb MB $kind: exit $code, no restart line, no live move or no checksums (reply: $reply)"
    show "$d/run.out" "$d/run.err"
    return 1
  fi
  # The kept ranks' pause: the slower of ranks 0 and 1.
  longest=$(awk '$1 == "longest" && $2 == "round" && ($4 == "0:" || $4 == "1:") { if ($5 > m) m = $5 } END { printf "%.3f", m }' "$d/run.out")
  echo "$kind $fl $mb $rep $longest" >>"$results"
  printf '%-7s %4s MB %-4s rep %s: ranks 0,1 paused %.3f s (exit %s); %s\n' "$fl" "$mb" "$kind" "$rep" "$longest" "$code" \
    "${line#yadokari: }"
}

for fl in "${flavours[@]}"; do
  mkdir -p "$work/$fl" && chmod 755 "$work/$fl"
  "mpicc.$fl" -O2 -o "$work/$fl/swap_pause" "$here/swap_pause.c" || die "mpicc.$fl failed"
  for mb in $mbs; do
    for rep in $(seq "$reps"); do
      one_run live "$fl" "$mb" "$rep" || failed=1
      one_run full "$fl" "$mb" "$rep" || failed=1
    done
  done
done

echo
/usr/bin/python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for fl in dict.fromkeys(r[1] for r in rows):
    print(f"{fl}: 4 ranks on n1:2,n2:2, ranks 2,3 moved to n3; pause = the kept ranks' longest 50 ms round "
          "(the slower of ranks 0,1), median over the reps; ratio = median of per-rep live / full")
    print("| MB | live (s) | full restart (s) | live / full |")
    print("|---|---|---|---|")
    for mb in sorted({int(r[2]) for r in rows if r[1] == fl}):
        get = lambda k: {r[3]: float(r[4]) for r in rows if r[0] == k and r[1] == fl and int(r[2]) == mb}
        live, full = get("live"), get("full")
        ratios = [live[k] / full[k] for k in live if k in full and full[k] > 0]
        fmt = lambda v: f"{statistics.median(v):.3f}" if v else "-"
        print(f"| {mb} | {fmt(list(live.values()))} | {fmt(list(full.values()))} | {fmt(ratios)} |")
    print()
PY
exit $failed
