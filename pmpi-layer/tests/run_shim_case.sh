#!/usr/bin/env bash
# One shim integration case, launched directly with the MPI launcher and LD_PRELOAD (no CLI),
# so a failure points at the shim alone.
#   run_shim_case.sh MODE FLAVOUR NRANKS SHIM PROGRAM [ARGS...]
# MODE:
#   compare        stdout under the shim == stdout of a native run; both exit 0
#   unsupported    the run fails and stderr has the shim's one-line "not supported" message
#   stats          YADOKARI_STATS files exist for every rank with non-zero point-to-point counts
#   wrong-abi      SHIM is the other flavour's shim: clear one-line error, non-zero exit
#   replay         like drain, for the re-creation of MPI objects from their recipes
#   drain          like compare (lines sorted: ranks print concurrently), and every rank drained messages
#   state          like drain, for the shim's state saved, forgotten and loaded back mid-run
#   f08            like drain, for a `use mpi_f08` program: the stats count every call it makes
set -u
mode=$1 flavour=$2 n=$3 shim=$4 prog=$5
shift 5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

launch() {  # launch ENV_ASSIGNMENTS... -- PROGRAM ARGS
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  if [ "$flavour" = openmpi ]; then
    local xs=()
    for e in "${envs[@]}"; do export "${e?}"; xs+=(-x "${e%%=*}"); done
    timeout 180 mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none -n "$n" "${xs[@]}" "$@"
  else
    local gs=()
    for e in "${envs[@]}"; do gs+=(-genv "${e%%=*}" "${e#*=}"); done
    timeout 180 mpiexec.mpich -n "$n" "${gs[@]}" "$@"
  fi
}

fail() { echo "FAIL: $*"; exit 1; }

# A native run and a run under the shim (with stats) print the same lines; ranks print
# concurrently, so the lines are compared sorted.
same_sorted_output_with_stats() {
  (launch NONE=1 -- "$prog" "$@") > "$work/native.out" 2> "$work/native.err" || { cat "$work/native.err"; fail "native run failed"; }
  (launch "LD_PRELOAD=$shim" "YADOKARI_STATS=$work/stats" -- "$prog" "$@") > "$work/shim.out" 2> "$work/shim.err" \
    || { cat "$work/shim.err"; fail "run under the shim failed"; }
  sort "$work/native.out" > "$work/native.sorted"; sort "$work/shim.out" > "$work/shim.sorted"
  diff -u "$work/native.sorted" "$work/shim.sorted" || fail "output differs under the shim"
}

case $mode in
  compare)
    (launch NONE=1 -- "$prog" "$@") > "$work/native.out" 2> "$work/native.err" || { cat "$work/native.err"; fail "native run failed"; }
    (launch "LD_PRELOAD=$shim" -- "$prog" "$@") > "$work/shim.out" 2> "$work/shim.err" || { cat "$work/shim.err"; fail "run under the shim failed"; }
    diff -u "$work/native.out" "$work/shim.out" || fail "output differs under the shim"
    [ -s "$work/native.out" ] || fail "program printed nothing"
    cat "$work/shim.out"
    ;;
  drain)
    # Same output as a native run (where the cut is skipped), and the cut really drained messages.
    same_sorted_output_with_stats "$@"
    python3 - "$work/stats" "$n" <<'PY' || fail "the cut drained nothing"
import json, pathlib, sys
d, n = pathlib.Path(sys.argv[1]), int(sys.argv[2])
drained = [json.loads((d / f"rank-{r}.json").read_text())["messages_drained_at_cuts"] for r in range(n)]
# Tags 1 (twice), 2, 3 and the first 5 were in flight at every rank; tag 99 was matched by a
# posted receive.
assert all(x == 5 for x in drained), drained
print("drained per rank:", drained)
PY
    ;;
  replay)
    # Same output as a native run (where the replay is skipped), and objects were re-created.
    same_sorted_output_with_stats "$@"
    python3 - "$work/stats" <<'PY' || fail "nothing was replayed"
import json, pathlib, sys
replayed = json.loads((pathlib.Path(sys.argv[1]) / "rank-0.json").read_text())["objects_replayed"]
# split, group x3, create, cart x2, types x2, op, errhandler; none of the 15,000 made and freed
assert replayed == 11, replayed
print("objects re-created from the log:", replayed)
PY
    ;;
  state)
    # Same output as a native run (where the round trip is skipped); the stats show that the
    # state came back: messages were drained, objects re-created, and the call counts go on
    # from before the round trip (MPI_Init counted once, every send of the program counted).
    same_sorted_output_with_stats "$@"
    python3 - "$work/stats" "$n" <<'PY' || fail "stats after the state round trip"
import json, pathlib, sys
d, n = pathlib.Path(sys.argv[1]), int(sys.argv[2])
for r in range(n):
    j = json.loads((d / f"rank-{r}.json").read_text())
    assert j["messages_drained_at_cuts"] >= 3, (r, j["messages_drained_at_cuts"])
    # dup x2, split, cart, distributed graph, group x2, types x4 (one freed, kept by persistent
    # requests), op, errhandler x3 (one freed, kept by the communicator it is set on), info
    assert j["objects_replayed"] == 16, (r, j["objects_replayed"])
    calls = j["calls"]
    assert calls.get("MPI_Init", 0) == 1, calls
    assert calls.get("MPI_Irecv", 0) == 8 and calls.get("MPI_Send_init", 0) == 2, calls
