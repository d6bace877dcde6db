#pragma once
// A node agent's node-local image storage (--node-dir): <dir>/<job id>/<epoch>/rank-<L>.img, the
// very files the node's ranks wrote (or copies other agents sent). The agent verifies them, sends
// them to another node's agent in ImageChunks, receives such copies, and forgets old epochs.
// Nothing here talks to sockets: the agent passes messages in and sends what comes out.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/atomic_file_stream.hpp"
#include "protocol/codec.hpp"

namespace yadokari::agent {

class NodeImages {
 public:
  NodeImages(std::filesystem::path dir, std::string job_id, std::string node);
  ~NodeImages();
  NodeImages(const NodeImages&) = delete;
  NodeImages& operator=(const NodeImages&) = delete;

  std::filesystem::path image_path(std::uint64_t epoch, std::int32_t rank) const;

  // The whole check of the image this node holds: size and xxh64 as expected, every area
  // checksum, and a header naming this job, rank and epoch. Returns the problem, "" if good.
  std::string problem_with(std::uint64_t epoch, std::int32_t rank, std::uint64_t size, std::uint64_t xxh64) const;

  // A copy order: verifies the image, then hands `send` its chunks in order (it may add to them:
  // the job secret). Returns the problem
  // ("" when every chunk went out); the order is then answered by the receiving agent.
  std::string send_copy(const protocol::ImageOrder& order,
                        const std::function<void(protocol::ImageChunk&)>& send) const;

  // A chunk of a copy to this node. Returns the order's answer once the copy is complete (durable
  // and verified, then renamed into place) or failed; nothing while more chunks are due.
  std::optional<protocol::ImageOrderDone> receive(const protocol::ImageChunk& chunk);

  // Removes this job's epoch directories on this node that are not in `epochs`.
  void keep_only(const std::vector<std::uint64_t>& epochs);

 private:
  struct Incoming {
    int directory_fd = -1;      // the epoch's directory, opened once
    AtomicFileStream file;      // <image>.tmp, renamed to the image when verified
    std::filesystem::path tmp;  // its path, to verify it and to name it
    std::uint64_t next_offset = 0;
  };
  std::string problem_with_file(const std::filesystem::path& path, std::uint64_t epoch, std::int32_t rank,
                                std::uint64_t size, std::uint64_t xxh64) const;
  std::string where(std::uint64_t epoch, std::int32_t rank) const;  // "node n2: <path>"
  void drop(Incoming& incoming);

  std::filesystem::path dir_;
  std::string job_id_;
  std::string node_;
  std::map<std::uint64_t, Incoming> incoming_;  // by order id
};

}  // namespace yadokari::agent
