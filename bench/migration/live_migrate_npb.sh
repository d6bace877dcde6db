#!/usr/bin/env bash
# A live move in the middle of real programs (issue 20): each PROGRAM (4 ranks, e.g. NPB's cg.B.4
# built outside this repository) runs under `yadokari run --sim` on n1:2,n2:2 of a cluster of its
# own; n3 joins; 3 s after the job registered, `yadokari migrate --live --ranks 2,3 --to n3`. Per
# program: whether the move was live, ranks 0,1's host and pid before and after (they must be the
# same), the restart's timeline line, the exit status and the program's own verification line.
# Needs root (the simulated nodes are namespaces). Run it under the tests' lock on a shared machine:
#
#   flock /tmp/yadokari-tests.lock bench/migration/live_migrate_npb.sh [--build DIR]
#        --mpi openmpi|mpich PROGRAM...
#
# Exit 1 if a program's run failed, the move was not live, or a kept rank changed process.
set -uo pipefail
prog=live_migrate_npb.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../../build"
mpi=""
programs=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) [[ $# -ge 2 ]] || die "--build needs a value"; build=$2; shift 2 ;;
    --mpi) [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) die "unknown argument '$1' (see --help)" ;;
    *) programs+=("$1"); shift ;;
  esac
done
[[ "$mpi" == openmpi || "$mpi" == mpich ]] || die "--mpi needs openmpi or mpich"
((${#programs[@]} > 0)) || die "no PROGRAM given"
for p in "${programs[@]}"; do [[ -x "$p" ]] || die "no program $p"; done
build=$(cd "$build" 2>/dev/null && pwd) || die "no build tree $build"
yk="$build/bin/yadokari"
[[ -x "$yk" ]] || die "no $yk (build first, or pass --build)"
(( EUID == 0 )) || die "needs root (simulated nodes are namespaces)"

work=$(mktemp -d "${TMPDIR:-/tmp}/live-npb.XXXXXX")
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
  d="$work/$(basename "$p")"
  mkdir -p "$d" && chmod 755 "$d"
  name="ln$$"
  "$yk" sim up --nodes 2 --slots 2 --name "$name" >/dev/null || die "sim up failed"
  (cd "$d" && exec timeout -k 5 1800 "$yk" run --sim "$name" -n 4 --mpi "$mpi" --ckpt-dir "$d/ckpt" \
     --max-oversubscribe 1 -- "$p" >"$d/run.out" 2>"$d/run.err" </dev/null) &
  job=$!
  for _ in $(seq 600); do [[ -n "$(kept_places)" ]] && break; sleep 0.2; done
  sleep 3
  before=$(kept_places)
  "$yk" sim add --name "$name" >/dev/null
  for _ in $(seq 150); do grep -q '^yadokari: node n3 joined' "$d/run.err" && break; sleep 0.2; done
  reply=$("$yk" migrate --live --ranks 2,3 --to n3 2>&1)
  for _ in $(seq 1500); do grep -q '^yadokari: restart 1 ' "$d/run.err" && break; kill -0 "$job" 2>/dev/null || break; sleep 0.2; done
  sleep 1
  after=$(kept_places)
  wait "$job"
  code=$?
  job=""
  "$yk" sim down --name "$name" >/dev/null 2>&1
  name=""
  verification=$(grep -m1 -E '^ *Verification *=' "$d/run.out" | tr -s ' ')
  live=no
  grep -q '^yadokari: live move: ranks 0,1 keep their processes' "$d/run.err" && live=yes
  echo "$(basename "$p") ($mpi): exit $code, live: $live, ${verification:-no verification line}"
  echo "  ranks 0,1 before: $before"
  echo "  ranks 0,1 after:  ${after:-(the job had ended)}"
  grep '^yadokari: restart 1 ' "$d/run.err" | sed 's/^/  /'
  if [[ $code != 0 || $live != yes || ( -n "$after" && "$after" != "$before" ) ]]; then
    failed=1
    echo "  reply: $reply"
    tail -n 8 "$d/run.err" | sed 's/^/  | /'
  fi
done
exit $failed
