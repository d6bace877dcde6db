#!/usr/bin/env bash
# The parameter table is one: docs/CONTRACTS.md carries exactly what common/parameters.hpp prints,
# and every "YADOKARI_*" name the product's C/C++ code uses is in it.
# Usage: check_parameters.sh <print_parameters executable> <source dir>
set -euo pipefail
printer=$1
src=$2
status=0

expected=$("$printer")
actual=$(sed -n '/<!-- parameters:begin -->/,/<!-- parameters:end -->/p' "$src/docs/CONTRACTS.md" | sed '1d;$d')
if [[ "$expected" != "$actual" ]]; then
  echo "FAIL: docs/CONTRACTS.md's parameter table differs from common/parameters.hpp; print it with $printer"
  diff <(echo "$expected") <(echo "$actual") || true
  status=1
fi

known=$(echo "$expected" | grep -oE '^\| `YADOKARI_[A-Z0-9_]+`' | tr -d '|` ' | sort -u)
used=$(cd "$src" && git ls-files -- '*.cpp' '*.hpp' '*.c' '*.h' ':!:*tests/*' |
  xargs grep -ohE '"YADOKARI_[A-Z0-9_]+"' | tr -d '"' | sort -u)
missing=$(comm -23 <(echo "$used") <(echo "$known"))
if [[ -n "$missing" ]]; then
  echo "FAIL: read by the code but not in common/parameters.hpp: $(echo $missing)"
  status=1
fi
[[ $status == 0 ]] && echo "parameters: $(echo "$known" | wc -l) in the table, docs and code agree"
exit $status
