#include "pmpi-layer/src/cut/checkpoint_taker.hpp"
#include "pmpi-layer/src/swap/swap_record.hpp"

#include "pmpi-layer/src/cut/background_image.hpp"

#include "pmpi-layer/src/cut/cut_protocol.hpp"  // current_epoch_dir

#include "pmpi-layer/src/cut/lifecycle.hpp"

#include "checkpoint/memory/areas.hpp"
#include "checkpoint/memory/memory.h"
#include "protocol/codec.hpp"
#include "checkpoint/image/binary_identity.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_writer.hpp"
#include "pmpi-layer/src/telemetry/compute_sampler.hpp"
#include "pmpi-layer/src/link/control_link.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"
#include "pmpi-layer/src/cut/drain.hpp"
#include "pmpi-layer/src/cut/write_fault.hpp"
#include "pmpi-layer/src/cut/image_areas.hpp"
#include "pmpi-layer/src/cut/image_layout_setting.hpp"
#include "pmpi-layer/src/cut/incremental_image.hpp"
#include "pmpi-layer/src/cut/open_journal_steps.hpp"
#include "pmpi-layer/src/telemetry/heaviest_partners.hpp"
#include "pmpi-layer/src/telemetry/rank_totals.hpp"
#include "pmpi-layer/src/cut/shim_state.hpp"
#include "pmpi-layer/src/objects/world.hpp"

#include <chrono>
#include <filesystem>
#include <system_error>
#include <cstdio>
#include <string>