print("state round trip: drained", [json.loads((d / f"rank-{r}.json").read_text())["messages_drained_at_cuts"] for r in range(n)])
PY
    ;;
  f08)
    # Same output as a native run, and every call of programs/fortran_f08_calls.f90 reached the
    # shim exactly once (a call through a binding the shim does not see would be missing).
    # MPI_Comm_get_attr is not counted: MPICH's Fortran layers reach the shim through
    # MPII_Comm_get_attr (src/fortran/mpich_fortran_internals.cpp); the output shows its answer.
    same_sorted_output_with_stats "$@"
    python3 - "$work/stats" "$n" <<'PY' || fail "use mpi_f08 calls not seen by the shim"
import json, pathlib, sys
d, n = pathlib.Path(sys.argv[1]), int(sys.argv[2])
once = ["MPI_Init", "MPI_Initialized", "MPI_Comm_size", "MPI_Comm_split", "MPI_Comm_set_name",
        "MPI_Comm_get_name", "MPI_Irecv", "MPI_Isend", "MPI_Wait", "MPI_Testall", "MPI_Send", "MPI_Probe",
        "MPI_Iprobe", "MPI_Recv", "MPI_Type_vector", "MPI_Type_commit", "MPI_Sendrecv", "MPI_Op_create",
        "MPI_Barrier", "MPI_Op_free", "MPI_Type_free", "MPI_Comm_free"]
for r in range(n):
    calls = json.loads((d / f"rank-{r}.json").read_text())["calls"]
    wrong = {f: calls.get(f, 0) for f in once if calls.get(f, 0) != 1}
    wrong.update({f: calls.get(f, 0) for f in ["MPI_Allreduce"] if calls.get(f, 0) != 2})
    if calls.get("MPI_Test", 0) < 1:
        wrong["MPI_Test"] = 0
    assert not wrong, (r, wrong, calls)
print("every use mpi_f08 call counted once on", n, "ranks")
PY
    ;;
  unsupported)
    (launch "LD_PRELOAD=$shim" -- "$prog" "$@") > "$work/out" 2> "$work/err"
    code=$?
    [ "$code" = 0 ] && fail "run succeeded"
    expected='yadokari: MPI_Win_create (C binding) is not supported by yadokari; the job cannot continue (see pmpi-layer/README.md, "Coverage")'
    grep -qxF "$expected" "$work/err" || {
      echo "exit $code; stderr:"; cat "$work/err"; echo "stdout:"; cat "$work/out"
      fail "missing message: $expected"
    }
    grep -q "not reached" "$work/out" && fail "program went on after the unsupported call"
    echo "ok: $expected"
    ;;
  stats)
    (launch "LD_PRELOAD=$shim" "YADOKARI_STATS=$work/stats" -- "$prog" "$@") > /dev/null 2> "$work/err" || { cat "$work/err"; fail "run failed"; }
    python3 - "$work/stats" "$n" <<'PY' || fail "stats check"
import json, pathlib, sys
d, n = pathlib.Path(sys.argv[1]), int(sys.argv[2])
for r in range(n):
    j = json.loads((d / f"rank-{r}.json").read_text())
    assert j["logical_rank"] == r, j["logical_rank"]
    assert j["calls"].get("MPI_Init", 0) + j["calls"].get("MPI_Init_thread", 0) == 1, j["calls"]
    if n > 1:
        t = j["totals"]
        assert t["messages_sent"] > 0 and t["messages_received"] > 0, t
        assert sum(j["traffic_by_world_peer"]["bytes_sent"]) == t["bytes_sent"], j["traffic_by_world_peer"]
        assert j["traffic_by_world_peer"]["bytes_sent"][r] == 0 or True
    assert j["memory_layer"] is False and j["checkpoints_armed"] is False, j
print("stats ok for", n, "ranks")
PY
    # The memory layer on without a front end: nothing can request a checkpoint, so the blocking
    # calls stay plain (what bench/shim_overhead's 'tracked' variant measures).
    (launch "LD_PRELOAD=$shim" "YADOKARI_MEMORY=on" "YADOKARI_STATS=$work/stats-layer" -- "$prog" "$@") > /dev/null 2> "$work/err" || { cat "$work/err"; fail "run with the memory layer failed"; }
    python3 - "$work/stats-layer" "$n" <<'PY' || fail "stats check with the memory layer on"
import json, pathlib, sys
d, n = pathlib.Path(sys.argv[1]), int(sys.argv[2])
for r in range(n):
    j = json.loads((d / f"rank-{r}.json").read_text())
    assert j["memory_layer"] is True and j["checkpoints_armed"] is False, j
print("memory layer on, blocking calls not armed, for", n, "ranks")
PY
    ;;
  wrong-abi)
    if (launch "LD_PRELOAD=$shim" -- "$prog" "$@") > "$work/out" 2> "$work/err"; then fail "run succeeded"; fi
    grep -qE '^yadokari: this shim \(libyadokari-(openmpi|mpich)\.so\) is built for (Open MPI|MPICH) but the program uses .*; launch it with `yadokari run`, which picks the matching shim$' "$work/err" \
      || { cat "$work/err"; fail "missing ABI message"; }
    head -n1 "$work/err"
    ;;
  *) fail "unknown mode $mode" ;;
esac
