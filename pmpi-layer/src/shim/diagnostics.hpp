// One-line messages from a rank. Formatted first and written with a single write(2): stderr is
// unbuffered, and with several ranks failing at once a line printed piecewise would interleave
// with the others' (tests match the exact line).
#pragma once

#include <unistd.h>

#include <cstdarg>
#include <cstdio>

namespace yadokari::shim {

__attribute__((format(printf, 1, 2))) inline void print_line(const char* format, ...) {
  char line[1024];
  va_list args;
  va_start(args, format);
  int n = std::vsnprintf(line, sizeof line - 1, format, args);
  va_end(args);
  if (n < 0) return;
  if (n > static_cast<int>(sizeof line) - 2) n = static_cast<int>(sizeof line) - 2;
  line[n] = '\n';
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line, static_cast<std::size_t>(n) + 1);
}

}  // namespace yadokari::shim
