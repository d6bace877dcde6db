#pragma once
// Writes the data section of one area: the run list when zero pages are elided, then the stored
// pages, raw or as one zstd frame (internal).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "checkpoint/image/fd_io.hpp"
#include "checkpoint/image/zero_pages.hpp"

typedef struct ZSTD_CCtx_s ZSTD_CCtx;

namespace yadokari::image {

class PayloadWriter {
 public:
  // compression_level 0 stores pages raw; any other value is a zstd level.
  PayloadWriter(int compression_level, std::string file);
  ~PayloadWriter();
  PayloadWriter(const PayloadWriter&) = delete;
  PayloadWriter& operator=(const PayloadWriter&) = delete;

  struct Written {
    std::uint64_t stored_length = 0;  // bytes of the data section
    bool compressed = false;
  };

  // Writes the data section; `write_run_list` says whether zero pages were elided.
  Written write(io::BufferedOutput& out, const std::byte* data, std::uint64_t length, const std::vector<PageRun>& runs,
                bool write_run_list);

 private:
  // Compresses the stored pages into `chunk_` when they are small enough to try; false if
  // compression does not make them smaller (then they are stored raw).
  bool compress_small(const std::byte* data, std::uint64_t length, const std::vector<PageRun>& runs,
                      std::uint64_t stored_bytes);
  void compress_stream(io::BufferedOutput& out, const std::byte* data, std::uint64_t length,
                       const std::vector<PageRun>& runs, std::uint64_t stored_bytes);
  void prepare(std::uint64_t stored_bytes);

  int level_;
  std::string file_;
  ZSTD_CCtx* context_ = nullptr;  // created on first use, reused across areas
  std::vector<std::byte> chunk_;
  std::vector<std::byte> small_;
};

}  // namespace yadokari::image
