#include "runtime/agent/node_images.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <system_error>

#include "checkpoint/image/fd_io.hpp"
#include "checkpoint/image/file_hash.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/storage/image_verifier.hpp"
#include "checkpoint/storage/storage_error.hpp"
#include "common/posix_io.hpp"

namespace yadokari::agent {
namespace fs = std::filesystem;

NodeImages::NodeImages(fs::path dir, std::string job_id, std::string node)
    : dir_(std::move(dir)), job_id_(std::move(job_id)), node_(std::move(node)) {}

NodeImages::~NodeImages() {
  for (auto& [id, incoming] : incoming_) drop(incoming);
}

fs::path NodeImages::image_path(std::uint64_t epoch, std::int32_t rank) const {
  return dir_ / job_id_ / std::to_string(epoch) / ("rank-" + std::to_string(rank) + ".img");
}

std::string NodeImages::where(std::uint64_t epoch, std::int32_t rank) const {
  return "node " + node_ + ": " + image_path(epoch, rank).string();
}

std::string NodeImages::problem_with(std::uint64_t epoch, std::int32_t rank, std::uint64_t size,
                                     std::uint64_t xxh64) const {
  return problem_with_file(image_path(epoch, rank), epoch, rank, size, xxh64);
}

std::string NodeImages::problem_with_file(const fs::path& path, std::uint64_t epoch, std::int32_t rank,
                                          std::uint64_t size, std::uint64_t xxh64) const {
  std::error_code error;
  const auto actual = fs::file_size(path, error);
  const std::string here = "node " + node_ + ": " + path.string();
  if (error) return here + ": missing";
  if (actual != size) return here + ": " + std::to_string(actual) + " bytes, expected " + std::to_string(size);
  try {
    if (image::xxh64_of_file(path.string()) != xxh64) return here + ": xxh64 of the file does not match";
    storage::Manifest manifest;
    manifest.epoch = epoch;
    manifest.job_id = job_id_;
    storage::ManifestImage entry;
    entry.rank = static_cast<std::uint32_t>(rank);
    storage::verify_image(path, manifest, entry);
  } catch (const image::ImageError& e) {
    return here + ": " + e.detail();
  } catch (const storage::StorageError& e) {
    return here + ": " + e.what();
  }
  return {};
}

std::string NodeImages::send_copy(const protocol::ImageOrder& order,
                                  const std::function<void(protocol::ImageChunk&)>& send) const {
  if (auto problem = problem_with(order.epoch, order.rank, order.size, order.xxh64); !problem.empty()) return problem;
  const fs::path path = image_path(order.epoch, order.rank);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return where(order.epoch, order.rank) + ": cannot open: " + std::generic_category().message(errno);
  protocol::ImageChunk chunk;
  chunk.order_id = order.order_id;
  chunk.epoch = order.epoch;
  chunk.rank = order.rank;
  chunk.size = order.size;
  chunk.xxh64 = order.xxh64;
  chunk.to_node = order.to_node;
  std::string problem;
  try {
    // An empty image still sends one (last) chunk: the receiver answers on it.
    do {
      chunk.bytes.resize(protocol::ImageChunk::kMaxBytes);
      const std::size_t got =
          image::io::read_at(fd, chunk.offset, chunk.bytes.data(), chunk.bytes.size(), path.string());
      chunk.bytes.resize(got);
      chunk.last = chunk.offset + got >= order.size || got == 0;
      send(chunk);
      chunk.offset += got;
    } while (!chunk.last);
  } catch (const image::ImageError& e) {
    problem = where(order.epoch, order.rank) + ": " + e.detail();
  }
  ::close(fd);
  return problem;
}

std::optional<protocol::ImageOrderDone> NodeImages::receive(const protocol::ImageChunk& chunk) {
  const auto fail = [&](const std::string& why) {
    if (auto it = incoming_.find(chunk.order_id); it != incoming_.end()) {
      drop(it->second);
      incoming_.erase(it);
    }
    return protocol::ImageOrderDone{chunk.order_id, false, where(chunk.epoch, chunk.rank) + ": " + why};
  };
  const fs::path path = image_path(chunk.epoch, chunk.rank);
  auto it = incoming_.find(chunk.order_id);
  if (it == incoming_.end()) {
    if (chunk.offset != 0) return std::nullopt;  // the rest of a copy we already gave up on
    std::error_code error;
    fs::create_directories(path.parent_path(), error);
    if (error) return fail("cannot create the directory: " + error.message());
    Incoming incoming;
    std::string why;
    incoming.directory_fd = posix::open_directory(path.parent_path().string(), posix::LastLink::refuse, why);
    if (incoming.directory_fd < 0) return fail("cannot open the directory: " + why);
    incoming.tmp = path;
    incoming.tmp += ".tmp";
    if (const int error = incoming.file.create(incoming.directory_fd, path.filename().c_str(), O_WRONLY, 0600);
        error != 0) {
      ::close(incoming.directory_fd);
      return fail("cannot create: " + std::generic_category().message(error));
    }
    it = incoming_.emplace(chunk.order_id, std::move(incoming)).first;
  }
  Incoming& incoming = it->second;
  if (chunk.offset != incoming.next_offset) return fail("copy arrived out of order");
  try {
    image::io::write_all_at(incoming.file.fd(), chunk.offset, chunk.bytes.data(), chunk.bytes.size(),
                            incoming.tmp.string());
    incoming.next_offset += chunk.bytes.size();
    if (!chunk.last) return std::nullopt;
  } catch (const image::ImageError& e) {
    return fail(e.detail());
  }
  // Only a verified copy becomes the image (synced, renamed, the directory synced).
  if (auto problem = problem_with_file(incoming.tmp, chunk.epoch, chunk.rank, chunk.size, chunk.xxh64);
      !problem.empty())
    return fail("the copy failed verification: " + problem);
  if (const int error = incoming.file.commit(Durability::survives_crash); error != 0) {
    const std::string why = std::generic_category().message(error);
    switch (incoming.file.failed_step()) {
      case AtomicFileStream::Step::rename:
        return fail("cannot rename the copy into place: " + why);
      case AtomicFileStream::Step::sync_directory:
        return fail("cannot sync the directory: " + why);
      default:
        return fail("cannot write the copy to disk: " + why);
    }
  }
  drop(incoming);
  incoming_.erase(it);
  return protocol::ImageOrderDone{chunk.order_id, true, {}};
}

void NodeImages::keep_only(const std::vector<std::uint64_t>& epochs) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir_ / job_id_, error)) {
    const std::string name = entry.path().filename().string();
    std::uint64_t epoch = 0;
    const auto [end, parse] = std::from_chars(name.data(), name.data() + name.size(), epoch);
    if (parse != std::errc() || end != name.data() + name.size()) continue;  // not an epoch
    bool keep = false;
    for (const auto kept : epochs) keep = keep || kept == epoch;
    std::error_code ignored;
    if (!keep) fs::remove_all(entry.path(), ignored);
  }
}

void NodeImages::drop(Incoming& incoming) {
  incoming.file.abandon();  // nothing once committed
  if (incoming.directory_fd >= 0) ::close(incoming.directory_fd);
  incoming.directory_fd = -1;
}

}  // namespace yadokari::agent
