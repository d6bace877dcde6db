#include "runtime/frontend/restart_checks.hpp"

#include <exception>
#include <set>
#include <vector>

#include "runtime/frontend/frontend_error.hpp"
#include "checkpoint/image/binary_identity.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_reader.hpp"
#include "checkpoint/storage/epoch_store.hpp"
#include "checkpoint/storage/storage_error.hpp"

namespace yadokari::frontend {
namespace fs = std::filesystem;
namespace {

// "epoch 3: rank-1.img: ..." (EpochChoice::skipped) -> {"3", "rank-1.img: ..."}
std::pair<std::string, std::string> split_skipped(const std::string& line) {
  const auto colon = line.find(": ");
  if (line.rfind("epoch ", 0) != 0 || colon == std::string::npos) return {"?", line};
  return {line.substr(6, colon - 6), line.substr(colon + 2)};
}

std::string with_size(const image::BinaryIdentity& binary) {
  return image::describe_identity(binary) + ", " + std::to_string(binary.size) + " bytes";
}

launch::MpiFlavour app_flavour(const fs::path& app, const JobFile& job, const std::string& checkpoint_flavour) {
  const auto detected = launch::detect_flavour(app);
  if (detected.outcome == launch::FlavourDetection::Outcome::detected) {
    if (std::string(launch::flavour_name(*detected.flavour)) != checkpoint_flavour)
      throw FrontendError(ErrorKind::failure, "the checkpoint was taken with " + checkpoint_flavour + " but " +
                                                  job.app + " uses " +
                                                  std::string(launch::flavour_name(*detected.flavour)));
    return *detected.flavour;
  }
  // A script or a dlopen-ing interpreter: `run` trusted --mpi then, and so does restart.
  const auto recorded = launch::parse_flavour(job.flavour);
  if (!recorded || job.flavour != checkpoint_flavour)
    throw FrontendError(ErrorKind::failure, "the checkpoint was taken with " + checkpoint_flavour + " but " + job.app +
                                                " uses " + job.flavour);
  return *recorded;
}

}  // namespace

RestartChoice choose_restart(const fs::path& dir, const JobFile& job, const fs::path& app, std::optional<int> ranks) {
  const storage::EpochStore store(dir);
  storage::EpochChoice choice;
  try {
    choice = store.newest_good_epoch();
  } catch (const storage::StorageError& e) {
    throw FrontendError(ErrorKind::failure, e.what());
  }
  if (!choice.epoch) {
    std::string why;
    for (const auto& line : choice.skipped) why += (why.empty() ? " (" : "; ") + line;
    throw FrontendError(ErrorKind::failure, "no usable checkpoint in " + dir.string() + (why.empty() ? "" : why + ")"));
  }
  RestartChoice result;
  result.epoch = *choice.epoch;
  result.epoch_dir = store.epoch_dir(result.epoch);
  const auto& manifest = *choice.manifest;
  const std::string epoch_text = "epoch " + std::to_string(result.epoch);

  if (manifest.images.size() != static_cast<std::size_t>(job.world_size))
    throw FrontendError(ErrorKind::failure, epoch_text + " has " + std::to_string(manifest.images.size()) +
                                                " images but the job has " + std::to_string(job.world_size) + " ranks");
  if (ranks && *ranks != job.world_size)
    throw FrontendError(ErrorKind::failure, "the checkpoint is of a " + std::to_string(job.world_size) +
                                                "-rank job; -n " + std::to_string(*ranks) + " cannot restore it");

  image::ImageHeader header;
  try {
    header = image::ImageReader(store.rank_image_path(result.epoch, 0).string()).header();
  } catch (const image::ImageError& e) {
    throw FrontendError(ErrorKind::failure, e.what());
  }
  result.flavour = app_flavour(app, job, header.flavour);

  if (!header.binaries.empty()) {
    const image::BinaryIdentity& saved = header.binaries.front();
    image::BinaryIdentity now;
    try {
      now = image::identify_file(app.string());
    } catch (const image::ImageError& e) {
      throw FrontendError(ErrorKind::failure, e.what());
    }
    if (now.kind != saved.kind || now.id != saved.id || now.size != saved.size)
      throw FrontendError(ErrorKind::failure, job.app + " changed since the checkpoint (was " + with_size(saved) +
                                                  "; now " + with_size(now) + ")");
  }

  for (const auto& line : choice.skipped) {
    const auto [epoch, problem] = split_skipped(line);
    result.notes.push_back("epoch " + epoch + " is not usable (" + problem + "); using " + epoch_text);
  }
  return result;
}

std::optional<NodeLocalCheckpoint> node_local_checkpoint(const fs::path& dir, const JobFile& job, const fs::path& app,
                                                         std::optional<int> ranks) {
  const storage::EpochStore store(dir);
  std::optional<storage::Manifest> manifest;
  std::vector<std::uint64_t> committed;
  try {
    committed = store.committed_epochs();
  } catch (const storage::StorageError& e) {
    throw FrontendError(ErrorKind::failure, e.what());
  }
  // The newest epoch whose MANIFEST can be read: an unreadable one (damaged, not a regular file)
  // is skipped here as choose_restart skips it, with its reason, when the epoch is chosen.
  for (auto epoch = committed.rbegin(); epoch != committed.rend() && !manifest; ++epoch) {
    try {
      manifest = store.read_manifest(*epoch);
    } catch (const std::exception&) {
      continue;
    }
  }
  if (!manifest) return std::nullopt;
  std::set<std::string> nodes;
  for (const auto& image : manifest->images) nodes.insert(image.nodes.begin(), image.nodes.end());
  if (nodes.empty()) return std::nullopt;
  NodeLocalCheckpoint result;
  result.newest = manifest->epoch;
  result.job_id = manifest->job_id;
  for (const auto& node : nodes) result.nodes += (result.nodes.empty() ? "" : ", ") + node;
  const std::string epoch_text = "epoch " + std::to_string(manifest->epoch);
  if (manifest->world_size != static_cast<std::uint32_t>(job.world_size))
    throw FrontendError(ErrorKind::failure, epoch_text + " has " + std::to_string(manifest->world_size) +
                                                " images but the job has " + std::to_string(job.world_size) + " ranks");
  if (ranks && *ranks != job.world_size)
    throw FrontendError(ErrorKind::failure, "the checkpoint is of a " + std::to_string(job.world_size) +
                                                "-rank job; -n " + std::to_string(*ranks) + " cannot restore it");
  result.flavour = app_flavour(app, job, manifest->flavour);
  return result;
}

}  // namespace yadokari::frontend
