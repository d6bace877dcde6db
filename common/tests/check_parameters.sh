#!/usr/bin/env bash
# The parameter table is one: docs/CONTRACTS.md carries exactly what common/parameters.hpp prints,
# every "YADOKARI_*" name the product's C code uses is in it, and its C++ code uses the constants.
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
# C++ code names a variable by its constant (yadokari::parameters::kCkptDir), never by a literal.
literals=$(cd "$src" && git ls-files -- '*.cpp' '*.hpp' ':!:*tests/*' ':!:common/parameters.hpp' |
  xargs grep -nE '^[^/]*"YADOKARI_[A-Z0-9_]+"' || true)
if [[ -n "$literals" ]]; then
  echo "FAIL: a YADOKARI_* literal in C++ code; use its constant from common/parameters.hpp:"
  echo "$literals"
  status=1
fi
used=$(cd "$src" && git ls-files -- '*.c' '*.h' ':!:*tests/*' |
  xargs grep -ohE '"YADOKARI_[A-Z0-9_]+"' | tr -d '"' | sort -u || true)
missing=$(comm -23 <(echo "$used") <(echo "$known"))
if [[ -n "$missing" ]]; then
  echo "FAIL: read by the code but not in common/parameters.hpp: $(echo $missing)"
  status=1
fi
[[ $status == 0 ]] && echo "parameters: $(echo "$known" | wc -l) in the table, docs and code agree"
exit $status
