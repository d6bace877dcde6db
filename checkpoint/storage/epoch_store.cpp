#include "checkpoint/storage/epoch_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <set>
#include <system_error>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/posix_io.hpp"
#include "checkpoint/image/fd_io.hpp"
#include "checkpoint/image/image_chain.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_reader.hpp"
#include "checkpoint/storage/storage_error.hpp"

namespace yadokari::storage {
namespace fs = std::filesystem;
namespace {

constexpr const char* kManifestName = "MANIFEST";

// Epoch directories are canonical decimal numbers ("3", not "03" or "3.old").
std::optional<std::uint64_t> epoch_of(const std::string& name) {
  std::uint64_t epoch = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), epoch);
  if (error != std::errc() || end != name.data() + name.size() || std::to_string(epoch) != name) return std::nullopt;
  return epoch;
}

std::string read_text(const fs::path& path) {
  try {
    return image::io::read_regular_file(path.string());
  } catch (const image::ImageError& e) {
    throw StorageError(e.what());
  }
}

}  // namespace

EpochStore::EpochStore(fs::path dir) : dir_(std::move(dir)) {}

fs::path EpochStore::epoch_dir(std::uint64_t epoch) const { return dir_ / std::to_string(epoch); }

fs::path EpochStore::rank_image_path(std::uint64_t epoch, std::uint32_t rank) const {
  return epoch_dir(epoch) / rank_image_name(rank);
}

std::string EpochStore::rank_image_name(std::uint32_t rank) { return "rank-" + std::to_string(rank) + ".img"; }

fs::path EpochStore::manifest_path(std::uint64_t epoch) const { return epoch_dir(epoch) / kManifestName; }

void EpochStore::create_epoch_dir(std::uint64_t epoch) const {
  // The checkpoint directory itself may be made here, never its parents: a typo in a parent must
  // not grow a tree somewhere (runtime/README.md, checkpoint directory errors).
  if (::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST)
    throw StorageError("cannot create " + dir_.string() + ": " + std::strerror(errno));
  // A new epoch's directory is new: one that exists already (or a symlink planted under its
  // name) is not this epoch's to write into.
  const std::string path = epoch_dir(epoch).string();
  if (::mkdir(path.c_str(), 0700) != 0) throw StorageError("cannot create " + path + ": " + std::strerror(errno));
}