namespace yadokari::shim {
namespace {

namespace ctl = yadokari::protocol;
namespace img = yadokari::image;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Where this rank's image goes. Static, not on the stack: nothing heap-owning may live in the
// frames that the memory capture saves (after a restart it would point into the old heap).
char g_image_path[4096];

// What the composition root wants done around the capture (cut::set_checkpoint_hooks).
cut::CheckpointHooks g_hooks{};

// When this rank's part of the cut began (GO): the pause is measured from here.
std::chrono::steady_clock::time_point g_go_time;

// The report of this rank's image, with what is known at the pause: the drain, and the traffic
// and compute counters as they stand at the cut (a background image is reported later, when the
// rank has already run on).
ctl::ImageWritten report_at_cut(const CheckpointTarget& target, double drain_s) {
  ctl::ImageWritten w;
  w.epoch = target.epoch;
  w.logical_rank = identity().logical_rank;
  w.drain_seconds = drain_s;
  w.drained_messages = g_drained_pending;
  w.traffic = heaviest_partners(traffic_row(), ctl::kTrafficPartners);
  // Cumulative in this process; the front end takes the difference between two commits.
  w.compute_seconds = compute_seconds();
  w.hostname = node_name();
  return w;
}

void tell_coordinator(ctl::ImageWritten w, bool ok, const std::string& error, const img::WrittenImage* written,
                      double write_s) {
  w.ok = ok;
  w.error = error;
  if (written) {
    w.path = written->path;
    w.size = written->size;
    w.xxh64 = written->xxh64;
    w.parent_epoch = written->parent_epoch;
    if (written->layout == img::ImageLayout::dmtcp) w.layout = "dmtcp";
  }
  w.write_seconds = write_s;
  w.pause_seconds = w.drain_seconds + write_s;  // until written; the wait for the commit comes on top
  if (!ok) {
    w.traffic.clear();
    w.compute_seconds = -1.0;
  }
  send_to_coordinator(w);
}

// Opens the image and writes the shim's own records; the memory areas follow through the sink.
// Returns null (and says why in `error`) if this rank cannot be checkpointed.
img::ImageWriter* open_image(const CheckpointTarget& target, const incremental_image::Plan& plan, std::string& error) {
  std::string why;
  if (swap::g_library_swaps > 0) {
    // The copy lives in its own link namespace, with its own C library's heap, which the memory
    // layer cannot tell from the application's (docs/flows/migrate.md, "Not built yet").
    error = "this process swapped its MPI library in a live move; its image cannot carry the library's copy yet";
    return nullptr;
  }
  if (!shim_state_checkpointable(&why)) {
    error = why;
    return nullptr;
  }
  char dir[4001];
  if (!current_epoch_dir(dir, sizeof dir)) {
    error = "epoch directory path too long";
    return nullptr;
  }
  // Node-local storage (--node-dir): this node's epoch directory is made by its first rank.
  std::error_code made;
  std::filesystem::create_directories(dir, made);
  if (made) {
    error = std::string("cannot create ") + dir + ": " + made.message();
    return nullptr;
  }
  const int n = std::snprintf(g_image_path, sizeof g_image_path, "%.4000s/rank-%d.img", dir, identity().logical_rank);
  if (n < 0 || static_cast<std::size_t>(n) >= sizeof g_image_path) {
    error = "epoch directory path too long";
    return nullptr;
  }
  try {
    img::ImageHeader header;
    header.job_id = job_id();
    header.rank = static_cast<std::uint32_t>(identity().logical_rank);
    header.world_size = static_cast<std::uint32_t>(identity().world_size);
    header.epoch = target.epoch;
    header.flavour = kFlavour;
    header.binaries = img::loaded_binaries();
    header.parent = plan.parent;
    img::WriterOptions options;
    options.compression_level = target.compression;
    options.layout = image_layout();
    auto* writer = new img::ImageWriter(g_image_path, std::move(header), options);
    const std::string records = save_shim_state();
    writer->add_area({img::AreaKind::mpi_records, "shim-state", 0, img::kProtRead}, records.data(), records.size());
    return writer;
  } catch (const std::exception& e) {
    error = e.what();
    return nullptr;
  }
}

// In the forked writer (cut/background_image.hpp): the memory is in the image now; finish it,
// hand the result to the rank and exit.
[[noreturn]] void write_rest_and_exit(img::ImageWriter& writer, const ImageAreaSink& sink, std::uint64_t epoch,
                                      bool captured) {
  if (sink.failed()) background_image::finish_writer(false, nullptr, sink.error());
  if (!captured) background_image::finish_writer(false, nullptr, "the memory capture failed in the image writer");
  pause_in_image_write(epoch);
  kill_writer_if_asked(identity().logical_rank, background_image::earlier_images());
  try {
    const img::WrittenImage written = writer.finish();
    background_image::finish_writer(true, &written, "");
  } catch (const std::exception& e) {
    background_image::finish_writer(false, nullptr, e.what());
  }
}

}  // namespace

void cut::set_checkpoint_hooks(const CheckpointHooks& hooks) { g_hooks = hooks; }

CheckpointOutcome take_checkpoint(const CheckpointTarget& target) {
  g_go_time = std::chrono::steady_clock::now();
  background_image::note_go(g_go_time);
  consistent_cut();
  const double drain_s = seconds_since(g_go_time);
  const auto t1 = std::chrono::steady_clock::now();

  // Only raw pointers from here to the capture (see g_image_path).
  img::ImageWriter* writer = nullptr;
  ImageAreaSink* sink = nullptr;
  {
    std::string error;
    char dir[4001];
    incremental_image::Plan plan;
    if (current_epoch_dir(dir, sizeof dir)) plan = incremental_image::plan(target.epoch, dir, identity().logical_rank);
    writer = open_image(target, plan, error);
    if (!writer) {
      tell_coordinator(report_at_cut(target, drain_s), false, error, nullptr, seconds_since(t1));
      return CheckpointOutcome::failed;
    }
    sink = new ImageAreaSink(*writer);
    sink->set_plan(target.epoch, std::move(plan));
  }
  if (background_image::wanted()) sink->write_in_background(target.epoch);
  g_hooks.before_capture();
  const int rc = yadokari::memory::checkpoint(*sink);
  if (rc == YK_MEM_RESTARTED) {
    // A fresh process: `writer` and `sink` are the old process's, never touch them.
    g_hooks.after_restart();
    return CheckpointOutcome::restarted;
  }
  if (sink->in_writer()) write_rest_and_exit(*writer, *sink, target.epoch, rc == YK_MEM_CHECKPOINTED);
  if (rc == YK_MEM_CHECKPOINTED && sink->handed_to_writer()) {
    // The writer has the snapshot: tell the coordinator, which releases the ranks once every one
    // is captured; the writer's result is reported when it comes.
    delete sink;
    delete writer;
    ctl::ImageCaptured captured;
    captured.epoch = target.epoch;
    captured.logical_rank = identity().logical_rank;
    captured.capture_seconds = seconds_since(g_go_time);
    background_image::report_when_written(report_at_cut(target, drain_s));
    send_to_coordinator(captured);
    cut::begin_open_journal_generation(target.epoch);
    return CheckpointOutcome::written;
  }
  CheckpointOutcome outcome = CheckpointOutcome::failed;
  {
    std::string error;
    img::WrittenImage written;
    bool ok = false;
    if (rc == YK_MEM_CHECKPOINTED && !sink->failed()) {
      pause_in_image_write(target.epoch);
      try {
        written = writer->finish();
        ok = true;
      } catch (const std::exception& e) {
        error = e.what();
      }
    } else {
      const char* refusal = yk_mem_refusal();
      error = sink->failed() ? sink->error()
              : refusal[0]   ? refusal
                             : "the memory capture was refused (see the rank's stderr)";
    }
    delete sink;
    delete writer;  // removes the .tmp if unfinished
    tell_coordinator(report_at_cut(target, drain_s), ok, error, ok ? &written : nullptr, seconds_since(t1));
    outcome = ok ? CheckpointOutcome::written : CheckpointOutcome::failed;
  }
  // Past this epoch's cut: files the application opens for writing from now on are journaled as
  // its generation (open_journal_steps.hpp). A failed image leaves the older generation on,
  // which a restart from an older epoch reads as well.
  if (outcome == CheckpointOutcome::written) cut::begin_open_journal_generation(target.epoch);
  return outcome;
}

}  // namespace yadokari::shim
