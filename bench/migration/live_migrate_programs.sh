#!/usr/bin/env bash
# A live move in the middle of real programs (issue 20): each PROGRAM (4 ranks; a path, or a path
# and its arguments as one quoted word, e.g. NPB's cg.A.4 built outside this repository or
# "build/examples/openmpi/stencil 256 256 40000") runs under `yadokari run --sim` on n1:2,n2:2 of
# a cluster of its own; n3 joins; DELAY s after the job registered, `yadokari migrate --live
# --ranks 2,3 --to n3`. The ranks are held at MPI_Finalize until the move's restart has been
# logged (YADOKARI_FAULT_HOLD_FINALIZE), so that a program that ends early is still moved, at its
# end; the report says how many of the program's output lines came after the move.
# Per program: whether the move was live, ranks 0,1's host and pid before and after (they must be
# the same), the restart's timeline line, the exit status, and the result: NPB's own verification
# line, or for a program without one its whole output compared with an uninterrupted run of it on
# the same layout (`yadokari run --sim`, n1:2,n2:2, no checkpoint: MPICH's reductions add in an
# order that depends on which ranks share a node, so a launch on one host is no reference).
# Needs root (the simulated nodes are namespaces). Run it under the tests' lock on a shared machine:
#
#   flock /tmp/yadokari-tests.lock bench/migration/live_migrate_programs.sh [--build DIR]
#        [--delay S] --mpi openmpi|mpich PROGRAM...
#
# Exit 1 if a program's run failed, the move was not live, a kept rank changed process, NPB did not
# verify or the output differs from the uninterrupted run's.
set -uo pipefail
prog=live_migrate_programs.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../../build"
mpi=""
delay=3
programs=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) [[ $# -ge 2 ]] || die "--build needs a value"; build=$2; shift 2 ;;
    --mpi) [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    --delay) [[ $# -ge 2 && $2 =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--delay needs seconds"; delay=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) die "unknown argument '$1' (see --help)" ;;
    *) programs+=("$1"); shift ;;
  esac
done
[[ "$mpi" == openmpi || "$mpi" == mpich ]] || die "--mpi needs openmpi or mpich"
((${#programs[@]} > 0)) || die "no PROGRAM given"
for p in "${programs[@]}"; do read -r -a words <<<"$p"; [[ -x "${words[0]}" ]] || die "no program ${words[0]}"; done
build=$(cd "$build" 2>/dev/null && pwd) || die "no build tree $build"
yk="$build/bin/yadokari"
[[ -x "$yk" ]] || die "no $yk (build first, or pass --build)"
(( EUID == 0 )) || die "needs root (simulated nodes are namespaces)"

work=$(mktemp -d "${TMPDIR:-/tmp}/live-programs.XXXXXX")
chmod 755 "$work"
export YADOKARI_STATE_DIR="$work/state"
job="" name=""
cleanup() {
  [[ -n "$job" ]] && kill -9 "$job" 2>/dev/null
  [[ -n "$name" ]] && "$yk" sim down --name "$name" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# kept_places: "rank host pid" of ranks 0 and 1, from `yadokari status --json`.
kept_places() {
  "$yk" status --json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
for r in sorted(json.load(sys.stdin)["ranks"], key=lambda r: r["rank"]):
    if r["rank"] < 2: print(r["rank"], r["host"], r["pid"])' 2>/dev/null | tr '\n' ' '
}
failed=0
for p in "${programs[@]}"; do
  read -r -a cmd <<<"$p"
  d="$work/$(basename "${cmd[0]}")-$RANDOM"
  mkdir -p "$d" && chmod 755 "$d"
  name="ln$$"
  "$yk" sim up --nodes 2 --slots 2 --name "$name" >/dev/null || die "sim up failed"
  (cd "$d" && YADOKARI_FAULT_HOLD_FINALIZE="$d/release" exec timeout -k 5 1800 "$yk" run --sim "$name" -n 4 \
     --mpi "$mpi" --ckpt-dir "$d/ckpt" --max-oversubscribe 1 -- "${cmd[@]}" >"$d/run.out" 2>"$d/run.err" </dev/null) &
  job=$!
  for _ in $(seq 600); do [[ -n "$(kept_places)" ]] && break; sleep 0.2; done
  sleep "$delay"
  before=$(kept_places)
  "$yk" sim add --name "$name" >/dev/null
  for _ in $(seq 150); do grep -q '^yadokari: node n3 joined' "$d/run.err" && break; sleep 0.2; done
  lines_at_move=$(wc -l <"$d/run.out")
  reply=$("$yk" migrate --live --ranks 2,3 --to n3 2>&1)
  for _ in $(seq 1500); do grep -q '^yadokari: restart 1 ' "$d/run.err" && break; kill -0 "$job" 2>/dev/null || break; sleep 0.2; done
  sleep 1
  after=$(kept_places)
  touch "$d/release"
  wait "$job"
  code=$?
  job=""
  "$yk" sim down --name "$name" >/dev/null 2>&1
  name=""
  lines=$(wc -l <"$d/run.out")
  verification=$(grep -m1 -E '^ *Verification *=' "$d/run.out" | tr -s ' ')
  result_ok=yes
  if [[ -n "$verification" ]]; then
    [[ "$verification" == *SUCCESSFUL* ]] || result_ok=no
    result=$verification
  else
    name="lr$$"
    "$yk" sim up --nodes 2 --slots 2 --name "$name" >/dev/null || die "sim up failed"
    (cd "$d" && exec timeout -k 5 1800 "$yk" run --sim "$name" -n 4 --mpi "$mpi" -- "${cmd[@]}" \
       >"$d/reference.out" 2>"$d/reference.err" </dev/null)
    "$yk" sim down --name "$name" >/dev/null 2>&1
    name=""
    if cmp -s "$d/reference.out" "$d/run.out"; then result="output identical to an uninterrupted run's ($lines lines)"
    else result_ok=no; result="output differs from an uninterrupted run's: $(diff "$d/reference.out" "$d/run.out" | head -3 | tr '\n' ' ')"; fi
  fi
  live=no
  grep -q '^yadokari: live move: ranks 0,1 keep their processes' "$d/run.err" && live=yes
  echo "$p ($mpi): exit $code, live: $live, $result"
  echo "  output lines after the move was asked: $((lines - lines_at_move)) of $lines"
  echo "  ranks 0,1 before: $before"
  echo "  ranks 0,1 after:  ${after:-(the job had ended)}"
  grep '^yadokari: restart 1 ' "$d/run.err" | sed 's/^/  /'
  if [[ $code != 0 || $live != yes || $result_ok != yes || "$after" != "$before" ]]; then
    failed=1
    echo "  reply: $reply"
    tail -n 8 "$d/run.err" | sed 's/^/  | /'
  fi
done
exit $failed
