#!/usr/bin/env bash
# The C and C++ sources follow .clang-format: any file clang-format would change fails the test,
# with the command that fixes it. Usage: check_format.sh SOURCE_DIR
set -euo pipefail
src=$1
command -v clang-format >/dev/null || { echo "FAIL: clang-format is not installed (ci/install-deps.sh installs it)"; exit 1; }
cd "$src"
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "FAIL: ${#bad[@]} file(s); fix with: clang-format -i ${bad[*]}"
  exit 1
fi
echo "format: ${#files[@]} files follow .clang-format"
