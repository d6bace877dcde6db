#!/usr/bin/env bash
# Can a process on a node that joined after the launch take a rank's place through Open MPI's
# connect/accept (issue 20)? On a simulated cluster of its own (n1, n2 at the launch, n3 added
# later), with an ompi-server on the frontend: a job of 2 ranks accepts a job of 1 rank on n3, which
# takes world rank 1's place while rank 1 leaves (bench/migration/dynamic_processes.c, modes
# accept/connect). Needs root (the simulated nodes are namespaces).
#
#   probe_connect_accept.sh [--build DIR]
#
#   --build   build tree holding bin/yadokari (default: <repo>/build)
#
# One line per case: case, the accepting job's placement, both launchers' exit status, what the
# processes printed ("ok ..." lines, or the first error line). Nothing is kept; about a minute.
set -uo pipefail
prog=probe_connect_accept.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../../build"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) [[ $# -ge 2 ]] || die "--build needs a value"; build=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
yk="$build/bin/yadokari"
[[ -x "$yk" ]] || die "no $yk (build first, or pass --build)"
(( EUID == 0 )) || die "needs root (simulated nodes are namespaces)"
command -v ompi-server >/dev/null || die "ompi-server not found (openmpi-bin)"

name=pca$$
work=$(mktemp -d "${TMPDIR:-/tmp}/probe-connect.XXXXXX")
chmod 755 "$work"  # the nodes' processes read the program and the server's URI file
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null
  "$yk" sim down --name "$name" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
mpicc.openmpi -O1 -o "$work/dp" "$here/dynamic_processes.c" || die "mpicc.openmpi failed"
"$yk" sim up --nodes 2 --slots 2 --name "$name" >/dev/null || die "sim up failed"
"$yk" sim add --name "$name" >/dev/null || die "sim add failed"  # n3: joins after the launch
eval "$("$yk" sim env --mpi openmpi --name "$name")"
host() { "$yk" sim list | awk -v c="$name" -v n="$1" '$1 == "cluster" { on = ($2 == c ":") } on && $1 == n { print $2 }'; }
n1=$(host n1) n2=$(host n2) n3=$(host n3)
"$yk" sim exec --name "$name" fe -- ompi-server --no-daemonize --report-uri "$work/uri" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do [[ -s "$work/uri" ]] && break; sleep 0.2; done
[[ -s "$work/uri" ]] || die "ompi-server wrote no URI"

# run_case <label> <node of the accepting launcher> <hosts of the accepting job> <how the leaver leaves>
# Each launcher runs inside the first node of its job, so that a one-node job has no remote daemon.
run_case() {
  local label=$1 node=$2 hosts=$3 how=$4 rc_a rc_b summary
  rm -f "$work/a.log" "$work/b.log"
  (cd "$work" && "$yk" sim exec --name "$name" "$node" -- timeout -k 5 60 mpirun.openmpi \
      --ompi-server "file:$work/uri" --enable-recovery --bind-to none --host "$hosts" -n 2 "$work/dp" accept "$how" \
      >"$work/a.log" 2>&1; echo "$?" >"$work/a.rc") &
  local accepting=$!
  for _ in $(seq 150); do grep -q '^ok published' "$work/a.log" 2>/dev/null && break; [[ -e "$work/a.rc" ]] && break; sleep 0.2; done
  (cd "$work" && "$yk" sim exec --name "$name" n3 -- timeout -k 5 60 mpirun.openmpi \
      --ompi-server "file:$work/uri" --bind-to none --host "$n3:1" -n 1 "$work/dp" connect >"$work/b.log" 2>&1)
  rc_b=$?
  wait "$accepting"
  rc_a=$(cat "$work/a.rc" 2>/dev/null || echo "?")
  rm -f "$work/a.rc"
  summary=$(cat "$work/a.log" "$work/b.log" | grep -E '^ok (host|survivor|leaver)' | sed 's/ (the others.*//' | sort | uniq -c |
    sed 's/^ *//' | paste -sd';' -)
  [[ -z "$summary" ]] && summary=$(cat "$work/a.log" "$work/b.log" | grep -m1 -iE 'error|abort|lost|signal|exited' | cut -c1-110)
  printf '%-22s %-34s exit %-3s/%-3s %s\n' "$label" "$hosts" "$rc_a" "$rc_b" "$summary"
}

run_case one-node-job-exit n1 "$n1:2" exit
run_case one-node-job-finalize n1 "$n1:2" finalize
run_case two-node-job-exit n1 "$n1:1,$n2:1" exit
