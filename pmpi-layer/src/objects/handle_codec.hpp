// How a virtual handle is spelled in each MPI ABI, so that it can never be mistaken for a handle
// of the real library (predefined constants and null handles pass through untouched).
//  - MPICH: handles are ints. Real ones have bits 30-31 != 0 (builtin/direct/indirect) or are the
//    null handles (low 26 bits zero). Ours: bits 30-31 == 0, bit 25 set, index in bits 0-24,
//    kind in bits 26-29. They are positive, so they also work as Fortran integers unchanged.
//  - Open MPI: handles are pointers. Ours carry a tag in the top byte, which no user-space
//    address has; the application never dereferences a handle.
#pragma once

#include <cstdint>
#include <type_traits>

namespace yadokari::shim::codec {

inline constexpr std::uint32_t kMaxIndex = (1u << 25) - 1;

template <class H>
constexpr bool kIntegerHandles = std::is_integral_v<H>;

template <class H>
inline H encode(std::uint32_t kind, std::uint32_t index) {
  if constexpr (kIntegerHandles<H>) {
    return static_cast<H>((kind << 26) | (1u << 25) | index);
  } else {
    return reinterpret_cast<H>((std::uintptr_t{0x59} << 56) | (std::uintptr_t{kind} << 32) | index);
  }
}

template <class H>
inline bool is_virtual(H h) {
  if constexpr (kIntegerHandles<H>) {
    return (static_cast<std::uint32_t>(h) & 0xC2000000u) == 0x02000000u;
  } else {
    return (reinterpret_cast<std::uintptr_t>(h) >> 56) == 0x59;
  }
}

template <class H>
inline std::uint32_t index_of(H h) {
  if constexpr (kIntegerHandles<H>) {
    return static_cast<std::uint32_t>(h) & kMaxIndex;
  } else {
    return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(h));
  }
}

template <class H>
inline std::uint64_t to_u64(H h) {
  if constexpr (kIntegerHandles<H>) {
    return static_cast<std::uint32_t>(h);
  } else {
    return reinterpret_cast<std::uintptr_t>(h);
  }
}

template <class H>
inline H from_u64(std::uint64_t v) {
  if constexpr (kIntegerHandles<H>) {
    return static_cast<H>(static_cast<std::uint32_t>(v));
  } else {
    return reinterpret_cast<H>(static_cast<std::uintptr_t>(v));
  }
}

// Fortran integers for virtual handles (needed only where the shim provides the Fortran
// bindings itself, i.e. Open MPI). The library's own Fortran indices are small, ours start high.
inline constexpr std::int32_t kFortranTag = 0x40000000;
inline bool fortran_is_virtual(std::int32_t f) { return f >= kFortranTag; }

}  // namespace yadokari::shim::codec
