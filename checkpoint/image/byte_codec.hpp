#pragma once
// Little-endian integers in byte buffers (internal). memcpy keeps it free of alignment and
// aliasing traps; the format is defined little-endian, which is the host order on x86-64.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace yadokari::image::codec {

static_assert(std::endian::native == std::endian::little, "the image format is little-endian");

template <typename T>
void store(std::byte* at, T value) {
  static_assert(std::is_integral_v<T>);
  std::memcpy(at, &value, sizeof value);
}

template <typename T>
T load(const std::byte* at) {
  static_assert(std::is_integral_v<T>);
  T value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

// Appends to a growing buffer (the header).
class Appender {
 public:
  template <typename T>
  void put(T value) {
    const std::size_t at = bytes_.size();
    bytes_.resize(at + sizeof value);
    store(bytes_.data() + at, value);
  }
  void put_bytes(const void* data, std::size_t size) {
    const auto* first = static_cast<const std::byte*>(data);
    bytes_.insert(bytes_.end(), first, first + size);
  }
  std::vector<std::byte>& bytes() { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

// Reads from a buffer; every read is bounds-checked and reports failure instead of overrunning.
class Cursor {
 public:
  Cursor(const std::byte* data, std::size_t size) : data_(data), size_(size) {}

  template <typename T>
  bool get(T& value) {
    if (size_ - at_ < sizeof value) return false;
    value = load<T>(data_ + at_);
    at_ += sizeof value;
    return true;
  }
  bool get_bytes(std::string& out, std::size_t size) {
    if (size_ - at_ < size) return false;
    out.assign(reinterpret_cast<const char*>(data_ + at_), size);
    at_ += size;
    return true;
  }
  std::size_t position() const { return at_; }

 private:
  const std::byte* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

}  // namespace yadokari::image::codec
