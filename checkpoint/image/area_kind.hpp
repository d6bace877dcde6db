#pragma once
// What an image area holds. The numeric values are part of the on-disk format: append, never renumber.
#include <cstdint>
#include <string>

namespace yadokari::image {

enum class AreaKind : std::uint16_t {
  data_bss = 1,          // the executable's writable segments
  heap_arena = 2,        // the application's fixed-address allocation arena
  stack = 3,             // the application's stack
  tls = 4,               // thread-local storage block
  registers = 5,         // saved CPU context
  mpi_records = 6,       // recipes of the application's MPI objects
  drained_messages = 7,  // point-to-point messages drained at the cut
  fd_table = 8,          // files the application had open
  environment = 9,       // the application's copy of the environment
  other = 10,            // any other blob
  library_state = 11,    // state kept inside a library, reconnected at a restart (Fortran units...)
  mappings = 12,         // the application's own mappings: their table (address 0) and contents
  process_state = 13,    // libc state the application set: cwd, umask, signals, timers, exit handlers...
  libraries = 14,        // libraries the application loaded after start: their table (address 0) and data
  library_tls = 15,      // the static TLS block of such a library
};

// Short names for listings ("heap-arena"); "kind-N" for values this build does not know.
std::string to_string(AreaKind kind);

// Protection bits, the same values as PROT_READ/PROT_WRITE/PROT_EXEC on Linux.
inline constexpr std::uint32_t kProtRead = 1;
inline constexpr std::uint32_t kProtWrite = 2;
inline constexpr std::uint32_t kProtExec = 4;

// "rw-" style.
std::string protection_string(std::uint32_t protection);

}  // namespace yadokari::image
