# shellcheck shell=bash
# Sourced by the NPB scripts. Native MPICH over TCP may hang in MPI_Finalize after NPB has printed
# its complete report (docs/platform.md §1, "MPICH's finalize over TCP"; yadokari jobs do not, the
# MPICH shim prevents it): such a run is stopped a grace period after its output, and its time is
# taken up to the output, instead of waiting out the watchdog.
#
# wait_with_grace PID LOG GRACE
#   Waits for PID (a child of this shell, e.g. a 'timeout' process) to end. If LOG shows NPB's
#   "Verification =" line and PID is still alive GRACE seconds later, stops it with SIGTERM.
#   Sets rc (PID's exit status), hung (1 if it was stopped that way, else empty) and output_at
#   (date +%s.%N when the line was first seen, empty if never). Returns 0 if the line was printed.
#   The wait itself is a plain 'wait', so a run that ends by itself is timed exactly; the polling
#   happens in a watcher process.
wait_with_grace() {
  local pid=$1 logf=$2 grace=$3 mark watcher state="" seen_at=""
  mark=$(mktemp "${TMPDIR:-/tmp}/finalize-grace.XXXXXX")
  (
    seen=""
    while kill -0 "$pid" 2>/dev/null; do
      if [[ -z "$seen" ]] && grep -Eq "Verification +=" "$logf" 2>/dev/null; then
        seen=$(date +%s.%N)
        echo "seen $seen" >"$mark"
      fi
      if [[ -n "$seen" ]] && awk -v a="$seen" -v b="$(date +%s.%N)" -v g="$grace" 'BEGIN { exit !(b - a > g) }'; then
        echo "hung $seen" >"$mark"
        kill -TERM "$pid" 2>/dev/null
        break
      fi
      sleep 0.1
    done
  ) &
  watcher=$!
  wait "$pid"
  rc=$?
  kill "$watcher" 2>/dev/null
  wait "$watcher" 2>/dev/null
  read -r state seen_at <"$mark" 2>/dev/null
  rm -f "$mark"
  hung=""; output_at=$seen_at
  [[ $state == hung ]] && hung=1
  if grep -Eq "Verification +=" "$logf" 2>/dev/null; then
    [[ -n "$output_at" ]] || output_at=$(date +%s.%N)  # ended before the watcher looked
    return 0
  fi
  return 1
}
