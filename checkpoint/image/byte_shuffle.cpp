#include "checkpoint/image/byte_shuffle.hpp"

#include <cstring>

#include "checkpoint/image/format.hpp"

namespace yadokari::image {
namespace {

constexpr std::size_t kLane = 8;
constexpr std::size_t kPlane = format::kPageSize / kLane;

}  // namespace

void shuffle_pages(const std::byte* in, std::byte* out, std::size_t n) {
  std::size_t at = 0;
  for (; at + format::kPageSize <= n; at += format::kPageSize)
    for (std::size_t word = 0; word < kPlane; ++word)
      for (std::size_t byte = 0; byte < kLane; ++byte) out[at + byte * kPlane + word] = in[at + word * kLane + byte];
  std::memcpy(out + at, in + at, n - at);
}

void unshuffle_pages(std::byte* data, std::size_t n) {
  std::byte page[format::kPageSize];
  for (std::size_t at = 0; at + format::kPageSize <= n; at += format::kPageSize) {
    for (std::size_t word = 0; word < kPlane; ++word)
      for (std::size_t byte = 0; byte < kLane; ++byte) page[word * kLane + byte] = data[at + byte * kPlane + word];
    std::memcpy(data + at, page, sizeof page);
  }
}

}  // namespace yadokari::image
