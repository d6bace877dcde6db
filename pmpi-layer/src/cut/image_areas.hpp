// Adapters between the memory layer's areas (checkpoint/memory/areas.hpp) and the image format
// (checkpoint/image): the capture streams into an ImageWriter, the restore reads the same areas
// back in the same order from an ImageReader. Blobs of the shim (its records) are skipped.
#pragma once

#include "pmpi-layer/src/cut/incremental_image.hpp"
#include "checkpoint/memory/areas.hpp"
#include "checkpoint/memory/written_pages.hpp"
#include "checkpoint/image/image_chain.hpp"
#include "checkpoint/image/image_writer.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace yadokari::shim {

class ImageAreaSink final : public yadokari::memory::AreaSink {
 public:
  explicit ImageAreaSink(yadokari::image::ImageWriter& writer) : writer_(writer) {}
  bool area(yadokari::memory::AreaKind kind, std::uint64_t addr, std::uint64_t len, std::uint32_t prot,
            const char* name, const void* data) override;
  // With `background` (set before the capture) the memory contents go to a forked writer
  // (cut/background_image.hpp); then in_writer() tells the two processes apart afterwards.
  void write_in_background(std::uint64_t epoch) { background_epoch_ = epoch; }
  // The image of `epoch` is an increment when `plan.parent` is set (the writer's header says so):
  // the tracked areas then go in as delta areas of the pages written since the parent. Before the
  // split the sink collects the written pages in the rank, for this image and the next.
  void set_plan(std::uint64_t epoch, incremental_image::Plan plan) {
    epoch_ = epoch;
    plan_ = std::move(plan);
  }
  Split split() override;
  bool in_writer() const { return side_ == Side::writer; }
  bool handed_to_writer() const { return side_ == Side::rank; }
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  enum class Side { alone, writer, rank };
  void collect_written_pages();
  bool write_delta(yadokari::image::AreaInfo info, const void* data, std::uint64_t len);

  yadokari::image::ImageWriter& writer_;
  std::uint64_t background_epoch_ = 0;  // 0: write here
  std::uint64_t epoch_ = 0;
  incremental_image::Plan plan_;
  bool pages_listed_ = false;  // `written_` holds every page written since the parent image
  std::vector<yadokari::memory::WrittenRange> written_;
  Side side_ = Side::alone;
  std::string error_;
};

// Reads the newest image of a chain (a full image alone, or a base and its increments).
class ImageAreaSource final : public yadokari::memory::AreaSource {
 public:
  explicit ImageAreaSource(const yadokari::image::ImageChain& chain) : chain_(chain) {}
  bool next(yadokari::memory::AreaHeader& header) override;
  bool read(void* dst) override;
  bool failed() const override { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  const yadokari::image::ImageChain& chain_;
  std::size_t next_ = 0;     // next record to look at
  std::size_t current_ = 0;  // the record next() returned
  std::string error_;
};

}  // namespace yadokari::shim
