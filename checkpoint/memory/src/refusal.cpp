#include "checkpoint/memory/src/refusal.hpp"

#include <cstring>
#include <initializer_list>

#include "checkpoint/memory/memory.h"
#include "common/export.hpp"
#include "checkpoint/memory/src/diag.hpp"

namespace yadokari::memory {
namespace {

constexpr int kMaxChecks = 32;
RefusalCheck g_checks[kMaxChecks];
int g_check_count;

char g_text[8192];  // every problem of the last refusal, one per line
std::size_t g_length;

void append(const char* s) {
  std::size_t l = std::strlen(s);
  if (l > sizeof g_text - 1 - g_length) l = sizeof g_text - 1 - g_length;
  std::memcpy(g_text + g_length, s, l);
  g_length += l;
  g_text[g_length] = 0;
}

}  // namespace

void register_refusal_check(RefusalCheck check) {
  if (g_check_count == kMaxChecks) fatal("too many refusal checks registered (raise kMaxChecks)");
  g_checks[g_check_count++] = check;
}

void refusal_add(const char* a, const char* b, const char* c, const char* d) {
  const std::size_t start = g_length ? g_length + 1 : 0;
  if (g_length) append("\n");
  for (const char* s : {a, b, c, d}) append(s);
  say("checkpoint refused: ", g_text + (start <= g_length ? start : g_length));
}

void refusal_begin() {
  g_length = 0;
  g_text[0] = 0;
}

bool refusal_run_checks() {
  for (int i = 0; i < g_check_count; ++i) g_checks[i]();
  return g_length == 0;
}

const char* refusal_text() { return g_text; }

}  // namespace yadokari::memory

YK_C_API const char* yk_mem_refusal(void) { return yadokari::memory::refusal_text(); }
