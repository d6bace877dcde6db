#pragma once
// Writes one rank's image. Only a complete image ever carries the final name: everything goes to
// `<path>.tmp`, which finish() syncs and renames (then syncs the directory). A writer destroyed
// before finish(), or one that failed, removes its .tmp, so a crash or a full disk leaves no
// partial file under the final name. The image's directory is opened once, as the writer is made,
// and the .tmp is created, renamed and synced relative to it (openat, renameat): a directory
// swapped for a symlink after that cannot redirect the image, and one that is a symlink already is
// refused (yadokari makes epoch directories itself).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "checkpoint/image/area.hpp"
#include "checkpoint/image/fd_io.hpp"
#include "common/atomic_file_stream.hpp"
#include "checkpoint/image/image_header.hpp"
#include "checkpoint/image/image_layout.hpp"
#include "checkpoint/image/payload_writer.hpp"

namespace yadokari::image {

struct WriterOptions {
  int compression_level = 0;     // 0: no compression; otherwise a zstd level (1..19; negative = faster)
  bool elide_zero_pages = true;  // leave out 4 KiB pages that are all zero
  // dmtcp: every area at an address (memory) goes into DMTCP's layout, uncompressed, its long zero
  // stretches as DMTCP's zero-page runs (whatever elide_zero_pages says); the other areas (the
  // shim's records) and every record with its checksum follow DMTCP's end-of-areas record. Full
  // images only.
  ImageLayout layout = ImageLayout::yadokari;
};

// What finish() produced: enough for the front end's MANIFEST.
struct WrittenImage {
  std::string path;
  std::uint64_t size = 0;   // bytes
  std::uint64_t xxh64 = 0;  // of the whole file
  std::uint32_t areas = 0;
  std::uint64_t parent_epoch = 0;  // an increment's parent epoch; 0 for a full image
  ImageLayout layout = ImageLayout::yadokari;
};

class ImageWriter {
 public:
  // Opens the directory of `path` (never through a symlink), creates `<path>.tmp` in it (mode 0600:
  // images hold application memory) and writes the header.
  ImageWriter(std::string path, ImageHeader header, WriterOptions options = {});
  ~ImageWriter();
  ImageWriter(const ImageWriter&) = delete;
  ImageWriter& operator=(const ImageWriter&) = delete;

  // Appends one area with the `length` bytes at `data`.
  void add_area(const AreaInfo& info, const void* data, std::size_t length);
  void add_area(const AreaInfo& info, std::span<const std::byte> data) { add_area(info, data.data(), data.size()); }

  // Appends a delta area (only in an increment, `header.parent` set): of the `length` bytes at
  // `data` only the pages listed in `written` (page runs from the area's start, e.g. from
  // pages_touching() of the dirty-page tracker's ranges) and the pages not wholly inside the
  // parent's area (`parent_length`: the length of the area with the same kind, name and address
  // in the parent image, 0 if it has none) that are not all zero. Every page changed since the
  // parent image must be in `written`: the record carries the hash of all `length` bytes, and a
  // restore from the chain that does not reproduce it is refused.
  void add_delta_area(const AreaInfo& info, const void* data, std::size_t length, std::span<const PageRun> written,
                      std::uint64_t parent_length);

  // Writes the end record, makes the image durable under its final name and returns its size and
  // hash. After an error (any ImageError) the writer is finished: the .tmp is gone.
  WrittenImage finish();

  // Another process (a forked writer with a copy of this object) finishes the image: close this
  // copy's descriptor, keep the .tmp, and never write again.
  void hand_over() noexcept;

 private:
  void write_area(const AreaInfo& info, const std::byte* data, std::uint64_t length);
  void write_delta_area(const AreaInfo& info, const std::byte* data, std::uint64_t length,
                        std::span<const PageRun> written, std::uint64_t parent_length);
  void write_dmtcp_area(const AreaInfo& info, const std::byte* data, std::uint64_t length);
  void append_records();
  void check_area(const AreaInfo& info, const void* data, std::size_t length) const;
  void check_usable() const;
  void abandon() noexcept;
  void close_directory() noexcept;

  std::string path_;
  std::string tmp_path_;
  int directory_fd_ = -1;  // path_'s directory, opened once: nothing resolves the path again
  WriterOptions options_;
  AtomicFileStream file_;
  // Where the header and the records go: the file, or in DMTCP's layout a spool (a memfd) that
  // finish() appends to the file after DMTCP's end-of-areas record.
  std::unique_ptr<io::BufferedOutput> out_;
  std::unique_ptr<io::BufferedOutput> memory_out_;  // DMTCP's layout only: the file
  int records_fd_ = -1;                             // DMTCP's layout only: the spool
  std::unique_ptr<PayloadWriter> payload_;
  std::uint64_t header_checksum_ = 0;
  std::uint64_t parent_epoch_ = 0;  // 0: a full image
  std::uint32_t areas_ = 0;
  bool done_ = false;
};

}  // namespace yadokari::image
