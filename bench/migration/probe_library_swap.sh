#!/usr/bin/env bash
# Can a rank stay in its process (same pid, same memory) while another rank moves to a node that
# joined after the launch, with neither MPI's dynamic processes (issue 20)? On a simulated cluster
# of its own (n1, n2 at the launch, n3 added later): a first launch of 2 ranks, rank 0 on n1 and
# rank 1 on n2; both finalize, rank 1 exits, rank 0's process stays and the first launch's
# launcher and daemons are killed (SIGKILL: they cannot take the kept process with them). Then
# SWAPS times a new launch of 2 ranks: on n1 a stand-in that hands the launch's PMI/PMIx variables,
# PMI socket and standard streams to the kept process, which loads a fresh copy of the MPI library
# into a new link namespace (dlmopen) and initializes it as rank 0; on n3 a new process as rank 1
# (--same-node: on n1; the kept process lists the /dev/shm files it maps, the shared memory).
# (bench/migration/library_swap.c). Needs root (the simulated nodes are namespaces).
#
#   probe_library_swap.sh [--build DIR] [--mpi mpich|openmpi|both] [--swaps N] [--rebind] [--same-node]
#
#   --build   build tree holding bin/yadokari (default: <repo>/build)
#   --swaps   launches the kept process goes through (default 3)
#   --rebind  the kept process also points its own MPI_* calls (its GOT entries) at each copy and
#             calls the copy through them (library_swap.c, rebind_to_copy)
#   --same-node  the new process starts on n1, beside the kept one, instead of on n3
#
# Prints the processes' "ok ..." lines (host, pid, the value the kept process kept in memory, the sum
# over the new world, the time to load the copy and to initialize it), the time from each launch's
# start to the kept process running in the new world, and one verdict line per MPI.
# Nothing is kept; about a minute.
set -uo pipefail
prog=probe_library_swap.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../../build"
mpi=both
swaps=3
same_node=""
export PROBE_REBIND=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) [[ $# -ge 2 ]] || die "--build needs a value"; build=$2; shift 2 ;;
    --mpi) [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    --swaps) [[ $# -ge 2 ]] || die "--swaps needs a value"; swaps=$2; shift 2 ;;
    --rebind) PROBE_REBIND=1; shift ;;
    --same-node) same_node=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
case "$mpi" in
  openmpi | mpich) flavours=("$mpi") ;;
  both) flavours=(mpich openmpi) ;;
  *) die "unknown --mpi '$mpi' (openmpi, mpich or both)" ;;
esac
[[ "$swaps" =~ ^[1-9][0-9]*$ ]] || die "--swaps needs a positive whole number, got '$swaps'"
yk="$build/bin/yadokari"
[[ -x "$yk" ]] || die "no $yk (build first, or pass --build)"
(( EUID == 0 )) || die "needs root (simulated nodes are namespaces)"

