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

std::uint64_t world_rank_word(const CommChannels& c, std::size_t peer) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(c.world_rank_of(peer)));
}

}  // namespace

std::uint64_t child_cut_key(CommRecord& parent, const CommRecord& child) {
  // Counted for a one-process child too: the pieces of one split may differ in size.
  const std::uint64_t made_before = parent.children_made++;
  const CommChannels& c = child.channels;
  if (c.peers() <= 1) return 0;
  return key_of({parent.cut_key, made_before, world_rank_word(c, 0)});
}

std::uint64_t group_cut_key(const CommRecord& child, std::map<std::uint64_t, std::uint64_t>& made_over_group) {
  const CommChannels& c = child.channels;
  if (c.peers() <= 1) return 0;
  std::vector<std::uint64_t> words{0x67726f7570ULL};  // "group": named by its members
  for (std::size_t p = 0; p < c.peers(); ++p) words.push_back(world_rank_word(c, p));
  const std::uint64_t members = key_of(words);
  return key_of({members, made_over_group[members]++});
}

}  // namespace yadokari::shim
