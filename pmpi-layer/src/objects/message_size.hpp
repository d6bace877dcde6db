// Message sizes on the wrappers' fast path without extra calls into the library: both MPIs
// keep the received byte count in public fields of MPI_Status, and MPICH encodes the size of a
// builtin datatype in its handle. Everything else asks the library.
#pragma once

#include "pmpi-layer/src/objects/virtual_handles.hpp"

#include <mpi.h>

#include <cstdint>

namespace yadokari::shim {

YK_HOT std::uint64_t received_bytes(const MPI_Status* status) {
#if defined(OPEN_MPI)
  return status->_ucount;
#else
  return (static_cast<std::uint64_t>(static_cast<unsigned>(status->count_hi_and_cancelled) >> 1) << 32) +
         static_cast<unsigned>(status->count_lo);
#endif
}

// Sizes of the datatypes a rank sends with, keyed by the app's handle (a handle of the shim is
// reused after MPI_Type_free, so freeing a type clears the cache). Single-writer only; under
// MPI_THREAD_MULTIPLE the library is asked every time.
// The cache itself (g_type_size_cache) is declared in object_state.hpp.

inline void forget_type_sizes() {
  for (auto& slot : g_type_size_cache) slot = TypeSizeSlot{};
}

// Out of line: a cache miss is rare, and inlined it would give every send wrapper a stack slot.
[[gnu::cold, gnu::noinline]] inline std::uint64_t library_type_size(MPI_Datatype type) {
  // The send wrappers ask before the library call (SendTally): a null type must reach the
  // library's MPI_Send and its error handler, not fail here first.
  if (type == MPI_DATATYPE_NULL) return 0;
  int size = 0;
  PMPI_Type_size(to_real<TypeK>(type), &size);
  return size < 0 ? 0 : static_cast<std::uint64_t>(size);
}

YK_HOT TypeSizeSlot& type_size_slot(MPI_Datatype type) {
  const std::uint64_t key = codec::to_u64(type);
  return g_type_size_cache[(key ^ (key >> 6) ^ (key >> 12)) & 63];
}

// The size of `type` if it is known without asking the library (an MPICH builtin, or cached),
// else kSizeUnknown: the wrappers' fast path then leaves for the slow one, which asks and caches.
inline constexpr std::uint64_t kSizeUnknown = UINT64_MAX;
YK_HOT std::uint64_t known_type_size(MPI_Datatype type) {
#if !defined(OPEN_MPI)
  // MPICH builtin handles (kind bits 01): size in bits 8-15 (MPIR_Datatype_get_basic_size).
  const auto h = static_cast<std::uint32_t>(type);
  if ((h >> 30) == 1u) return (h & 0xff00u) >> 8;
#endif
  const TypeSizeSlot& slot = type_size_slot(type);
  return slot.type == type ? slot.size : kSizeUnknown;
}

YK_HOT std::uint64_t datatype_size(MPI_Datatype type) {
  if (g_many_writers) [[unlikely]]
    return library_type_size(type);
  const std::uint64_t known = known_type_size(type);
  if (known != kSizeUnknown) [[likely]]
    return known;
  const std::uint64_t size = library_type_size(type);
  type_size_slot(type) = {type, size};
  return size;
}

YK_HOT std::uint64_t message_bytes(int count, MPI_Datatype type) {
  return count <= 0 ? 0 : static_cast<std::uint64_t>(count) * datatype_size(type);
}

}  // namespace yadokari::shim
