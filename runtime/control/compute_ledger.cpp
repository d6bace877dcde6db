#include "runtime/control/compute_ledger.hpp"

namespace yadokari::control {

bool ComputeTimes::any() const {
  for (const auto& s : seconds)
    if (s) return true;
  return false;
}

ComputeTimes ComputeLedger::on_commit(std::uint64_t epoch,
                                      const std::map<std::int32_t, protocol::ImageWritten>& images) {
  const auto world = static_cast<std::size_t>(world_size_ > 0 ? world_size_ : 0);
  ComputeTimes times{epoch, std::vector<std::optional<double>>(world), std::vector<std::string>(world)};
  std::map<std::int32_t, Reading> readings;
  for (const auto& [rank, image] : images) {
    if (rank < 0 || static_cast<std::size_t>(rank) >= world) continue;
    // An older shim, or a rank without a sampler: nothing measured.
    if (!(image.compute_seconds >= 0.0)) continue;
    double seconds = image.compute_seconds;
    if (const auto before = previous_.find(rank);
        before != previous_.end() && before->second.host == image.hostname && before->second.seconds <= seconds)
      seconds -= before->second.seconds;
    times.seconds[static_cast<std::size_t>(rank)] = seconds;
    times.hosts[static_cast<std::size_t>(rank)] = image.hostname;
    readings[rank] = Reading{image.compute_seconds, image.hostname};
  }
  bool some_zero = false, some_positive = false;
  for (const auto& s : times.seconds)
    if (s) (*s > 0.0 ? some_positive : some_zero) = true;
  if (some_zero && some_positive) {
    times.since_start = true;
    for (const auto& [rank, reading] : readings) times.seconds[static_cast<std::size_t>(rank)] = reading.seconds;
  }
  previous_ = std::move(readings);
  return times;
}

}  // namespace yadokari::control
