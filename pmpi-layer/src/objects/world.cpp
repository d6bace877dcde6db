// The rank's identity and the virtual world (world.hpp); objects::on_init() sets them up.
#include "pmpi-layer/src/objects/world.hpp"

#include "pmpi-layer/src/cut/cut_keys.hpp"
#include "pmpi-layer/src/objects/lifecycle.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"
#include "pmpi-layer/src/shim/slow_path.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "common/parameters.hpp"

namespace yadokari::shim {

#if defined(OPEN_MPI)
const char* const kFlavour = "openmpi";
#else
const char* const kFlavour = "mpich";
#endif

namespace {

RankIdentity g_identity;
MPI_Group g_world_group = MPI_GROUP_NULL;
MPI_Comm g_shim_comm = MPI_COMM_NULL;

// A restart launches the processes of logical ranks in whatever order the placement needs;
// YADOKARI_RANK_MAP (the same on every rank) lists, by real rank, the logical rank hosted. Empty:
// logical rank = real rank.
std::vector<int> rank_map(int size) {
  const char* map = std::getenv(yadokari::parameters::kRankMap);
  if (!map || !*map) return {};
  std::vector<int> logical;
  for (const char* p = map; *p;) {
    char* end = nullptr;
    logical.push_back(static_cast<int>(std::strtol(p, &end, 10)));
    p = (*end == ',') ? end + 1 : end;
    if (end == p && *p) break;
  }
  if (static_cast<int>(logical.size()) != size) {
    print_line("yadokari: YADOKARI_RANK_MAP has %zu entries for %d ranks", logical.size(), size);
    PMPI_Abort(MPI_COMM_WORLD, 1);
  }
  return logical;
}

bool is_identity(const std::vector<int>& map) {
  for (std::size_t i = 0; i < map.size(); ++i)
    if (map[i] != static_cast<int>(i)) return false;
  return true;
}

void register_world(MPI_Comm vworld_real) {
  auto& reg = registry<CommK>();
  CommRecord rec;
  rec.is_world = true;
  g_world_index = reg.table.add({vworld_real, Recipe{}, std::move(rec), 1}, false);
  reg.by_real.emplace(codec::to_u64(vworld_real), g_world_index);
  PMPI_Comm_group(vworld_real, &g_world_group);
  auto& entry = reg.table.at(g_world_index);
  entry.record.channels = make_comm_record(vworld_real, g_world_index).channels;
  entry.record.is_world = true;
  entry.record.cut_key = entry.record.channels.peers() <= 1 ? 0 : kWorldCutKey;
  g_world_entry = &entry;

  CommRecord self;
  g_self_index = reg.table.add({MPI_COMM_SELF, Recipe{}, std::move(self), 1}, false);
  reg.table.at(g_self_index).record.channels = make_comm_record(MPI_COMM_SELF, g_self_index).channels;
  g_self_entry = &reg.table.at(g_self_index);
}

}  // namespace

const RankIdentity& identity() { return g_identity; }
MPI_Comm shim_comm() {
  // Made on first use, by the consistent cut, which every rank enters with the same collectives
  // behind it on every communicator: a collective here cannot interleave with the application's.
  if (g_shim_comm == MPI_COMM_NULL) PMPI_Comm_dup(g_world_entry->real, &g_shim_comm);
  return g_shim_comm;
}
double seconds_since_init() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_identity.init_time).count();
}
MPI_Group world_group() { return g_world_group; }

namespace objects {

void on_init(int thread_level, std::chrono::steady_clock::time_point init_started) {
  g_many_writers = (thread_level == MPI_THREAD_MULTIPLE);
  set_slow_path(kSlowManyWriters, g_many_writers);  // the fast path's counters assume one writer
  int real_rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &real_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  g_identity.world_size = size;
  const std::vector<int> map = rank_map(size);
  g_identity.logical_rank = map.empty() ? real_rank : map[static_cast<std::size_t>(real_rank)];
  g_identity.thread_level = thread_level;
  g_identity.init_time = std::chrono::steady_clock::now();
  g_identity.library_init_seconds = std::chrono::duration<double>(g_identity.init_time - init_started).count();
  g_retired_channels.resize(static_cast<std::size_t>(size));

  // The app's MPI_COMM_WORLD ranks processes by logical rank. While that is the library's own order
  // (every first launch, and restarts that keep it) it is the library's MPI_COMM_WORLD itself, and
  // no communicator is made here: on Open MPI the first one made registers libnbc's progress
  // callback for good (the new context id is agreed with a non-blocking allreduce), which then runs
  // on every turn of every progress loop and adds several ns to each small message of an
  // application that never made a communicator itself. The decision is the same on every rank
  // (one map for all), as the split is collective.
  MPI_Comm vworld = MPI_COMM_WORLD;
  if (!is_identity(map)) {
    PMPI_Comm_split(MPI_COMM_WORLD, 0, g_identity.logical_rank, &vworld);
    PMPI_Comm_set_name(vworld, "MPI_COMM_WORLD");  // as the app's MPI_Comm_get_name saw it before
  }
  register_world(vworld);
}

std::string on_library_swapped() {
  int real_rank = 0, size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &real_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != g_identity.world_size)
    return "the new launch has " + std::to_string(size) + " ranks, the job " + std::to_string(g_identity.world_size);
  const std::vector<int> map = rank_map(size);
  const int logical = map.empty() ? real_rank : map[static_cast<std::size_t>(real_rank)];
  if (logical != g_identity.logical_rank)
    return "the new launch made it logical rank " + std::to_string(logical) + ", not " +
           std::to_string(g_identity.logical_rank);
  // Both were the old library's; the shim's communicator is made again at the next cut.
  g_shim_comm = MPI_COMM_NULL;
  MPI_Comm vworld = MPI_COMM_WORLD;
  if (!is_identity(map)) {
    PMPI_Comm_split(MPI_COMM_WORLD, 0, logical, &vworld);
    PMPI_Comm_set_name(vworld, "MPI_COMM_WORLD");
  }
  auto& reg = registry<CommK>();
  reg.by_real.erase(codec::to_u64(g_world_entry->real));
  g_world_entry->real = vworld;
  reg.by_real.emplace(codec::to_u64(vworld), g_world_index);
  PMPI_Comm_group(vworld, &g_world_group);
  return {};
}

}  // namespace objects

}  // namespace yadokari::shim
