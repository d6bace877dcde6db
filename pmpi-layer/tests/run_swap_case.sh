#!/usr/bin/env bash
# A swap of the MPI library inside running processes (pmpi-layer/src/shim/library_swap.cpp), driven
# by hand as a live move will drive it (docs/flows/migrate.md, "Live moves").
#   run_swap_case.sh MODE FLAVOUR NRANKS SHIM YADOKARI PROGRAM [SWAPS AFTER]
# MODE:
#   swap      `PROGRAM swap SWAPS` under the shim (SWAPS: 1 if not given): a first launch runs until
#             every rank finalizes its library and waits for a stand-in (DIR/rank-L.pid); that launch
#             is killed (SIGKILL, its node daemons first); a new launch of `yadokari stand-in` hands
#             each kept process its rank there, and the program runs on in it; SWAPS times. The
#             launches' lines together are a native run's (the hook skipped), the lines matching the
#             regex AFTER (at least one per rank) come from the last launch only, and it exits 0.
#   refused   the same without YADOKARI_SWAP_DIR: one line saying why, the job as it was (it aborts).
#   no-kept   a stand-in with no kept process to hand over to: one line, exit 1.
#   exhausted `PROGRAM swap-exhausted` (no link namespace left for a copy): each rank's one line
#             saying why, and the job goes on in its launch and exits 0.
# SWAP_RANK_MAP=LIST in the environment: every launch under the shim gets YADOKARI_RANK_MAP=LIST
# (real rank i hosts logical rank LIST[i], as after a restart that placed ranks anew).
# SWAP_LATER_RANK_MAP=LIST: the launches after the first get this map instead (a live move places
# ranks anew; each kept process takes the new launch's map from its stand-in).
# SWAP_STAND_INS=shim: the later launches start the program under the shim with every rank listed
# in YADOKARI_KEPT_RANKS, as a live move's launch does, instead of `yadokari stand-in`.
set -u
mode=$1 flavour=$2 n=$3 shim=$4 yadokari=$5 prog=$6 swaps=${7:-1} after=${8:-^round 2 }
map=()
[ -n "${SWAP_RANK_MAP:-}" ] && map=("YADOKARI_RANK_MAP=$SWAP_RANK_MAP")
later_map=("${map[@]}")
[ -n "${SWAP_LATER_RANK_MAP:-}" ] && later_map=("YADOKARI_RANK_MAP=$SWAP_LATER_RANK_MAP")
work=$(mktemp -d)
launcher_pid=
cleanup() {
  [ -n "$launcher_pid" ] && kill -9 "$launcher_pid" 2>/dev/null
  for f in "$work"/kept-*.pids; do [ -f "$f" ] && xargs kill -9 < "$f" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
descendants() {  # the process tree below PID, parents before children
  local child
  for child in $(pgrep -P "$1"); do echo "$child"; descendants "$child"; done
}
fail() { echo "FAIL: $*"; for f in "$work"/*.out "$work"/*.err; do [ -s "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }

launcher() {  # launcher ENV_ASSIGNMENTS... -- PROGRAM ARGS: the launcher's command line
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  if [ "$flavour" = openmpi ]; then
    local xs=()
    for e in "${envs[@]}"; do xs+=(-x "$e"); done
    echo mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none -n "$n" "${xs[@]}" "$@"
  else
    local gs=()
    for e in "${envs[@]}"; do gs+=(-genv "${e%%=*}" "${e#*=}"); done
    echo mpiexec.mpich -n "$n" "${gs[@]}" "$@"
  fi
}

case $mode in
  swap)
    timeout 180 $(launcher NONE=1 -- "$prog" swap "$swaps") > "$work/native.out" 2> "$work/native.err" || fail "native run failed"
    mkdir "$work/swap"
    $(launcher "LD_PRELOAD=$shim" "YADOKARI_SWAP_DIR=$work/swap" "YADOKARI_STATS=$work/stats" "${map[@]}" -- "$prog" swap "$swaps") \
      > "$work/launch-0.out" \
      2> "$work/launch-0.err" &
    launcher_pid=$!
    for s in $(seq "$swaps"); do
      for _ in $(seq 600); do
        [ "$(ls "$work"/swap/rank-*.pid 2>/dev/null | wc -l)" -eq "$n" ] && break
        kill -0 "$launcher_pid" 2>/dev/null || fail "launch $((s - 1)) ended before its ranks waited for a stand-in"
        sleep 0.1
      done
      [ "$(ls "$work"/swap/rank-*.pid 2>/dev/null | wc -l)" -eq "$n" ] || fail "the ranks did not wait for a stand-in within 60 s"
      cat "$work"/swap/rank-*.pid | sort > "$work/kept-$s.pids"
      # Whatever starts the kept processes' neighbours is killed first, with SIGKILL, so that nothing
      # passes a signal on to them: Open MPI's mpirun (their parent here) would SIGTERM the rest of
      # its ranks when one dies, and a stand-in passes that on; MPICH's proxy would do the same when
      # its mpiexec goes. Then the stand-ins of the previous swap.
      tree=$(descendants "$launcher_pid" | grep -vxF -f "$work/kept-$s.pids")
      if [ "$flavour" = openmpi ]; then
        kill -9 "$launcher_pid"
      else
        for proxy in $(pgrep -P "$launcher_pid"); do kill -9 "$proxy"; done
        kill -9 "$launcher_pid"
      fi
      for pid in $tree; do kill -9 "$pid" 2>/dev/null; done
      wait "$launcher_pid" 2>/dev/null
      while read -r pid; do kill -0 "$pid" 2>/dev/null || fail "kept process $pid died with launch $((s - 1))"; done < "$work/kept-$s.pids"
      [ "$s" -gt 1 ] && { diff -q "$work/kept-1.pids" "$work/kept-$s.pids" >/dev/null || fail "other processes at swap $s"; }
      rm "$work"/swap/rank-*.pid
      if [ "${SWAP_STAND_INS:-}" = shim ]; then
        $(launcher "LD_PRELOAD=$shim" "YADOKARI_SWAP_DIR=$work/swap" "YADOKARI_KEPT_RANKS=$(seq -s, 0 $((n - 1)))" \
          "${later_map[@]}" -- "$prog" swap "$swaps") > "$work/launch-$s.out" 2> "$work/launch-$s.err" &
      else
        $(launcher NONE=1 "${later_map[@]}" -- "$yadokari" stand-in --dir "$work/swap") > "$work/launch-$s.out" \
          2> "$work/launch-$s.err" &
      fi
      launcher_pid=$!
    done
    for _ in $(seq 1800); do kill -0 "$launcher_pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$launcher_pid" 2>/dev/null && fail "the last launch did not end within 180 s"
    wait "$launcher_pid" || fail "the last launch (the stand-ins) failed"
    launcher_pid=
    [ "$(grep -c -- "$after" "$work/launch-$swaps.out")" -ge "$n" ] || fail "the last launch printed no '$after' line per rank"
    for s in $(seq 0 $((swaps - 1))); do grep -q -- "$after" "$work/launch-$s.out" && fail "launch $s printed '$after'"; done
    grep -q "the same process as in round 1: no" "$work"/launch-*.out && fail "a rank is not the same process"
    sort "$work/native.out" > "$work/native.sorted"
    cat "$work"/launch-*.out | sort > "$work/swapped.sorted"
    diff -u "$work/native.sorted" "$work/swapped.sorted" || fail "output differs from the native run"
    /usr/bin/python3 - "$work/stats" "$n" "$swaps" <<'PY' || fail "the stats do not count the swaps"
import json, pathlib, sys
d, n, swaps = pathlib.Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
for r in range(n):
    j = json.loads((d / f"rank-{r}.json").read_text())
    assert j["library_swaps"] == swaps, (r, j["library_swaps"])
    phases = j["last_library_swap_seconds"]
    assert set(phases) == {"cut", "finalize", "wait_launch", "load", "bind", "init", "objects"}, phases
    if r == 0:
        print("rank 0, last swap (s):", " ".join(f"{k} {v:.3f}" for k, v in phases.items()))
PY
    cat "$work/launch-$swaps.out"
    ;;
  refused)
    timeout 180 $(launcher "LD_PRELOAD=$shim" -- "$prog" swap) > "$work/refused.out" 2> "$work/refused.err" \
      && fail "the run did not stop"
    # Any rank's line: Hydra may drop the last lines of ranks it tears down after the abort.
    grep -qxE "yadokari: rank [0-9]+ cannot swap its MPI library: YADOKARI_SWAP_DIR is not set" "$work/refused.err" \
      || fail "no one-line reason"
    grep -q "^round 1 rank" "$work/refused.out" || fail "round 1 did not run"
    ;;
  exhausted)
    mkdir "$work/swap"
    timeout 180 $(launcher "LD_PRELOAD=$shim" "YADOKARI_SWAP_DIR=$work/swap" -- "$prog" swap-exhausted) \
      > "$work/exhausted.out" 2> "$work/exhausted.err" || fail "the job did not go on after the refusal"
    [ "$(grep -cxE "yadokari: rank [0-9]+ cannot swap its MPI library: cannot load .*/libyadokari-namespace-$flavour\.so into a new link namespace: .+" \
      "$work/exhausted.err")" -eq "$n" ] || fail "not one line per rank saying why"
    [ "$(grep -c "^round 2 " "$work/exhausted.out")" -ge "$n" ] || fail "round 2 did not run on every rank"
    [ "$(grep -c "the swap refused after [0-9]* namespaces were taken; the job went on" "$work/exhausted.out")" -eq "$n" ] \
      || fail "not every rank went on"
    ls "$work"/swap/rank-* >/dev/null 2>&1 && fail "a rank waited for a stand-in"
    head -1 "$work/exhausted.err"
    ;;
  no-kept)
    mkdir "$work/empty"
    timeout 60 $(launcher NONE=1 -- "$yadokari" stand-in --dir "$work/empty" --timeout 1) > "$work/no-kept.out" \
      2> "$work/no-kept.err" && fail "the stand-in did not fail"
    grep -q "^yadokari: stand-in: no kept process listens on $work/empty/rank-0.sock" "$work/no-kept.err" \
      || fail "no one-line reason"
    ;;
esac
echo "PASS: $mode"
