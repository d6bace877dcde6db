#pragma once
// Yields the stored pages of one area in order, from the raw or zstd payload that follows the
// run list, unshuffled if they were shuffled (internal). A payload that does not decode to exactly
// the expected bytes is reported as `false`, which the reader turns into a checksum error for the
// area.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

typedef struct ZSTD_DCtx_s ZSTD_DCtx;

namespace yadokari::image {

class PayloadReader {
 public:
  PayloadReader(int fd, std::string file, std::uint64_t offset, std::uint64_t size, bool compressed,
                bool shuffled = false);
  ~PayloadReader();
  PayloadReader(const PayloadReader&) = delete;
  PayloadReader& operator=(const PayloadReader&) = delete;

  // Fills exactly `size` bytes; false if the payload ends or fails to decode first. Shuffled
  // pages are read whole: every read but an area's last starts and ends at a page boundary.
  bool read(std::byte* out, std::size_t size);

  // True when the payload was consumed exactly: nothing left over, the zstd frame complete.
  bool finished();

 private:
  bool refill();
  bool read_raw(std::byte* out, std::size_t size);
  bool read_compressed(std::byte* out, std::size_t size);

  int fd_;
  std::string file_;
  std::uint64_t next_;       // file offset of the next payload byte not yet read
  std::uint64_t remaining_;  // payload bytes not yet read from the file
  bool compressed_;
  bool shuffled_;
  std::uint64_t produced_ = 0;  // bytes of pages handed out so far
  ZSTD_DCtx* context_ = nullptr;
  std::vector<std::byte> input_;
  std::size_t input_pos_ = 0;
  std::size_t input_size_ = 0;
  std::size_t frame_state_ = 1;  // last ZSTD_decompressStream result; 0 = frame complete
};

}  // namespace yadokari::image
