#!/usr/bin/env bash
# bench/dmtcp/simulate_npb_image.sh and dmtcp_npb_image.sh: their setup errors, one exact line and
# exit 2, before anything is run (no DMTCP, NPB or MPI needed).
set -uo pipefail
dir=$(cd "$(dirname "$0")/.." && pwd)/dmtcp
empty=$(mktemp -d)
trap 'rm -rf "$empty"' EXIT
fail=0
expect() {  # expect SCRIPT "LINE" ARGS...
  local script=$1 line=$2
  shift 2
  local out rc
  out=$(env -u DMTCP_ROOT -u NPB_DIR bash "$dir/$script" "$@" 2>&1); rc=$?
  if [[ $rc != 2 || "$out" != "$line" ]]; then
    echo "FAIL: $script $*: rc $rc, '$out' (expected 2, '$line')"
    fail=1
  fi
}
for script in simulate_npb_image.sh dmtcp_npb_image.sh; do
  expect "$script" "$script: error: --dmtcp (or DMTCP_ROOT) is required" --npb-dir "$empty"
  expect "$script" "$script: error: --npb-dir (or NPB_DIR) is required" --dmtcp "$empty"
  expect "$script" "$script: error: unknown argument '--bogus'" --bogus
  expect "$script" "$script: error: --np needs a value" --np
done
expect simulate_npb_image.sh "simulate_npb_image.sh: error: $empty/bin/mtcp_restart not found" \
  --dmtcp "$empty" --npb-dir "$empty"
expect dmtcp_npb_image.sh "dmtcp_npb_image.sh: error: $empty/bin/dmtcp_launch not found" \
  --dmtcp "$empty" --npb-dir "$empty"
((fail == 0)) && echo ok
exit "$fail"
