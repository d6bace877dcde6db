#include "checkpoint/image/payload_writer.hpp"

#include <zstd.h>

#include <algorithm>

#include "checkpoint/image/byte_codec.hpp"
#include "checkpoint/image/byte_shuffle.hpp"
#include "checkpoint/image/image_error.hpp"

namespace yadokari::image {
namespace {

// Areas up to this size are compressed in memory first, shuffled and not, and stored raw if
// neither helps (small blobs such as registers often grow under zstd). Larger ones are streamed,
// shuffled if their first kSampleBytes compress better so.
constexpr std::uint64_t kSmallArea = 256u << 10;
constexpr std::uint64_t kSampleBytes = 256u << 10;

void check(std::size_t zstd_result, const std::string& file) {
  if (ZSTD_isError(zstd_result))
    throw ImageError(ImageErrorKind::io, file,
                     std::string("zstd compression failed: ") + ZSTD_getErrorName(zstd_result));
}

}  // namespace

PayloadWriter::PayloadWriter(int compression_level, std::string file)
    : level_(compression_level), file_(std::move(file)) {}

PayloadWriter::~PayloadWriter() { ZSTD_freeCCtx(context_); }

PayloadWriter::Written PayloadWriter::write(io::BufferedOutput& out, const std::byte* data, std::uint64_t length,
                                            const std::vector<PageRun>& runs, bool write_run_list) {
  const std::uint64_t start = out.offset();
  if (write_run_list) {
    std::byte number[8];
    codec::store(number, static_cast<std::uint64_t>(runs.size()));
    out.write(number, sizeof number);
    for (const auto& run : runs) {
      std::byte pair[format::kRunSize];
      codec::store(pair, run.first);
      codec::store(pair + 8, run.count);
      out.write(pair, sizeof pair);
    }
  }
  std::uint64_t stored_bytes = 0;
  for (const auto& run : runs) stored_bytes += run_bytes(run, length);

  Written written;
  if (level_ != 0 && stored_bytes > kSmallArea) {
    written.shuffled = shuffled_smaller(data, length, runs, kSampleBytes);
    compress_stream(out, data, length, runs, stored_bytes, written.shuffled);
    written.compressed = true;
  } else if (level_ != 0 && stored_bytes != 0) {
    // Small: both ways in memory, the smaller kept, raw if neither helps.
    written.shuffled = shuffled_smaller(data, length, runs, stored_bytes);
    const std::vector<std::byte>& best = written.shuffled ? small_shuffled_ : small_;
    written.compressed = best.size() < stored_bytes;
    written.shuffled = written.shuffled && written.compressed;
    if (written.compressed) out.write(best.data(), best.size());
  }
  if (!written.compressed)
    for (const auto& run : runs) out.write(data + run.first * format::kPageSize, run_bytes(run, length));
  written.stored_length = out.offset() - start;
  return written;
}

void PayloadWriter::gather(const std::byte* data, std::uint64_t length, const std::vector<PageRun>& runs,
                           std::uint64_t limit, std::vector<std::byte>& into) {
  into.clear();
  for (const auto& run : runs) {
    const std::uint64_t n = std::min<std::uint64_t>(run_bytes(run, length), limit - into.size());
    const std::byte* from = data + run.first * format::kPageSize;
    into.insert(into.end(), from, from + n);
    if (into.size() == limit) return;
  }
}

void PayloadWriter::compress_whole(const std::vector<std::byte>& in, std::vector<std::byte>& into) {
  context();
  into.resize(ZSTD_compressBound(in.size()));
  const std::size_t size = ZSTD_compressCCtx(context_, into.data(), into.size(), in.data(), in.size(), level_);
  check(size, file_);
  into.resize(size);
}

bool PayloadWriter::shuffled_smaller(const std::byte* data, std::uint64_t length, const std::vector<PageRun>& runs,
                                     std::uint64_t limit) {
  gather(data, length, runs, limit, plain_);
  shuffled_.resize(plain_.size());
  shuffle_pages(plain_.data(), shuffled_.data(), plain_.size());
  compress_whole(plain_, small_);
  compress_whole(shuffled_, small_shuffled_);
  return small_shuffled_.size() < small_.size();
}

void PayloadWriter::context() {
  if (context_) return;
  context_ = ZSTD_createCCtx();
  if (!context_) throw ImageError(ImageErrorKind::io, file_, "zstd compression failed: out of memory");
  chunk_.resize(ZSTD_CStreamOutSize());
}

void PayloadWriter::prepare(std::uint64_t stored_bytes) {
  context();
  check(ZSTD_CCtx_reset(context_, ZSTD_reset_session_and_parameters), file_);
  check(ZSTD_CCtx_setParameter(context_, ZSTD_c_compressionLevel, level_), file_);
  check(ZSTD_CCtx_setPledgedSrcSize(context_, stored_bytes), file_);
}

void PayloadWriter::compress_stream(io::BufferedOutput& out, const std::byte* data, std::uint64_t length,
                                    const std::vector<PageRun>& runs, std::uint64_t stored_bytes, bool shuffle) {
  prepare(stored_bytes);
  // One frame for all stored pages of the area: the runs are fed in order (shuffled through a
  // staging buffer a batch of pages at a time), then the frame is ended.
  auto drive = [&](ZSTD_inBuffer& input, ZSTD_EndDirective mode) {
    for (;;) {
      ZSTD_outBuffer output{chunk_.data(), chunk_.size(), 0};
      const std::size_t remaining = ZSTD_compressStream2(context_, &output, &input, mode);
      check(remaining, file_);
      out.write(chunk_.data(), output.pos);
      const bool done = mode == ZSTD_e_end ? remaining == 0 : input.pos == input.size;
      if (done) return;
    }
  };
  if (shuffle) shuffled_.resize(kSampleBytes);
  for (const auto& run : runs) {
    const std::byte* from = data + run.first * format::kPageSize;
    const std::uint64_t bytes = run_bytes(run, length);
    for (std::uint64_t at = 0; at < bytes;) {
      const std::size_t n = shuffle ? static_cast<std::size_t>(std::min<std::uint64_t>(kSampleBytes, bytes - at))
                                    : static_cast<std::size_t>(bytes);
      const std::byte* feed = from + at;
      if (shuffle) {
        shuffle_pages(feed, shuffled_.data(), n);
        feed = shuffled_.data();
      }
      ZSTD_inBuffer input{feed, n, 0};
      drive(input, ZSTD_e_continue);
      at += n;
    }
  }
  ZSTD_inBuffer none{nullptr, 0, 0};
  drive(none, ZSTD_e_end);
}

}  // namespace yadokari::image
