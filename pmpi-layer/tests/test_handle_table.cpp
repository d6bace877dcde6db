#include "pmpi-layer/src/core/handle_table.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

namespace {
struct Obj {
  int real = 0;
  std::string name;
};
}  // namespace

TEST_CASE("handle table stores and finds entries", "[handle_table]") {
  yadokari::shim::HandleTable<Obj> t;
  const auto a = t.add({7, "a"}, false);
  const auto b = t.add({8, "b"}, false);
  REQUIRE(a != b);
  CHECK(t.at(a).real == 7);
  CHECK(t.at(b).name == "b");
  CHECK(t.contains(a));
  CHECK(t.live_count() == 2);
}

TEST_CASE("freed slots are reused last-in first-out and cleared", "[handle_table]") {
  yadokari::shim::HandleTable<Obj> t;
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

TEST_CASE("an entry filled in place starts from a default one, even in a reused slot", "[handle_table]") {
  yadokari::shim::HandleTable<Obj> t;
  const auto a = t.add({1, "a name long enough to live on the heap"}, false);
  const auto b = t.add({2, "b"}, false);
  t.remove(a, false);
  // Sets only `real`: the reused slot must hold nothing of the removed entry.
  const auto c = t.add_in_place([](Obj& o) { o.real = 3; }, false);
  CHECK(c == a);  // the same LIFO reuse as add()
  CHECK(t.at(c).real == 3);
  CHECK(t.at(c).name.empty());
  CHECK(t.at(b).name == "b");
  const auto d = t.add_in_place([](Obj& o) { o.name = "d"; }, true);
  CHECK(d == 2);  // past the high-water mark
  CHECK(t.at(d).real == 0);
  CHECK(t.live_count() == 3);
  CHECK(t.free_list().empty());
}

TEST_CASE("removing twice does not corrupt the free list", "[handle_table]") {
  yadokari::shim::HandleTable<Obj> t;
  const auto a = t.add({1, ""}, false);
  t.remove(a, false);
  t.remove(a, false);
  const auto x = t.add({2, ""}, false);
  const auto y = t.add({3, ""}, false);
  CHECK(x != y);
}

TEST_CASE("entries stay put across chunk growth", "[handle_table]") {
  yadokari::shim::HandleTable<Obj> t;
  const auto first = t.add({42, ""}, true);
  Obj* before = &t.at(first);
  std::set<std::uint32_t> ids;
  for (int i = 0; i < 5000; ++i) ids.insert(t.add({i, ""}, true));
  CHECK(ids.size() == 5000);
  CHECK(&t.at(first) == before);  // lookups are lock-free because nothing ever moves
  CHECK(t.at(first).real == 42);
}

TEST_CASE("for_each visits live entries in index order", "[handle_table]") {
  yadokari::shim::HandleTable<Obj> t;
  for (int i = 0; i < 5; ++i) t.add({i, ""}, false);
  t.remove(2, false);
  std::vector<int> seen;
  t.for_each([&](std::uint32_t, Obj& o) { seen.push_back(o.real); });
  CHECK(seen == std::vector<int>{0, 1, 3, 4});
}

TEST_CASE("a table restored at the saved indices hands out the same indices next", "[handle_table][restart]") {
  yadokari::shim::HandleTable<Obj> saved;
  for (int i = 0; i < 6; ++i) saved.add({i, "o"}, false);
  saved.remove(4, false);
  saved.remove(1, false);  // free list: 1, 4
  const auto order = saved.free_list();
  CHECK(order == std::vector<std::uint32_t>{1, 4});

  yadokari::shim::HandleTable<Obj> fresh;
  fresh.add({100, "world"}, false);  // what a new process made before loading
  fresh.clear();
  CHECK(fresh.live_count() == 0);
  saved.for_each([&](std::uint32_t i, Obj& o) { fresh.restore_at(i, o); });
  fresh.rebuild_free_list(saved.high_water(), order);
  CHECK(fresh.live_count() == saved.live_count());
  CHECK(fresh.high_water() == saved.high_water());
  CHECK_FALSE(fresh.contains(1));
  CHECK(fresh.contains(5));
  CHECK(fresh.at(5).real == 5);
  CHECK(fresh.free_list() == order);
  CHECK(fresh.add({7, ""}, false) == saved.add({7, ""}, false));
  CHECK(fresh.add({8, ""}, false) == saved.add({8, ""}, false));
  CHECK(fresh.add({9, ""}, false) == 6);  // then past the high-water mark
}

TEST_CASE("restoring leaves unlisted holes free, lowest first, and refuses a doubly used index",
          "[handle_table][restart]") {
  yadokari::shim::HandleTable<Obj> t;
  t.restore_at(3, {3, ""});
  t.restore_at(1, {1, ""});
  CHECK_THROWS(t.restore_at(1, {9, ""}));
  t.rebuild_free_list(5, {4, 4, 3, 99});  // 4 first; 3 is live, 99 out of range, the repeat ignored
  CHECK(t.free_list() == std::vector<std::uint32_t>{4, 0, 2});
  CHECK(t.live_count() == 2);
  std::vector<int> seen;
  t.for_each([&](std::uint32_t, Obj& o) { seen.push_back(o.real); });
  CHECK(seen == std::vector<int>{1, 3});
}

TEST_CASE("restoring beyond a chunk keeps earlier entries in place", "[handle_table][restart]") {
  yadokari::shim::HandleTable<Obj> t;
  const auto first = t.add({1, ""}, false);
  Obj* before = &t.at(first);
  t.restore_at(yadokari::shim::HandleTable<Obj>::kChunkSize * 2 + 5, {2, ""});
  t.rebuild_free_list(0, {});
  CHECK(&t.at(first) == before);
  CHECK(t.at(yadokari::shim::HandleTable<Obj>::kChunkSize * 2 + 5).real == 2);
  CHECK(t.add({3, ""}, false) == 1);
  t.clear();
  CHECK(t.high_water() == 0);
  CHECK(t.add({4, ""}, false) == 0);
  CHECK(&t.at(0) == before);  // the chunk survived the clear
}
