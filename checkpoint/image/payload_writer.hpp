#pragma once
// Writes the data section of one area: the run list when zero pages are elided, then the stored
// pages, raw or as one zstd frame of the pages as they are or byte-shuffled (internal).
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
    bool shuffled = false;  // the frame holds the pages byte-shuffled (byte_shuffle.hpp)
  };

  // Writes the data section; `write_run_list` says whether zero pages were elided.
  Written write(io::BufferedOutput& out, const std::byte* data, std::uint64_t length, const std::vector<PageRun>& runs,
                bool write_run_list);

 private:
  // The first `limit` bytes of the stored pages, in order, into `into`.
  static void gather(const std::byte* data, std::uint64_t length, const std::vector<PageRun>& runs, std::uint64_t limit,
                     std::vector<std::byte>& into);
  // One zstd frame of `in` into `into`.
  void compress_whole(const std::vector<std::byte>& in, std::vector<std::byte>& into);
  // Compresses the first `limit` bytes of the stored pages both ways (into small_ and
  // small_shuffled_); true if shuffled is smaller.
  bool shuffled_smaller(const std::byte* data, std::uint64_t length, const std::vector<PageRun>& runs,
                        std::uint64_t limit);
  void compress_stream(io::BufferedOutput& out, const std::byte* data, std::uint64_t length,
                       const std::vector<PageRun>& runs, std::uint64_t stored_bytes, bool shuffle);
  void context();
  void prepare(std::uint64_t stored_bytes);

  int level_;
  std::string file_;
  ZSTD_CCtx* context_ = nullptr;  // created on first use, reused across areas
  std::vector<std::byte> chunk_;
  std::vector<std::byte> small_, small_shuffled_;  // compressed, one way and the other
  std::vector<std::byte> plain_, shuffled_;        // stored pages gathered, and shuffled
};

}  // namespace yadokari::image
