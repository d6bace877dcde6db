#include "core/handle_table.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

namespace {
struct Obj {
  int real = 0;
  std::string name;
};
}  // namespace

TEST_CASE("handle table stores and finds entries", "[handle_table]") {
  yk::HandleTable<Obj> t;
  const auto a = t.add({7, "a"}, false);
  const auto b = t.add({8, "b"}, false);
  REQUIRE(a != b);
  CHECK(t.at(a).real == 7);
  CHECK(t.at(b).name == "b");
  CHECK(t.contains(a));
  CHECK(t.live_count() == 2);
}

TEST_CASE("freed slots are reused last-in first-out and cleared", "[handle_table]") {
  yk::HandleTable<Obj> t;
  const auto a = t.add({1, "x"}, false);
  const auto b = t.add({2, "y"}, false);
  t.remove(a, false);
  CHECK_FALSE(t.contains(a));
  CHECK(t.live_count() == 1);
  const auto c = t.add({3, ""}, false);
  CHECK(c == a);
  CHECK(t.at(c).real == 3);
  CHECK(t.at(c).name.empty());
  CHECK(t.at(b).real == 2);
}

TEST_CASE("removing twice does not corrupt the free list", "[handle_table]") {
  yk::HandleTable<Obj> t;
  const auto a = t.add({1, ""}, false);
  t.remove(a, false);
  t.remove(a, false);
  const auto x = t.add({2, ""}, false);
  const auto y = t.add({3, ""}, false);
  CHECK(x != y);
}

TEST_CASE("entries stay put across chunk growth", "[handle_table]") {
  yk::HandleTable<Obj> t;
  const auto first = t.add({42, ""}, true);
  Obj* before = &t.at(first);
  std::set<std::uint32_t> ids;
  for (int i = 0; i < 5000; ++i) ids.insert(t.add({i, ""}, true));
  CHECK(ids.size() == 5000);
  CHECK(&t.at(first) == before);  // lookups are lock-free because nothing ever moves
  CHECK(t.at(first).real == 42);
}

TEST_CASE("for_each visits live entries in index order", "[handle_table]") {
  yk::HandleTable<Obj> t;
  for (int i = 0; i < 5; ++i) t.add({i, ""}, false);
  t.remove(2, false);
  std::vector<int> seen;
  t.for_each([&](std::uint32_t, Obj& o) { seen.push_back(o.real); });
  CHECK(seen == std::vector<int>{0, 1, 3, 4});
}
