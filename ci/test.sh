#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine (as root): dependencies, build, ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
bash ci/build.sh
cd build
# Tests that launch MPI jobs run one at a time (RUN_SERIAL); the machine has 2 cores.
ctest --output-on-failure -j2 --timeout 600
