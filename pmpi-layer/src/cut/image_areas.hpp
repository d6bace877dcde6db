// Adapters between the memory layer's areas (checkpoint/memory/areas.hpp) and the image format
// (checkpoint/image): the capture streams into an ImageWriter, the restore reads the same areas
// back in the same order from an ImageReader. Blobs of the shim (its records) are skipped.
#pragma once

#include "memory/areas.hpp"
#include "image/image_reader.hpp"
#include "image/image_writer.hpp"

#include <cstddef>
#include <string>

namespace yk {

class ImageAreaSink final : public yadokari::memory::AreaSink {
 public:
  explicit ImageAreaSink(yadokari::image::ImageWriter& writer) : writer_(writer) {}
  bool area(yadokari::memory::AreaKind kind, std::uint64_t addr, std::uint64_t len, std::uint32_t prot,
            const char* name, const void* data) override;
  // With `background` (set before the capture) the memory contents go to a forked writer
  // (cut/background_image.hpp); then in_writer() tells the two processes apart afterwards.
  void write_in_background(std::uint64_t epoch) { background_epoch_ = epoch; }
  Split split() override;
  bool in_writer() const { return side_ == Side::writer; }
  bool handed_to_writer() const { return side_ == Side::rank; }
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  enum class Side { alone, writer, rank };
  yadokari::image::ImageWriter& writer_;
  std::uint64_t background_epoch_ = 0;  // 0: write here
  Side side_ = Side::alone;
  std::string error_;
};

class ImageAreaSource final : public yadokari::memory::AreaSource {
 public:
  explicit ImageAreaSource(const yadokari::image::ImageReader& reader) : reader_(reader) {}
  bool next(yadokari::memory::AreaHeader& header) override;
  bool read(void* dst) override;
  bool failed() const override { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  const yadokari::image::ImageReader& reader_;
  std::size_t next_ = 0;     // next record to look at
  std::size_t current_ = 0;  // the record next() returned
  std::string error_;
};

}  // namespace yk
