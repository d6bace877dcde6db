// YADOKARI_KEEP.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "checkpoint/storage/keep_policy.hpp"
#include "checkpoint/storage/storage_error.hpp"

using namespace yadokari::storage;

namespace {

struct KeepVariable {
  explicit KeepVariable(const char* value) {
    if (value)
      setenv("YADOKARI_KEEP", value, 1);
    else
      unsetenv("YADOKARI_KEEP");
  }
  ~KeepVariable() { unsetenv("YADOKARI_KEEP"); }
};

}  // namespace

TEST_CASE("YADOKARI_KEEP defaults to 2", "[storage][keep]") {
  const KeepVariable unset(nullptr);
  CHECK(keep_from_environment() == 2);
  const KeepVariable empty("");
  CHECK(keep_from_environment() == 2);
}

TEST_CASE("YADOKARI_KEEP takes a whole number of at least 1", "[storage][keep]") {
  {
    const KeepVariable five("5");
    CHECK(keep_from_environment() == 5);
  }
  for (const char* bad : {"0", "-1", "two", "3x", " 3"}) {
    const KeepVariable variable(bad);
    CHECK_THROWS_WITH(keep_from_environment(),
                      std::string("YADOKARI_KEEP must be a whole number of at least 1, not '") + bad + "'");
  }
}
