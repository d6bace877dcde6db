#include "checkpoint/image/payload_reader.hpp"

#include <zstd.h>

#include <algorithm>

#include "checkpoint/image/byte_shuffle.hpp"
#include "checkpoint/image/fd_io.hpp"
#include "checkpoint/image/format.hpp"
#include "checkpoint/image/image_error.hpp"

namespace yadokari::image {

PayloadReader::PayloadReader(int fd, std::string file, std::uint64_t offset, std::uint64_t size, bool compressed,
                             bool shuffled)
    : fd_(fd), file_(std::move(file)), next_(offset), remaining_(size), compressed_(compressed), shuffled_(shuffled) {
  if (!compressed_) return;
  context_ = ZSTD_createDCtx();
  if (!context_) throw ImageError(ImageErrorKind::io, file_, "zstd decompression failed: out of memory");
  input_.resize(ZSTD_DStreamInSize());
}

PayloadReader::~PayloadReader() { ZSTD_freeDCtx(context_); }

bool PayloadReader::read(std::byte* out, std::size_t size) {
  if (!shuffled_) return compressed_ ? read_compressed(out, size) : read_raw(out, size);
  if (produced_ % format::kPageSize != 0 || !read_compressed(out, size)) return false;
  unshuffle_pages(out, size);
  produced_ += size;
  return true;
}

bool PayloadReader::read_raw(std::byte* out, std::size_t size) {
  if (size > remaining_) return false;
  const std::size_t got = io::read_at(fd_, next_, out, size, file_);
  next_ += got;
  remaining_ -= got;
  return got == size;
}

bool PayloadReader::refill() {
  if (remaining_ == 0) return false;
  const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(input_.size(), remaining_));
  const std::size_t got = io::read_at(fd_, next_, input_.data(), want, file_);
  if (got != want) return false;
  next_ += got;
  remaining_ -= got;
  input_pos_ = 0;
  input_size_ = got;
  return true;
}

bool PayloadReader::read_compressed(std::byte* out, std::size_t size) {
  ZSTD_outBuffer output{out, size, 0};
  while (output.pos < output.size) {
    if (frame_state_ == 0) return false;  // the frame ended before the area did
    if (input_pos_ == input_size_ && !refill()) return false;
    ZSTD_inBuffer input{input_.data(), input_size_, input_pos_};
    frame_state_ = ZSTD_decompressStream(context_, &output, &input);
    input_pos_ = input.pos;
    if (ZSTD_isError(frame_state_)) return false;
  }
  return true;
}

bool PayloadReader::finished() {
  if (!compressed_) return remaining_ == 0;
  // The frame's last block or epilogue may still be unread even though all output was produced.
  std::byte extra[1];
  while (frame_state_ != 0) {
    if (input_pos_ == input_size_ && !refill()) return false;
    ZSTD_outBuffer output{extra, sizeof extra, 0};
    ZSTD_inBuffer input{input_.data(), input_size_, input_pos_};
    frame_state_ = ZSTD_decompressStream(context_, &output, &input);
    input_pos_ = input.pos;
    if (ZSTD_isError(frame_state_) || output.pos != 0) return false;
  }
  return input_pos_ == input_size_ && remaining_ == 0;
}

}  // namespace yadokari::image
