#pragma once
// The meta area: everything needed to check an image against this process and to jump back.
#include <cstdint>

#include "checkpoint/memory/src/carried.hpp"
#include "checkpoint/memory/src/context.hpp"
#include "checkpoint/memory/src/identity.hpp"
#include "checkpoint/memory/src/linked_libraries.hpp"
#include "checkpoint/memory/src/std_streams.hpp"

namespace yadokari::memory {

inline constexpr char kMetaMagic[8] = {'Y', 'K', 'M', 'E', 'M', 'E', 'T', 'A'};
inline constexpr std::uint32_t kMetaVersion =
    8;  // 2: FdRecord::same_file_as; 3: ProcessState::pending; 4: ::waiting; 5: ::memory_streams; 6: ::jmp_bufs, ::pool_masks, ::env, ::getopt_*, LibRecord::opens, FdRecord::input; 7: MapRecord::file_size, ::linked_libraries; 8: ProcessState::keys, ::limits

struct MetaRecord {
  char magic[8];
  std::uint32_t version;
  std::uint32_t size;          // sizeof(MetaRecord)
  Context ctx;                 // registers at the checkpoint call
  std::uint64_t canary;        // %fs:0x28
  std::int32_t depth_at_call;  // library nesting of the caller (the shim brackets MPI calls)
  std::int32_t pad;
  std::uint64_t stack_top, args_base, arena_base;  // layout constants of the writer
  std::uint64_t args_size;
  std::uint64_t arena_committed_end;
  std::uint64_t exe_hash;            // xxh3-64 of the executable file
  std::uint64_t tls_addr, tls_size;  // the executable's TLS block of the application thread
  StreamState streams[3];            // stdin, stdout, stderr
  char exe_path[256];
  ObjectList objects;           // loaded before main (executable first)
  LinkedMask linked_libraries;  // which of them carry their data (linked_libraries.hpp), a bit per index
  std::uint32_t carried_count;
  std::uint32_t pad2;
  CarriedRange carried[kMaxCarried];
};

}  // namespace yadokari::memory
