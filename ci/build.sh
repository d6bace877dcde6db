#!/usr/bin/env bash
# Configures and builds yadokari into ./build (warnings are errors, as in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DYADOKARI_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"
