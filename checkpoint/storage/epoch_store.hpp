#pragma once
// The checkpoint directory of a job:
//
//   <dir>/<epoch>/rank-<L>.img   written by rank L (ImageWriter: .tmp, fsync, rename)
//   <dir>/<epoch>/MANIFEST       written last by the front end, once every image is durable
//
// An epoch is committed exactly when its MANIFEST exists. Epoch directories are plain decimal
// numbers; anything else in <dir> is ignored.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checkpoint/storage/image_verifier.hpp"
#include "checkpoint/storage/manifest.hpp"
#include "checkpoint/storage/writable_check.hpp"

namespace yadokari::storage {

// The result of looking for an epoch to restart from.
struct EpochChoice {
  std::optional<std::uint64_t> epoch;  // none: no committed epoch is usable
  std::optional<Manifest> manifest;    // that epoch's MANIFEST
  // One line per newer committed epoch that was passed over, newest first, e.g.
  // "epoch 3: rank-1.img: checksum mismatch in area 'heap'".
  std::vector<std::string> skipped;
};

class EpochStore {
 public:
  explicit EpochStore(std::filesystem::path dir);

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path epoch_dir(std::uint64_t epoch) const;
  std::filesystem::path rank_image_path(std::uint64_t epoch, std::uint32_t rank) const;
  static std::string rank_image_name(std::uint32_t rank);  // "rank-<L>.img"

  // Creates <dir>/<epoch> before its images are written, and <dir> itself when it is missing
  // (never its parents); an epoch directory that exists already (or a symlink in its place) is
  // refused: StorageError.
  void create_epoch_dir(std::uint64_t epoch) const;

  // Commits an epoch: checks that the MANIFEST lists one image per rank, each present with the
  // listed size (images on node-local storage, listed with their nodes, were verified there),
  // and that the epoch is newer than every committed one; then writes MANIFEST
  // (.tmp, fsync, rename, fsync of the directory). Fills in commit_time when it is empty.
  void commit(std::uint64_t epoch, Manifest manifest) const;

  // The MANIFEST of an epoch; nullopt if it is not committed. Throws StorageError if unreadable.
  std::optional<Manifest> read_manifest(std::uint64_t epoch) const;

  std::vector<std::uint64_t> committed_epochs() const;  // ascending
  std::vector<std::uint64_t> all_epochs() const;        // ascending, committed or not
  // 1 + the highest epoch directory (1 if none); StorageError when that would wrap.
  std::uint64_t next_epoch() const;

  // The newest committed epoch whose images all exist, have the listed sizes and pass `verify`,
  // and, for an image that is an increment, whose whole chain does: every earlier image it is
  // built on is in a committed epoch, has its listed size, passes `verify`, and the links match
  // (image::ImageChain). So a damaged increment or base makes the restart fall back to the newest
  // epoch whose whole chain verifies.
  EpochChoice newest_good_epoch(const ImageVerifier& verify = verify_image) const;

  // The images a restore of `rank` at `epoch` reads: the base (a full image) first, then each
  // increment up to `epoch`'s own image (one path for a full image). Follows the images' headers;
  // throws StorageError when a link's epoch is not committed or its image cannot be read.
  std::vector<std::filesystem::path> image_chain(std::uint64_t epoch, std::uint32_t rank) const;

  // Keeps the newest `keep` committed epochs (at least 1: the newest committed is never deleted)
  // and every epoch their images' chains need (a base and the increments in between, from the
  // MANIFESTs' parent_epoch and the images' headers; when a kept epoch's MANIFEST cannot be read,
  // every older epoch is kept), and leaves alone every directory newer than the newest committed
  // one (it may be in progress). Deletes older committed epochs and stale uncommitted directories
  // older than the newest committed one. Returns the epochs removed, ascending. `known` holds the
  // chains a caller already knows (the front end, of the epochs it committed itself: what their
  // ranks reported), which are then not read from the MANIFESTs and images again.
  using KnownChains = std::map<std::uint64_t, std::set<std::uint64_t>>;
  std::vector<std::uint64_t> prune(unsigned keep, const KnownChains& known = {}) const;

  // The epochs the images of `epoch` are built on (not `epoch` itself), read from its MANIFEST and
  // images and theirs; nullopt if unknown.
  std::optional<std::set<std::uint64_t>> ancestors(std::uint64_t epoch) const;

  void check_writable(std::uint64_t min_free_bytes = kDefaultMinFreeBytes) const;

 private:
  std::filesystem::path manifest_path(std::uint64_t epoch) const;
  // `origin` names the MANIFEST in errors.
  std::optional<Manifest> read_manifest_as(std::uint64_t epoch, const std::string& origin) const;
  // Why a committed epoch cannot be used, or nullopt if it can.
  std::optional<std::string> problem_with(std::uint64_t epoch, const ImageVerifier& verify,
                                          std::optional<Manifest>& manifest) const;
  // Why the chain under an increment cannot be used, or nullopt (also for a full image).
  std::optional<std::string> chain_problem(std::uint64_t epoch, const ManifestImage& image,
                                           const ImageVerifier& verify) const;
  std::filesystem::path dir_;
};

}  // namespace yadokari::storage
