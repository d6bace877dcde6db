// The restore half of checkpoint_taker.hpp: what the MPI_Init wrapper of a restarted rank does.
#include "pmpi-layer/src/cut/checkpoint_taker.hpp"
#include "pmpi-layer/src/cut/lifecycle.hpp"

#include "pmpi-layer/src/link/control_link.hpp"

#include "checkpoint/memory/areas.hpp"
#include "checkpoint/memory/memory.h"
#include "checkpoint/image/image_chain.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_reader.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"
#include "pmpi-layer/src/cut/image_areas.hpp"
#include "pmpi-layer/src/cut/replay.hpp"
#include "pmpi-layer/src/cut/shim_state.hpp"
#include "pmpi-layer/src/cut/open_journal_steps.hpp"
#include "pmpi-layer/src/cut/written_files_cut.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/objects/world.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include "common/parameters.hpp"

namespace yadokari::shim {
namespace {

// When cut::restore_if_requested() began; in the shim's own data, which the memory restore leaves alone.
std::chrono::steady_clock::time_point g_restore_started;
// The epoch restored from (its images' header); also in the shim's own data.
std::uint64_t g_restored_epoch;

namespace img = yadokari::image;

// The front end prints the reason when it has a link to it: the rank's own stderr can be lost
// when the launcher tears the job down after MPI_Abort (Hydra drops a rank's last lines).
[[noreturn]] void refuse(const std::string& line) {
  const int rank = identity().logical_rank;
  if (!send_last_to_coordinator(yadokari::protocol::RankRestored{rank, 0.0, line}))
    print_line("yadokari: rank %d cannot restore: %s", rank, line.c_str());
  PMPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

void check_header(const img::ImageHeader& h, const std::string& path) {
  if (h.rank != static_cast<std::uint32_t>(identity().logical_rank))
    refuse(path + " is the image of rank " + std::to_string(h.rank));
  if (h.world_size != static_cast<std::uint32_t>(identity().world_size))
    refuse(path + " is from a " + std::to_string(h.world_size) + "-rank job, this one has " +
           std::to_string(identity().world_size));
  if (h.flavour != kFlavour) refuse(path + " was taken with " + h.flavour + ", this job uses " + kFlavour);
}

}  // namespace

void cut::restore_if_requested() {
  // The restore point, in every incarnation: process state the application registers from here on
  // (handlers, atexit functions...) is carried; what it registered before is registered again by
  // its own code in a restarted process (checkpoint/memory/memory.h).
  yk_mem_restore_point();
  const char* dir = std::getenv(yadokari::parameters::kRestore);
  if (!dir || !*dir) return;
  g_restore_started = std::chrono::steady_clock::now();
  const std::string path = std::string(dir) + "/rank-" + std::to_string(identity().logical_rank) + ".img";
  // Heap objects on purpose, never freed: this function does not return on success, and the
  // memory restore overwrites the stack it runs on.
  img::ImageChain* chain = nullptr;
  try {
    // The front end chose the epoch after checking its whole chain (storage's newest_good_epoch);
    // the links are checked again here, and every area read from the chain against the hash its
    // newest image recorded, so a damaged link is refused, never restored in part.
    chain = new img::ImageChain(img::open_image_chain(path));
    check_header(chain->newest().header(), path);
    g_restored_epoch = chain->newest().header().epoch;
    const img::AreaRecord* state = chain->newest().find("shim-state");
    if (!state) refuse(path + " has no shim-state area");
    const std::vector<std::byte> bytes = chain->read_area(state->index);
    load_shim_state(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  } catch (const std::exception& e) {
    refuse(e.what());
  }
  replay_creation_log();
  auto* source = new ImageAreaSource(*chain);
  std::string memory_refusal;
  yadokari::memory::restore(*source, path.c_str(), &memory_refusal);
  // Only on refusal (nothing was modified).
  if (source->failed()) refuse(source->error());
  refuse(memory_refusal.empty() ? "the memory image does not fit this process" : memory_refusal);
}

namespace {

// What every rank of a new incarnation does at the cut it resumes from, restored or kept.
void resume_at(std::uint64_t epoch, std::chrono::steady_clock::time_point since) {
  // Before anything of the application can run again, and before the receives are posted (no
  // message of the application is in flight while the ranks agree on the files).
  std::string why;
  if (!cut::cut_back_written_files(epoch, why)) refuse(why);
  // This incarnation has passed that epoch's cut, like the one that took it.
  cut::begin_open_journal_generation(epoch);
  repost_pending_receives();
  reattach_buffer();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
  send_to_coordinator(yadokari::protocol::RankRestored{identity().logical_rank, seconds, {}});
}

}  // namespace

void cut::on_restart() {
  ++g_restarts;
  resume_at(g_restored_epoch, g_restore_started);
}

void cut::on_rejoined(std::uint64_t epoch, std::chrono::steady_clock::time_point since) { resume_at(epoch, since); }

}  // namespace yadokari::shim
