#!/usr/bin/env bash
# bench/dmtcp/npb_dmtcp.sh without DMTCP_ROOT: one line, exit 0.
set -uo pipefail
s=$(cd "$(dirname "$0")/.." && pwd)/dmtcp/npb_dmtcp.sh
out=$(env -u DMTCP_ROOT "$s" --npb-dir /nonexistent 2>&1); rc=$?
[[ $rc == 0 && "$out" == "bench: DMTCP_ROOT not set; skipping the DMTCP comparison" ]] || { echo "FAIL: rc $rc '$out'"; exit 1; }
echo ok
