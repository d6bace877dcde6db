// The executable's writable data and what must stay fresh in it, read from this test binary,
// which references stderr and std::cout (both copy-relocated from libc / libstdc++).
#include <catch2/catch.hpp>

#include <cstdio>
#include <iostream>
#include <string>

#include "checkpoint/memory/src/exe_layout.hpp"

using namespace yadokari::memory;

namespace {
int g_writable_probe = 42;

bool has(const ExeLayout& l, const std::string& name) {
  for (const auto& r : l.excluded)
    if (r.name.find(name) != std::string::npos) return true;
  return false;
}

bool covers(const std::vector<Range>& rs, std::uintptr_t a) {
  for (const auto& r : rs)
    if (a >= r.lo && a < r.hi) return true;
  return false;
}
}  // namespace

TEST_CASE("exe layout: copy relocations, GOT and RELRO are excluded", "[exe]") {
  ExeLayout l;
  std::string error;
  REQUIRE(read_exe_layout(l, error));
  CHECK(has(l, "stderr (copy reloc)"));
  CHECK(has(l, "_ZSt4cout (copy reloc)"));
  CHECK(has(l, ".got"));
  CHECK(has(l, "RELRO"));
  std::vector<Range> kept = subtract(l.writable, l.excluded);
  auto addr = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
  CHECK(covers(l.writable, addr(&stderr)));
  CHECK_FALSE(covers(kept, addr(&stderr)));
  CHECK_FALSE(covers(kept, addr(&std::cout)));
  CHECK(covers(kept, addr(&g_writable_probe)));
  std::fprintf(stderr, "%s", "");  // keep the reference
}

TEST_CASE("exe layout: range subtraction", "[exe]") {
  std::vector<Range> from{{100, 200}, {300, 400}};
  std::vector<NamedRange> minus{{150, 160, "a"}, {190, 310, "b"}, {390, 500, "c"}};
  std::vector<Range> got = subtract(from, minus);
  REQUIRE(got.size() == 3);
  CHECK((got[0].lo == 100 && got[0].hi == 150));
  CHECK((got[1].lo == 160 && got[1].hi == 190));
  CHECK((got[2].lo == 310 && got[2].hi == 390));
}
