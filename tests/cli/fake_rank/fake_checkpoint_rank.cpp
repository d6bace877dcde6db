#include "tests/cli/fake_rank/fake_checkpoint_rank.hpp"

#include <chrono>
#include <thread>

#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_writer.hpp"

namespace yadokari::testing {

using namespace yadokari::link;
using namespace yadokari::protocol;

FakeCheckpointRank::FakeCheckpointRank(Options options) : options_(std::move(options)) {}

RankControlClient::Listener FakeCheckpointRank::listener() {
  return [this](const Message& message) { on_message(message); };
}

std::vector<std::uint64_t> FakeCheckpointRank::epochs_written() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return epochs_written_;
}

void FakeCheckpointRank::on_message(const Message& message) {
  if (options_.silent) return;
  if (const auto* prepare = std::get_if<CheckpointPrepare>(&message)) {
    epoch_ = prepare->epoch;
    epoch_dir_ = prepare->epoch_dir;
    compression_ = prepare->compression;
    report(options_.stuck_inside ? CutState::inside : CutState::unreached, 0);
  } else if (const auto* targets = std::get_if<CutTargets>(&message)) {
    if (targets->epoch == epoch_ && !options_.computing)
      report(options_.stuck_inside ? CutState::inside : CutState::parked, targets->round);
  } else if (const auto* go = std::get_if<CutGo>(&message)) {
    if (go->epoch == epoch_) write_image();
  } else if (const auto* resume = std::get_if<CheckpointResume>(&message)) {
    if (resume->epoch == epoch_) ++(resume->committed ? committed_ : not_committed_);
  }
}

void FakeCheckpointRank::report(CutState state, std::uint64_t round) {
  CutReport report;
  report.epoch = epoch_;
  report.logical_rank = options_.rank;
  report.state = state;
  report.round = round;
  report.serial = ++serial_;
  report.counts = options_.counts;
  if (state == CutState::inside) report.gate_key = options_.counts.at(0).key;
  send(report);
}

void FakeCheckpointRank::write_image() {
  ImageWritten written;
  written.epoch = epoch_;
  written.logical_rank = options_.rank;
  written.path = epoch_dir_ + "/rank-" + std::to_string(options_.rank) + ".img";
  if (options_.fail_image) {
    written.error = "fake image failure";
    send(written);
    return;
  }
  try {
    image::ImageHeader header;
    header.job_id = options_.job_id;
    header.rank = static_cast<std::uint32_t>(options_.rank);
    header.world_size = static_cast<std::uint32_t>(options_.world_size);
    header.epoch = epoch_;
    header.flavour = options_.flavour;
    image::ImageWriter writer(written.path, header, {compression_, true});
    const std::string payload = "rank " + std::to_string(options_.rank) + " of epoch " + std::to_string(epoch_);
    writer.add_area({image::AreaKind::other, "payload", 0, image::kProtRead}, payload.data(), payload.size());
    const image::WrittenImage image = writer.finish();
    written.ok = true;
    written.size = image.size;
    written.xxh64 = image.xxh64;
    std::lock_guard<std::mutex> lock(mutex_);
    epochs_written_.push_back(epoch_);
  } catch (const image::ImageError& e) {
    written.error = e.what();
  }
  send(written);
}

void FakeCheckpointRank::send(const Message& message) {
  // The listener can run before attach() in theory (a coordinator that is very quick).
  for (int i = 0; i < 1000 && !client_.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (auto* client = client_.load()) client->send(message);
}

}  // namespace yadokari::testing
