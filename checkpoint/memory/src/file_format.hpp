#pragma once
// The memory layer's own image file, for tests and for use before the real image format is
// plugged in: "YKMEMIMG" + version, then per area a FileRecord and its bytes, then a record of
// kind 0. No compression, no checksums (checkpoint/image provides those). Written with
// common/atomic_file_stream.hpp (<path>.tmp, renamed when complete and durable). Raw system calls
// only: no allocation.
#include <cstdint>

#include "checkpoint/memory/areas.hpp"
#include "common/atomic_file_stream.hpp"

namespace yadokari::memory {

struct FileRecord {
  std::uint32_t kind;  // AreaKind, 0 = end
  std::uint32_t prot;
  std::uint64_t addr;
  std::uint64_t len;
  char name[48];
};

class FileSink final : public AreaSink {
 public:
  explicit FileSink(const char* path);
  ~FileSink() override;
  bool opened() const { return file_.fd() >= 0; }
  bool area(AreaKind kind, std::uint64_t addr, std::uint64_t len, std::uint32_t prot, const char* name,
            const void* data) override;
  // End record, then the file made durable under its name (AtomicFileStream::commit). false (and
  // the temporary removed) on any error.
  bool commit();
  // In a restarted process the descriptor numbers belong to someone else: drop them untouched.
  void forget() {
    file_.forget();
    directory_fd_ = -1;
  }

 private:
  int directory_fd_ = -1;
  AtomicFileStream file_;
  bool ok_ = true;
};

class FileSource final : public AreaSource {
 public:
  explicit FileSource(const char* path);
  ~FileSource() override;
  bool opened() const { return fd_ >= 0; }
  bool next(AreaHeader& header) override;
  bool read(void* dst) override;
  bool failed() const override { return failed_; }
  void done() override;

 private:
  int fd_ = -1;
  bool failed_ = false;
  std::uint64_t pending_ = 0;  // unread bytes of the current area
};

}  // namespace yadokari::memory
