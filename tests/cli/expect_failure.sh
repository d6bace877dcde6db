#!/bin/sh
# usage: expect_failure.sh EXIT_CODE STDERR_LINE COMMAND [ARGS...]
# Passes when COMMAND exits with EXIT_CODE and writes exactly STDERR_LINE (one line) to stderr.
expected_code=$1
expected_stderr=$2
shift 2
stderr_file=$(mktemp)
"$@" >/dev/null 2>"$stderr_file"
code=$?
lines=$(wc -l <"$stderr_file")
actual=$(cat "$stderr_file")
rm -f "$stderr_file"
status=0
if [ "$code" != "$expected_code" ]; then
  echo "exit code: expected $expected_code, got $code"
  status=1
fi
if [ "$actual" != "$expected_stderr" ] || [ "$lines" != 1 ]; then
  echo "stderr: expected exactly one line:"
  echo "  $expected_stderr"
  echo "got $lines line(s):"
  printf '%s\n' "$actual" | sed 's/^/  /'
  status=1
fi
exit $status
