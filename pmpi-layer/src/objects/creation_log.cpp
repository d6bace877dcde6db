#include "pmpi-layer/src/objects/creation_log.hpp"

#include "pmpi-layer/src/core/counter.hpp"
#include "pmpi-layer/src/core/log_compaction.hpp"
#include "pmpi-layer/src/objects/handle_codec.hpp"
#include "pmpi-layer/src/objects/object_state.hpp"

#include <algorithm>
#include <vector>

namespace yadokari::shim {

bool held_now(std::uint32_t kind, std::uint64_t v) {
  bool held = false;
  const auto look = [&](auto k) {
    using K = decltype(k);
    if (kind == K::code) held = registry<K>().table.contains(codec::index_of(codec::from_u64<typename K::handle>(v)));
  };
  look(CommK{});
  look(GroupK{});
  look(TypeK{});
  look(OpK{});
  look(ErrhK{});
  look(InfoK{});
  return held;
}

std::vector<LoggedMaking> logged_makings() {
  std::vector<LoggedMaking> makings;
  makings.reserve(g_creation_log.size());
  for (const CreationRecord& c : g_creation_log) makings.push_back({c.result, &c.recipe.parents});
  return makings;
}

bool entry_held_now(std::size_t i) { return held_now(g_creation_log[i].kind, g_creation_log[i].result); }

void compact_creation_log() {
  const std::vector<bool> needed = entries_needed(
      logged_makings(), [](std::size_t i) { return g_creation_log[i].kind == CommK::code; }, entry_held_now);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < g_creation_log.size(); ++i)
    if (needed[i]) {
      if (kept != i) g_creation_log[kept] = std::move(g_creation_log[i]);
      ++kept;
    }
  g_creation_log.resize(kept);
}

void compact_grown_creation_log() {
  if (!g_many_writers) compact_creation_log();
  g_creation_log_compact_at = std::max<std::size_t>(4096, 2 * g_creation_log.size());
}

}  // namespace yadokari::shim
