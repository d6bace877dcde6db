# shellcheck shell=bash
# Sourced by the benchmarks that compare shim variants. Each rank's YADOKARI_STATS file says whether
# the memory layer ran and the blocking calls were armed (pmpi-layer/README.md, "YADOKARI_STATS"):
# a variant must be what it claims before it is timed or compared.
#
# expected_state VARIANT
#   Prints "<memory_layer> <checkpoints_armed>" as the ranks of VARIANT must report them: "True
#   False" for tracked (the layer preloaded without a front end), "True True" for armed and the
#   periodic-* variants, "False False" for every other.
# reported_state DIR
#   Prints the distinct "<memory_layer> <checkpoints_armed>" pairs of the stats files in DIR, one per
#   line ("?" for a field a shim older than these fields does not write).
expected_state() {
  case "$1" in
    tracked) echo "True False" ;;
    armed | periodic-*) echo "True True" ;;
    *) echo "False False" ;;
  esac
}
reported_state() {
  /usr/bin/python3 -c 'import json, pathlib, sys
for f in sorted(pathlib.Path(sys.argv[1]).iterdir()):
    j = json.loads(f.read_text())
    print(j.get("memory_layer", "?"), j.get("checkpoints_armed", "?"))' "$1" | sort -u
}
