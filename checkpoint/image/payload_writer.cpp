#include "checkpoint/image/payload_writer.hpp"

#include <zstd.h>

#include "checkpoint/image/byte_codec.hpp"
#include "checkpoint/image/image_error.hpp"

namespace yadokari::image {
namespace {

// Areas up to this size are compressed in memory first and stored raw if that does not help
// (small blobs such as registers often grow under zstd). Larger ones are streamed.
constexpr std::uint64_t kSmallArea = 256u << 10;

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

  bool compressed = false;
  if (level_ != 0 && stored_bytes > kSmallArea) {
    compress_stream(out, data, length, runs, stored_bytes);
    compressed = true;
  } else if (level_ != 0 && stored_bytes != 0 && compress_small(data, length, runs, stored_bytes)) {
    out.write(small_.data(), small_.size());
    compressed = true;
  } else {
    for (const auto& run : runs) out.write(data + run.first * format::kPageSize, run_bytes(run, length));
  }
  return {out.offset() - start, compressed};
}

void PayloadWriter::prepare(std::uint64_t stored_bytes) {
  if (!context_) {
    context_ = ZSTD_createCCtx();
    if (!context_) throw ImageError(ImageErrorKind::io, file_, "zstd compression failed: out of memory");
    chunk_.resize(ZSTD_CStreamOutSize());
  }
  check(ZSTD_CCtx_reset(context_, ZSTD_reset_session_only), file_);
  check(ZSTD_CCtx_setParameter(context_, ZSTD_c_compressionLevel, level_), file_);
  check(ZSTD_CCtx_setPledgedSrcSize(context_, stored_bytes), file_);
}

bool PayloadWriter::compress_small(const std::byte* data, std::uint64_t length, const std::vector<PageRun>& runs,
                                   std::uint64_t stored_bytes) {
  prepare(stored_bytes);
  small_.resize(ZSTD_compressBound(stored_bytes));
  ZSTD_outBuffer output{small_.data(), small_.size(), 0};
  for (const auto& run : runs) {
    ZSTD_inBuffer input{data + run.first * format::kPageSize, run_bytes(run, length), 0};
    while (input.pos < input.size) check(ZSTD_compressStream2(context_, &output, &input, ZSTD_e_continue), file_);
  }
  ZSTD_inBuffer none{nullptr, 0, 0};
  while (true) {
    const std::size_t remaining = ZSTD_compressStream2(context_, &output, &none, ZSTD_e_end);
    check(remaining, file_);
    if (remaining == 0) break;
  }
  small_.resize(output.pos);
  return small_.size() < stored_bytes;
}

void PayloadWriter::compress_stream(io::BufferedOutput& out, const std::byte* data, std::uint64_t length,
                                    const std::vector<PageRun>& runs, std::uint64_t stored_bytes) {
  prepare(stored_bytes);
  // One frame for all stored pages of the area: the runs are fed in order, then the frame is ended.
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
  for (const auto& run : runs) {
    ZSTD_inBuffer input{data + run.first * format::kPageSize, run_bytes(run, length), 0};
    drive(input, ZSTD_e_continue);
  }
  ZSTD_inBuffer none{nullptr, 0, 0};
  drive(none, ZSTD_e_end);
}

}  // namespace yadokari::image
