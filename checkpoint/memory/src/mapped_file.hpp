#pragma once
// A whole file mapped read-only (for ELF parsing and hashing without buffers).
#include <cstddef>

namespace yadokari::memory {

class MappedFile {
 public:
  explicit MappedFile(const char* path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  bool ok() const { return data_ != nullptr; }
  const unsigned char* data() const { return data_; }
  std::size_t size() const { return size_; }
  // Pointer to [off, off+len) if it lies inside the file, else nullptr.
  const void* at(std::size_t off, std::size_t len) const;

 private:
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace yadokari::memory
