#include "checkpoint/memory/src/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace yadokari::memory {

MappedFile::MappedFile(const char* path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    void* p = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      data_ = static_cast<const unsigned char*>(p);
      size_ = static_cast<std::size_t>(st.st_size);
    }
  }
  close(fd);
}

MappedFile::~MappedFile() {
  if (data_) munmap(const_cast<unsigned char*>(data_), size_);
}

const void* MappedFile::at(std::size_t off, std::size_t len) const {
  if (!data_ || off > size_ || len > size_ - off) return nullptr;
  return data_ + off;
}

}  // namespace yadokari::memory
