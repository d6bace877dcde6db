#include "pmpi-layer/src/core/replay_frees.hpp"

#include <optional>
#include <unordered_map>

namespace yadokari::shim {

std::vector<std::vector<std::size_t>> replay_frees(const std::vector<LoggedMaking>& log,
                                                   const std::function<bool(std::size_t)>& held_now) {
  std::unordered_map<std::uint64_t, std::size_t> maker;  // handle -> latest entry that made it
  std::vector<std::optional<std::size_t>> last_use(log.size());
  for (std::size_t j = 0; j < log.size(); ++j) {
    if (log[j].from)
      for (const std::uint64_t parent : *log[j].from)
        if (const auto it = maker.find(parent); it != maker.end()) last_use[it->second] = j;
    if (log[j].made != 0) maker[log[j].made] = j;
  }
  std::vector<std::vector<std::size_t>> frees(log.size());
  for (std::size_t i = 0; i < log.size(); ++i) {
    const std::uint64_t handle = log[i].made;
    if (handle == 0 || (maker[handle] == i && held_now(i))) continue;
    frees[last_use[i].value_or(i)].push_back(i);
  }
  return frees;
}

}  // namespace yadokari::shim
