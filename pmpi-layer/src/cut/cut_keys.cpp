#include "pmpi-layer/src/cut/cut_keys.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <vector>

namespace yadokari::shim {

std::uint64_t child_cut_key(CommRecord* parent, const CommRecord& child) {
  const CommChannels& c = child.channels;
  if (c.peers() <= 1) return 0;
  std::vector<std::uint64_t> words;
  if (parent) {
    words.push_back(parent->cut_key);
    words.push_back(parent->children_made++);
    words.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(c.world_rank_of(0))));
  } else {
    words.push_back(0x67726f7570ULL);  // "group": named by its members only
    for (std::size_t p = 0; p < c.peers(); ++p)
      words.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(c.world_rank_of(p))));
  }
  const std::uint64_t key = XXH64(words.data(), words.size() * sizeof(std::uint64_t), 0x79616b61);
  return key <= kWorldCutKey ? key + 2 : key;  // 0 and 1 are taken
}

}  // namespace yadokari::shim