void EpochStore::commit(std::uint64_t epoch, Manifest manifest) const {
  const std::string what = "cannot commit epoch " + std::to_string(epoch) + ": ";
  if (manifest.epoch != epoch) throw StorageError(what + "its MANIFEST names epoch " + std::to_string(manifest.epoch));
  const auto committed = committed_epochs();
  if (!committed.empty() && committed.back() >= epoch)
    throw StorageError(what + "epoch " + std::to_string(committed.back()) + " is already committed");
  // The images are checked and the MANIFEST written relative to the epoch's directory opened once
  // (never through a symlink): what was checked is what gets committed.
  std::string why;
  const int directory_fd = posix::open_directory(epoch_dir(epoch).string(), posix::LastLink::refuse, why);
  if (directory_fd < 0) throw StorageError(what + "cannot open " + epoch_dir(epoch).string() + ": " + why);
  struct DirectoryCloser {
    int fd;
    ~DirectoryCloser() { ::close(fd); }
  } closer{directory_fd};
  std::set<std::uint32_t> ranks;
  for (const auto& image : manifest.images) {
    if (image.rank >= manifest.world_size || !ranks.insert(image.rank).second)
      throw StorageError(what + "rank " + std::to_string(image.rank) + " is listed twice or out of range");
    if (!image.nodes.empty()) continue;  // node-local storage: its agents verified the copies
    struct stat st {};
    if (image.file.find('/') != std::string::npos ||
        ::fstatat(directory_fd, image.file.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
      throw StorageError(what + image.file + " is missing");
    if (static_cast<std::uint64_t>(st.st_size) != image.size)
      throw StorageError(what + image.file + " has " + std::to_string(st.st_size) + " bytes, not " +
                         std::to_string(image.size));
  }
  if (ranks.size() != manifest.world_size)
    throw StorageError(what + std::to_string(ranks.size()) + " images for " + std::to_string(manifest.world_size) +
                       " ranks");
  if (manifest.commit_time.empty()) manifest.commit_time = utc_now_iso8601();
  try {
    // The epoch's directory entry in D made durable before the MANIFEST that commits it: the
    // MANIFEST's own fsyncs cover the epoch's directory, not its name in D, and pruning may
    // already have removed the older epochs for good.
    image::io::sync_directory(dir_.string());
    write_file_atomically_at(directory_fd, kManifestName, manifest_path(epoch), to_json_text(manifest),
                             Durability::survives_crash);
  } catch (const IoError& e) {
    throw StorageError(e.what());
  }
}

std::optional<Manifest> EpochStore::read_manifest(std::uint64_t epoch) const {
  return read_manifest_as(epoch, manifest_path(epoch).string());
}

std::optional<Manifest> EpochStore::read_manifest_as(std::uint64_t epoch, const std::string& origin) const {
  const fs::path path = manifest_path(epoch);
  std::error_code error;
  if (!fs::exists(path, error)) return std::nullopt;
  return manifest_from_json_text(read_text(path), origin);
}

std::vector<std::uint64_t> EpochStore::all_epochs() const {
  std::vector<std::uint64_t> epochs;
  std::error_code error;
  for (fs::directory_iterator it(dir_, error), end; !error && it != end; it.increment(error)) {
    const auto epoch = epoch_of(it->path().filename().string());
    if (epoch && it->is_directory(error)) epochs.push_back(*epoch);
  }
  std::sort(epochs.begin(), epochs.end());
  return epochs;
}

std::vector<std::uint64_t> EpochStore::committed_epochs() const {
  std::vector<std::uint64_t> epochs;
  std::error_code error;
  for (const auto epoch : all_epochs())
    if (fs::exists(manifest_path(epoch), error)) epochs.push_back(epoch);
  return epochs;
}

std::uint64_t EpochStore::next_epoch() const {
  const auto epochs = all_epochs();
  if (epochs.empty()) return 1;
  // Wrapping to 0 would number the next epoch below every committed one: it would never be used.
  if (epochs.back() == std::numeric_limits<std::uint64_t>::max())
    throw StorageError("no epoch number is left after " + std::to_string(epochs.back()) + " in " + dir_.string());
  return epochs.back() + 1;
}

std::optional<std::string> EpochStore::problem_with(std::uint64_t epoch, const ImageVerifier& verify,
                                                    std::optional<Manifest>& manifest) const {
  try {
    manifest = read_manifest_as(epoch, kManifestName);
  } catch (const StorageError& e) {
    return e.what();
  }
  if (!manifest) return "MANIFEST is missing";
  if (manifest->epoch != epoch) return "MANIFEST names epoch " + std::to_string(manifest->epoch);
  if (manifest->images.size() != manifest->world_size)
    return "MANIFEST lists " + std::to_string(manifest->images.size()) + " images for " +
           std::to_string(manifest->world_size) + " ranks";
  for (const auto& image : manifest->images) {
    if (!image.nodes.empty()) {
      // Node-local storage (--node-dir): only the running job's agents can reach the images.
      std::string nodes;
      for (const auto& node : image.nodes) nodes += (nodes.empty() ? "" : ", ") + node;
      return image.file + " is kept on node-local storage of " + nodes + " (--node-dir), not in this directory";
    }
    const fs::path path = epoch_dir(epoch) / image.file;
    std::error_code error;
    const auto size = fs::file_size(path, error);
    if (error) return image.file + ": missing";
    if (size != image.size)
      return image.file + ": " + std::to_string(size) + " bytes, MANIFEST says " + std::to_string(image.size);
    try {
      verify(path, *manifest, image);
    } catch (const image::ImageError& e) {
      return image.file + ": " + e.detail();
    } catch (const StorageError& e) {
      return image.file + ": " + e.what();
    }
    if (const auto problem = chain_problem(epoch, image, verify)) return image.file + ": " + *problem;
  }
  return std::nullopt;
}

std::vector<fs::path> EpochStore::image_chain(std::uint64_t epoch, std::uint32_t rank) const {
  std::vector<fs::path> paths{rank_image_path(epoch, rank)};
  for (std::uint64_t at = epoch;;) {
    std::optional<image::ParentImage> parent;
    try {
      parent = image::ImageReader(paths.back().string()).header().parent;
    } catch (const image::ImageError& e) {
      throw StorageError(e.what());
    }
    if (!parent) break;
    const std::string link = "epoch " + std::to_string(at) + "'s " + rank_image_name(rank) +
                             " is an increment of epoch " + std::to_string(parent->epoch);
    // Epochs only grow, so a parent is always older: anything else is a loop or a forgery.
    if (parent->epoch >= at) throw StorageError(link + ", which is not older");
    std::error_code error;
    if (!fs::exists(manifest_path(parent->epoch), error)) throw StorageError(link + ", which is not committed");
    at = parent->epoch;
    paths.push_back(rank_image_path(at, rank));
  }
  std::reverse(paths.begin(), paths.end());
  return paths;
}

std::optional<std::string> EpochStore::chain_problem(std::uint64_t epoch, const ManifestImage& image,
                                                     const ImageVerifier& verify) const {
  std::vector<fs::path> chain;
  try {
    chain = image_chain(epoch, image.rank);
  } catch (const StorageError& e) {
    return std::string("increment chain: ") + e.what();
  }
  if (chain.size() == 1) return std::nullopt;
  // Every earlier link gets the full check its own epoch would get (size, `verify`)...
  for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
    const std::string name = chain[i].parent_path().filename().string();
    const std::string where = "increment chain: epoch " + name + ": ";
    const auto link_epoch = epoch_of(name);
    std::optional<Manifest> manifest;
    try {
      manifest = read_manifest_as(*link_epoch, kManifestName);
    } catch (const StorageError& e) {
      return where + e.what();
    }
    const ManifestImage* entry = nullptr;
    for (const auto& candidate : manifest->images)
      if (candidate.rank == image.rank) entry = &candidate;
    if (!entry) return where + "MANIFEST lists no image of rank " + std::to_string(image.rank);
    if (!entry->nodes.empty()) return where + entry->file + " is kept on node-local storage (--node-dir)";
    std::error_code error;
    const auto size = fs::file_size(chain[i], error);
    if (error) return where + entry->file + ": missing";
    if (size != entry->size)
      return where + entry->file + ": " + std::to_string(size) + " bytes, MANIFEST says " + std::to_string(entry->size);
    try {
      verify(chain[i], *manifest, *entry);
    } catch (const image::ImageError& e) {
      return where + entry->file + ": " + e.detail();
    } catch (const StorageError& e) {
      return where + entry->file + ": " + e.what();
    }
  }
  // ...and the links must fit together.
  try {
    std::vector<image::ImageReader> links;
    for (const auto& path : chain) links.emplace_back(path.string());
    const image::ImageChain checked(std::move(links));
  } catch (const image::ImageError& e) {
    return std::string("increment chain: ") + e.what();
  }
  return std::nullopt;
}

std::optional<std::set<std::uint64_t>> EpochStore::ancestors(std::uint64_t epoch) const {
  std::set<std::uint64_t> found;
  std::vector<std::uint64_t> todo{epoch};
  std::set<std::uint64_t> seen;
  while (!todo.empty()) {
    const std::uint64_t at = todo.back();
    todo.pop_back();
    if (!seen.insert(at).second) continue;
    std::optional<Manifest> manifest;
    try {
      manifest = read_manifest(at);
    } catch (const StorageError&) {
      return std::nullopt;
    }
    if (!manifest) return std::nullopt;
    for (const auto& image : manifest->images) {
      std::set<std::uint64_t> parents;
      if (image.parent_epoch != 0) parents.insert(image.parent_epoch);
      // An image here names its parent in its header too, whatever the MANIFEST says.
      const fs::path path = epoch_dir(at) / image.file;
      std::error_code error;
      if (image.nodes.empty() && fs::exists(path, error)) {
        try {
          const image::ImageReader reader(path.string());
          if (reader.header().parent) parents.insert(reader.header().parent->epoch);
        } catch (const image::ImageError&) {
          return std::nullopt;  // unreadable: what it needs is unknown
        }
      }
      for (const auto parent : parents) {
        if (parent >= at) return std::nullopt;
        found.insert(parent);
        todo.push_back(parent);
      }
    }
  }
  return found;
}

EpochChoice EpochStore::newest_good_epoch(const ImageVerifier& verify) const {
  EpochChoice choice;
  auto committed = committed_epochs();
  for (auto it = committed.rbegin(); it != committed.rend(); ++it) {
    std::optional<Manifest> manifest;
    if (const auto problem = problem_with(*it, verify, manifest)) {
      choice.skipped.push_back("epoch " + std::to_string(*it) + ": " + *problem);
      continue;
    }
    choice.epoch = *it;
    choice.manifest = std::move(manifest);
    break;
  }
  return choice;
}

std::vector<std::uint64_t> EpochStore::prune(unsigned keep, const KnownChains& known) const {
  const auto committed = committed_epochs();
  if (committed.empty()) return {};
  keep = std::max(keep, 1u);
  const std::uint64_t newest = committed.back();
  const std::set<std::uint64_t> kept(committed.end() - std::min<std::size_t>(keep, committed.size()), committed.end());
  // A kept increment needs its base and the increments in between.
  std::set<std::uint64_t> needed = kept;
  std::uint64_t keep_all_below = 0;  // a kept epoch whose chain is unknown: keep everything older
  for (const auto epoch : kept) {
    if (const auto at = known.find(epoch); at != known.end())
      needed.insert(at->second.begin(), at->second.end());
    else if (const auto chain = ancestors(epoch))
      needed.insert(chain->begin(), chain->end());
    else
      keep_all_below = std::max(keep_all_below, epoch);
  }

  std::vector<std::uint64_t> removed;
  for (const auto epoch : all_epochs()) {
    if (epoch >= newest || needed.count(epoch) || epoch < keep_all_below) continue;
    // The MANIFEST goes first, durably: an interrupted prune leaves an uncommitted directory,
    // never a committed epoch with images missing.
    std::error_code error;
    if (fs::remove(manifest_path(epoch), error)) {
      try {
        image::io::sync_directory(epoch_dir(epoch).string());
      } catch (const image::ImageError& e) {
        throw StorageError(std::string("cannot prune: ") + e.what());
      }
    }
    if (error) throw StorageError("cannot prune epoch " + std::to_string(epoch) + ": " + error.message());
    fs::remove_all(epoch_dir(epoch), error);
    if (error) throw StorageError("cannot prune epoch " + std::to_string(epoch) + ": " + error.message());
    removed.push_back(epoch);
  }
  return removed;
}

void EpochStore::check_writable(std::uint64_t min_free_bytes) const { storage::check_writable(dir_, min_free_bytes); }

}  // namespace yadokari::storage
