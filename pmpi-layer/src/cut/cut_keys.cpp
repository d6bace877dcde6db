#include "pmpi-layer/src/cut/cut_keys.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <vector>

namespace yadokari::shim {
namespace {

constexpr std::uint64_t kSeed = 0x79616b61;

std::uint64_t key_of(const std::vector<std::uint64_t>& words) {
  const std::uint64_t key = XXH64(words.data(), words.size() * sizeof(std::uint64_t), kSeed);
  return key <= kWorldCutKey ? key + 2 : key;  // 0 and 1 are taken
}

}  // namespace

std::uint64_t child_cut_key(CommRecord& parent, const std::vector<int>& members) {
  // Counted for a one-process child too: the pieces of one split may differ in size.
  const std::uint64_t made_before = parent.children_made++;
  if (members.size() <= 1) return 0;
  return key_of({parent.cut_key, made_before, static_cast<std::uint64_t>(static_cast<std::int64_t>(members.front()))});
}

std::uint64_t group_cut_key(const std::vector<int>& members, std::map<std::uint64_t, std::uint64_t>& made_over_group) {
  if (members.size() <= 1) return 0;
  std::vector<std::uint64_t> words{0x67726f7570ULL};  // "group": named by its members
  for (const int m : members) words.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(m)));
  const std::uint64_t named = key_of(words);
  return key_of({named, made_over_group[named]++});
}

}  // namespace yadokari::shim
