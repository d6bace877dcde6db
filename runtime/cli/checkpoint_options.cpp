#include "runtime/cli/checkpoint_options.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <system_error>

#include "runtime/cli/cli_error.hpp"
#include "runtime/cli/option_source.hpp"
#include "checkpoint/storage/storage_error.hpp"
#include "checkpoint/storage/writable_check.hpp"
#include "common/parameters.hpp"

namespace yadokari::cli {

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

void check_ckpt_dir_flag(const CheckpointFlags& flags) {
  // An empty value ("$UNSET_VARIABLE") must not mean "no checkpoints", and CLI11 takes the next
  // word as the value of an empty "--ckpt-dir=": "--ckpt-dir= -- app" would checkpoint into "--".
  if (flags.ckpt_dir_given && flags.ckpt_dir.empty())
    throw CliError(exit_code::usage, "--ckpt-dir needs a directory, not ''");
  if (flags.ckpt_dir.starts_with('-'))
    throw CliError(exit_code::usage, "--ckpt-dir needs a directory, not '" + flags.ckpt_dir + "' (write ./" +
                                         flags.ckpt_dir + " for a name that starts with '-')");
}

CheckpointSettings resolve_checkpoint_settings(const CheckpointFlags& flags, const EnvLookup& env) {
  CheckpointSettings settings;
  check_ckpt_dir_flag(flags);
  if (auto dir = pick_option(flags.ckpt_dir, "--ckpt-dir", yadokari::parameters::kCkptDir, env))
    settings.dir = dir->value;

  if (auto interval = pick_option(flags.interval, "--interval", yadokari::parameters::kCkptInterval, env)) {
    char* end = nullptr;
    const double seconds = std::strtod(interval->value.c_str(), &end);
    if (end != interval->value.c_str() + interval->value.size() || !std::isfinite(seconds) || seconds < 0)
      throw CliError(exit_code::usage,
                     interval->name + " must be a number of seconds (0 or more), not '" + interval->value + "'");
    settings.interval_seconds = seconds;
  }
  if (auto stop =
          pick_option(flags.stop_after_epoch, "--stop-after-epoch", yadokari::parameters::kStopAfterEpoch, env)) {
    const auto epoch = whole_number<std::uint64_t>(stop->value);
    if (!epoch || *epoch < 1)
      throw CliError(exit_code::usage, stop->name + " must be an epoch number (1 or more), not '" + stop->value + "'");
    settings.stop_after_epoch = *epoch;
  }
  if (auto keep = pick_option(flags.keep, "--keep", yadokari::parameters::kKeep, env)) {
    const auto count = whole_number<unsigned>(keep->value);
    if (!count || *count < 1)
      throw CliError(exit_code::usage,
                     keep->name + " must be a whole number of epochs (1 or more), not '" + keep->value + "'");
    settings.keep = *count;
  }
  if (auto compress = pick_option(flags.compress, "--compress", yadokari::parameters::kCkptCompress, env)) {
    const auto level = whole_number<int>(compress->value);
    if (!level || *level < 0 || *level > 19)
      throw CliError(exit_code::usage,
                     compress->name + " must be a zstd level from 0 (off) to 19, not '" + compress->value + "'");
    settings.compression = *level;
  }
  if (auto full = pick_option(flags.full_every, "--full-every", yadokari::parameters::kCkptFullEvery, env)) {
    const auto count = whole_number<unsigned>(full->value);
    if (!count || *count < 1)
      throw CliError(exit_code::usage,
                     full->name + " must be a whole number of epochs (1 or more), not '" + full->value + "'");
    settings.full_every = *count;
  }

  if (auto format = pick_option(flags.image_format, "--image-format", yadokari::parameters::kImageFormat, env)) {
    if (format->value != "yadokari" && format->value != "dmtcp")
      throw CliError(exit_code::usage, format->name + " must be yadokari or dmtcp, not '" + format->value + "'");
    settings.image_format = format->value;
  }

  if (auto node_dir = pick_option(flags.node_dir, "--node-dir", yadokari::parameters::kNodeDir, env)) {
    // The ranks and agents of every node use this very path: relative would mean a different
    // place per node's working directory.
    if (!std::filesystem::path(node_dir->value).is_absolute())
      throw CliError(exit_code::usage, node_dir->name + " must be an absolute path (the same on every node), not '" +
                                           node_dir->value + "'");
    settings.node_dir = std::filesystem::path(node_dir->value).lexically_normal();
  }

  // Only the flags are checked here: a YADOKARI_CKPT_INTERVAL left in the environment must not
  // break a job that does not checkpoint.
  if (!settings.dir) {
    if (!flags.interval.empty()) throw CliError(exit_code::usage, "--interval needs --ckpt-dir");
    if (!flags.stop_after_epoch.empty()) throw CliError(exit_code::usage, "--stop-after-epoch needs --ckpt-dir");
    if (!flags.node_dir.empty())
      throw CliError(exit_code::usage, "--node-dir needs --ckpt-dir (the MANIFESTs stay there)");
  }
  return settings;
}

std::filesystem::path prepare_checkpoint_dir(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path absolute = fs::absolute(dir, error).lexically_normal();
  if (error)
    throw CliError(exit_code::failure,
                   "checkpoint directory " + dir.string() + " cannot be created: " + error.message());
  if (!absolute.has_filename()) absolute = absolute.parent_path();  // "ckpt/" -> "ckpt"
  // Only D itself is created: a typo in a parent should not grow a tree somewhere.
  const fs::path parent = absolute.parent_path();
  if (!fs::exists(absolute, error) && !fs::exists(parent, error))
    throw CliError(exit_code::failure, "checkpoint directory " + dir.string() +
                                           " cannot be created: " + parent.string() + " does not exist");
  try {
    storage::check_writable(dir);
  } catch (const storage::StorageError& e) {
    throw CliError(exit_code::failure, e.what());
  }
  return absolute;
}

}  // namespace yadokari::cli