name=pls$$
work=$(mktemp -d "${TMPDIR:-/tmp}/probe-swap.XXXXXX")
chmod 755 "$work"  # the nodes' processes run the programs and use the kept process's socket
first_launcher=""
cleanup() {
  [[ -n "$first_launcher" ]] && kill -9 "$first_launcher" 2>/dev/null
  "$yk" sim down --name "$name" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
"$yk" sim up --nodes 2 --slots 2 --name "$name" >/dev/null || die "sim up failed"
"$yk" sim add --name "$name" >/dev/null || die "sim add failed"  # n3: joins after the first launch
host() { "$yk" sim list | awk -v c="$name" -v n="$1" '$1 == "cluster" { on = ($2 == c ":") } on && $1 == n { print $2 }'; }
n1=$(host n1) n2=$(host n2) n3=$(host n3)
# Where the new process goes, and the later launches' host lists (one slot each, or n1's two).
moved_to=$n3 kept_slots=$n1:1 moved_slots=$n3:1
[[ -n "$same_node" ]] && moved_to=$n1 kept_slots=$n1:2 moved_slots=$n1:2
agent=/run/yadokari/sim/$name/agent

descendants() { local c; for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done; }

# probe <flavour>: the first launch, then $swaps launches; prints the lines and a verdict.
probe() {
  local fl=$1 d="$work/$1" first=() next=() i rc ok=0
  mkdir -p "$d" && chmod 755 "$d"
  eval "$("$yk" sim env --mpi "$fl" --name "$name")"  # sim_launch, the rsh agent's settings
  if [[ $fl == mpich ]]; then
    mpicc.mpich -O1 -o "$d/swap" "$here/library_swap.c" -ldl || die "mpicc.mpich failed"
    local common=(mpiexec.mpich -launcher ssh -launcher-exec "$agent")
    first=("${common[@]}" -hosts "$n1:1,$n2:1" -n 2 "$d/swap" first "$d")
    # Hydra takes one host list for all executables: rank 0 fills n1's first slot, rank 1 the next.
    local hosts="$n1:1,$n3:1"
    [[ -n "$same_node" ]] && hosts="$n1:2"
    next=("${common[@]}" -hosts "$hosts" -n 1 "$d/swap" standin "$d" : -n 1 "$d/swap" fresh "$d")
  else
    mpicc.openmpi -O1 -o "$d/swap" "$here/library_swap.c" -ldl || die "mpicc.openmpi failed"
    mpicc.openmpi -shared -fPIC -O1 -Wl,--no-as-needed -o "$d/namespace_dlopen.so" "$here/namespace_dlopen.c" -ldl ||
      die "mpicc.openmpi (namespace_dlopen.so) failed"
    local common=(mpirun.openmpi --bind-to none)
    first=("${common[@]}" -x PROBE_SWAPS -x PROBE_NAMESPACE_PRELOAD -x PROBE_REBIND --host "$n1:1,$n2:1" -n 2 "$d/swap" first "$d")
    next=("${common[@]}" --host "$kept_slots" -n 1 "$d/swap" standin "$d" : --host "$moved_slots" -n 1 "$d/swap" fresh "$d")
    export PROBE_NAMESPACE_PRELOAD="$d/namespace_dlopen.so"
  fi
  export PROBE_SWAPS=$swaps
  # shellcheck disable=SC2154  # sim_launch comes from sim env
  (cd "$d" && exec $sim_launch timeout 300 "${first[@]}" >"$d/first.log" 2>&1) &
  first_launcher=$!
  for _ in $(seq 600); do [[ -s "$d/keep-0.pid" ]] && break; sleep 0.2; done
  [[ -s "$d/keep-0.pid" ]] || { echo "$fl: no kept process:"; sed 's/^/  | /' "$d/first.log"; return; }
  local kept
  kept=$(cat "$d/keep-0.pid")
  sleep 0.5  # rank 1 exits
  # The kept process's parent first: Open MPI's orted on n1 is not below this launcher (the rsh
  # agent's child), and once it sees the launcher gone it would SIGTERM the processes it started.
  kill -9 "$(ps -o ppid= -p "$kept")" 2>/dev/null
  # shellcheck disable=SC2046
  kill -9 $(descendants "$first_launcher" | grep -vx "$kept") "$first_launcher" 2>/dev/null
  wait "$first_launcher" 2>/dev/null
  first_launcher=""
  sed 's/^/  /' "$d/first.log" | grep -E '^  ok '
  for i in $(seq "$swaps"); do
    local started
    started=$(date +%s.%N)
    (cd "$d" && $sim_launch timeout -k 5 60 "${next[@]}" >"$d/next-$i.log" 2>&1)
    rc=$?
    # From the launch's start to the kept process running in the new world (after its copy's
    # MPI_Init): what the launch, the hand-over and the copy cost a rank that stays.
    awk -v t0="$started" -v i="$i" '$1 == "ok" && $2 == "kept" && $5 == "in" { printf "  launch %d: the kept process was in the new world %.3f s after the launch started\n", i, $NF - t0 }' "$d/next-$i.log"
    grep -E '^ok (kept|fresh)' "$d/next-$i.log" | sed 's/^/  /'
    [[ $rc -eq 0 ]] && grep -q "^ok kept swap $i pid=$kept .* rank 0 of 2; kept value 1001; sum 1;" "$d/next-$i.log" &&
      grep -q "^ok fresh .*host $moved_to: rank 1 of 2; sum 1" "$d/next-$i.log" && ok=$((ok + 1))
    [[ $rc -eq 0 ]] || { echo "  launch $i: exit $rc"; grep -v '^ok' "$d/next-$i.log" | head -5 | sed 's/^/  | /'; }
  done
  echo "$fl: $ok of $swaps launches took the kept process (pid $kept, on $n1) as rank 0 and a new process on $moved_to as rank 1"
  kill -9 "$kept" 2>/dev/null
}

for fl in "${flavours[@]}"; do probe "$fl"; done
