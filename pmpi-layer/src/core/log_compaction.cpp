#include "pmpi-layer/src/core/log_compaction.hpp"

#include <unordered_map>

namespace yadokari::shim {

std::vector<bool> entries_needed(const std::vector<LoggedMaking>& log,
                                 const std::function<bool(std::size_t)>& collective,
                                 const std::function<bool(std::size_t)>& held_now) {
  // Forward: the entry that made each parent at the time it was used (a handle freed and made
  // again is a new object from there on), as one flat list per entry.
  std::unordered_map<std::uint64_t, std::size_t> maker;
  std::vector<std::size_t> parent_makers, first_parent(log.size() + 1, 0);
  for (std::size_t j = 0; j < log.size(); ++j) {
    first_parent[j] = parent_makers.size();
    if (log[j].from)
      for (const std::uint64_t parent : *log[j].from)
        if (const auto it = maker.find(parent); it != maker.end()) parent_makers.push_back(it->second);
    if (log[j].made != 0) maker[log[j].made] = j;
  }
  first_parent[log.size()] = parent_makers.size();

  std::vector<bool> needed(log.size(), false);
  for (std::size_t i = 0; i < log.size(); ++i) {
    const std::uint64_t handle = log[i].made;
    needed[i] = collective(i) || (handle != 0 && maker[handle] == i && held_now(i));
  }
  // Backward: parents are always earlier, so one pass carries "needed" down every chain.
  for (std::size_t j = log.size(); j-- > 0;)
    if (needed[j])
      for (std::size_t k = first_parent[j]; k < first_parent[j + 1]; ++k) needed[parent_makers[k]] = true;
  return needed;
}

}  // namespace yadokari::shim
