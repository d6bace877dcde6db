#include "checkpoint/memory/src/diag.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace yadokari::memory {

void say(const char* a, const char* b, const char* c, const char* d) {
  char line[1024];
  std::size_t n = 0;
  for (const char* s : {"yadokari: ", a, b, c, d}) {
    std::size_t l = std::strlen(s);
    if (l > sizeof line - 2 - n) l = sizeof line - 2 - n;
    std::memcpy(line + n, s, l);
    n += l;
  }
  line[n++] = '\n';
  ssize_t ignored = write(2, line, n);
  (void)ignored;
}

void fatal(const char* what) {
  say(what);
  std::abort();
}

char* format_hex(char* out, const unsigned char* bytes, int n) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < n; ++i) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 15];
  }
  out[2 * n] = 0;
  return out;
}

char* format_u64(char* out, unsigned long long v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  for (int i = 0; i < n; ++i) out[i] = tmp[n - 1 - i];
  out[n] = 0;
  return out;
}

char* format_x64(char* out, unsigned long long v) {
  static const char digits[] = "0123456789abcdef";
  char tmp[17];
  int n = 0;
  do {
    tmp[n++] = digits[v & 15];
    v >>= 4;
  } while (v);
  out[0] = '0';
  out[1] = 'x';
  for (int i = 0; i < n; ++i) out[2 + i] = tmp[n - 1 - i];
  out[2 + n] = 0;
  return out;
}

}  // namespace yadokari::memory
