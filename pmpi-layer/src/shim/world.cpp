// MPI_Init / MPI_Init_thread / MPI_Finalize and the virtual world.
#include "shim/world.hpp"

#include "memory/memory.h"
#include "cut/checkpoint_taker.hpp"
#include "telemetry/compute_sampler.hpp"
#include "link/control_link.hpp"
#include "cut/cut_keys.hpp"
#include "cut/cut_protocol.hpp"
#include "telemetry/stats_writer.hpp"
#include "shim/diagnostics.hpp"
#include "shim/fault_injection.hpp"
#include "cut/cut_state.hpp"
#include "objects/object_hooks.hpp"
#include "shim/api.hpp"
#include "shim/call_scope.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace yk {

#if defined(OPEN_MPI)
const char* const kFlavour = "openmpi";
static constexpr const char* kLibraryName = "libmpi.so";
static constexpr const char* kPrettyName = "Open MPI";
#else
const char* const kFlavour = "mpich";
static constexpr const char* kLibraryName = "libmpich.so";
static constexpr const char* kPrettyName = "MPICH";
#endif

namespace {

RankIdentity g_identity;
MPI_Group g_world_group = MPI_GROUP_NULL;
MPI_Comm g_shim_comm = MPI_COMM_NULL;

// A restart launches the processes of logical ranks in whatever order the placement needs;
// YADOKARI_RANK_MAP (the same on every rank) lists, by real rank, the logical rank hosted. Empty:
// logical rank = real rank.
std::vector<int> rank_map(int size) {
  const char* map = std::getenv("YADOKARI_RANK_MAP");
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

namespace {
// Priority 102: after the memory layer's load-time constructor (101) has decided whether it is
// on, and before the application can call any MPI function.
__attribute__((constructor(102))) void note_memory_layer() {
  set_slow_path(kSlowMemoryLayer, yk_mem_enabled() != 0);  // the fast path does not bracket calls
}
}  // namespace

void check_abi_or_die() {
  void* init = dlsym(RTLD_DEFAULT, "PMPI_Init");
  Dl_info info{};
  if (init && dladdr(init, &info) && info.dli_fname) {
    const char* base = std::strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    if (std::strncmp(base, kLibraryName, std::strlen(kLibraryName)) != 0) {
      print_line("yadokari: this shim (libyadokari-%s.so) is built for %s but the program uses %s; "
                 "launch it with `yadokari run`, which picks the matching shim",
                 kFlavour, kPrettyName, info.dli_fname);
      std::_Exit(70);
    }
  }
  const char* expected = std::getenv("YADOKARI_FLAVOUR");
  if (expected && *expected && std::strcmp(expected, kFlavour) != 0) {
    print_line("yadokari: YADOKARI_FLAVOUR=%s but this shim is built for %s", expected, kFlavour);
    std::_Exit(70);
  }
}

void after_library_init(int thread_level, std::chrono::steady_clock::time_point init_started) {
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
  g_identity.library_init_seconds =
      std::chrono::duration<double>(g_identity.init_time - init_started).count();
  g_retired_channels.resize(static_cast<std::size_t>(size));

  // The app's MPI_COMM_WORLD ranks processes by logical rank. While that is the library's own order
  // (every first launch, and restarts that keep it) it is the library's MPI_COMM_WORLD itself, and
  // no communicator is made here: on Open MPI the first one made registers libnbc's progress
  // callback for good (the new context id is agreed with a non-blocking allreduce), which then runs
  // on every turn of every progress loop and adds several ns to each small message of an
  // application that never made a communicator itself. The decision is the same on every rank
  // (one map for all), as the split is collective.
  MPI_Comm vworld = MPI_COMM_WORLD;
  if (!is_identity(map)) PMPI_Comm_split(MPI_COMM_WORLD, 0, g_identity.logical_rank, &vworld);
  register_world(vworld);
  start_cut_listener();
  start_control_link();
  // Compute time is only worth measuring for a front end to report it to.
  if (control_link_up()) start_compute_sampler();
  // Checkpoints need the memory layer (on when YADOKARI_CKPT_DIR or YADOKARI_RESTORE is set)
  // and a coordinator to agree with.
  g_interruptible = yk_mem_enabled() && control_link_up();
  set_slow_path(kSlowInterruptible, g_interruptible);  // blocking calls must poll: the slow wrappers
}

void before_library_finalize() {
  write_stats_if_requested();
  stop_compute_sampler();
  stop_control_link();
}

}  // namespace yk

extern "C" YK_API int MPI_Init(int* argc, char*** argv) {
  yk::check_abi_or_die();
  yk::CallScope scope(yk::Fn::MPI_Init);
  const auto started = std::chrono::steady_clock::now();
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) {
    yk::after_library_init(MPI_THREAD_SINGLE, started);
    yk::restore_if_requested();  // returns only when there is nothing to restore
  }
  return rc;
}

extern "C" YK_API int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  yk::check_abi_or_die();
  yk::CallScope scope(yk::Fn::MPI_Init_thread);
  const auto started = std::chrono::steady_clock::now();
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) {
    yk::after_library_init(*provided, started);
    yk::restore_if_requested();
  }
  return rc;
}

extern "C" YK_API int MPI_Finalize(void) {
  yk::CallScope scope(yk::Fn::MPI_Finalize);
  yk::hold_before_finalize();
  yk::cut_at_finalize();
  yk::before_library_finalize();
  return PMPI_Finalize();
}
