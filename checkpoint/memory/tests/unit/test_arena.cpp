// The arena allocator against a shadow list of live blocks: contents survive every operation,
// alignment holds, the heap checks out, and freeing everything coalesces back to one top chunk.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "checkpoint/memory/src/arena.hpp"

using yadokari::memory::Arena;

namespace {

constexpr std::uintptr_t kBase = 0x300000000000;
constexpr std::size_t kReserve = std::size_t{1} << 32;

struct Block {
  unsigned char* p;
  std::size_t n;
  unsigned char fill;
};

bool intact(const Block& b) {
  for (std::size_t i = 0; i < b.n; ++i)
    if (b.p[i] != static_cast<unsigned char>(b.fill + i)) return false;
  return true;
}

void paint(const Block& b) {
  for (std::size_t i = 0; i < b.n; ++i) b.p[i] = static_cast<unsigned char>(b.fill + i);
}

Arena* the_arena() {
  static Arena* a = Arena::create(kBase, kReserve);
  return a;
}

}  // namespace

TEST_CASE("arena: random malloc/realloc/memalign/free keeps blocks intact", "[arena]") {
  Arena* a = the_arena();
  REQUIRE(a != nullptr);
  std::mt19937 rng(7);
  std::vector<Block> live;
  auto size = [&rng]() -> std::size_t {
    switch (rng() % 4) {
      case 0:
        return rng() % 64;
      case 1:
        return rng() % 1024;
      case 2:
        return rng() % 16384;
      default:
        return rng() % 300000;
    }
  };
  for (int step = 0; step < 20000; ++step) {
    unsigned op = rng() % 10;
    if (op < 4 || live.empty()) {
      std::size_t n = size();
      Block b{static_cast<unsigned char*>(a->malloc(n)), n, static_cast<unsigned char>(rng())};
      REQUIRE(b.p != nullptr);
      REQUIRE(reinterpret_cast<std::uintptr_t>(b.p) % 16 == 0);
      REQUIRE(a->usable_size(b.p) >= n);
      paint(b);
      live.push_back(b);
    } else if (op < 5) {
      std::size_t align = std::size_t{32} << (rng() % 8);
      std::size_t n = size();
      Block b{static_cast<unsigned char*>(a->memalign(align, n)), n, static_cast<unsigned char>(rng())};
      REQUIRE(b.p != nullptr);
      REQUIRE(reinterpret_cast<std::uintptr_t>(b.p) % align == 0);
      paint(b);
      live.push_back(b);
    } else if (op < 7) {
      Block& b = live[rng() % live.size()];
      REQUIRE(intact(b));
      std::size_t n = size();
      auto* q = static_cast<unsigned char*>(a->realloc(b.p, n));
      REQUIRE(q != nullptr);
      Block moved{q, std::min(n, b.n), b.fill};
      REQUIRE(intact(moved));
      b = Block{q, n, b.fill};
      paint(b);
    } else {
      std::size_t i = rng() % live.size();
      REQUIRE(intact(live[i]));
      a->free(live[i].p);
      live[i] = live.back();
      live.pop_back();
    }
    if (step % 500 == 0) {
      const char* problem = a->check();
      INFO(step);
      REQUIRE(problem == nullptr);
    }
  }
  for (const Block& b : live) {
    REQUIRE(intact(b));
    a->free(b.p);
  }
  REQUIRE(a->check() == nullptr);
  REQUIRE(a->bytes_in_use() == 0);
}

TEST_CASE("arena: freeing everything leaves one free top chunk", "[arena]") {
  Arena* a = the_arena();
  REQUIRE(a != nullptr);
  std::uintptr_t before = a->used_end();
  std::vector<void*> blocks;
  for (int i = 0; i < 1000; ++i) blocks.push_back(a->malloc(static_cast<std::size_t>(i) * 13));
  REQUIRE(a->used_end() > before);
  for (std::size_t i = 0; i < blocks.size(); i += 2) a->free(blocks[i]);
  for (std::size_t i = 1; i < blocks.size(); i += 2) a->free(blocks[i]);
  REQUIRE(a->check() == nullptr);
  REQUIRE(a->used_end() == before);
}

TEST_CASE("arena: growth commits more of the reservation", "[arena]") {
  Arena* a = the_arena();
  REQUIRE(a != nullptr);
  std::uintptr_t committed = a->committed_end();
  std::size_t n = (a->committed_end() - a->used_end()) + (std::size_t{64} << 20);  // more than is free
  void* big = a->malloc(n);
  REQUIRE(big != nullptr);
  std::memset(big, 1, n);
  REQUIRE(a->committed_end() > committed);
  void* grown = a->realloc(big, n + (std::size_t{32} << 20));  // extends in place into the top
  REQUIRE(grown == big);
  a->free(grown);
  REQUIRE(a->check() == nullptr);
  REQUIRE(a->malloc(std::size_t{1} << 50) == nullptr);
}
