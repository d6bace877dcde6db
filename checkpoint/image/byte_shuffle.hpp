#pragma once
// Byte shuffle of 4 KiB pages in 8-byte lanes, before zstd (internal; docs/formats/image.md, flag
// 16): byte k of every 8-byte word of a page goes to the k-th 512-byte plane. Doubles that differ
// in their low bits only then leave the sign, exponent and high-mantissa planes in long repeated
// runs, which zstd compresses and does not see in the words themselves (NPB MG and LU: 0.81 and
// 0.77 of the pages kept, against 0.92 and 0.88 unshuffled). A page shorter than 4 KiB (only an
// area's last) is left as is.
#include <cstddef>

namespace yadokari::image {

// Shuffles every whole page of `in` (n bytes) into `out`; a short tail is copied unchanged.
void shuffle_pages(const std::byte* in, std::byte* out, std::size_t n);

// The inverse, in place: every whole page of `data` (n bytes, from a page boundary).
void unshuffle_pages(std::byte* data, std::size_t n);

}  // namespace yadokari::image
