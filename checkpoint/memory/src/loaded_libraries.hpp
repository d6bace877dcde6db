#pragma once
// Libraries the application loads after start (dlopen): carried across a restart
// (checkpoint/memory/README.md, "Libraries loaded after start").
//
// At the checkpoint every object the application's dlopen requests brought in (the requested one
// and the dependencies loaded with it, in the link map's load order) is recorded: path (the link
// map's l_name), load address, the pages it occupies, a hash of its file, the handle the
// application got, its dlopen mode and its static TLS block. Their writable segments (minus
// RELRO and the GOT, as for the executable) and their TLS blocks travel as areas.
//
// At the restore, before anything is overwritten, each is loaded again at its recorded address,
// dependencies first (library_placement.hpp), or the restore is refused with one line naming it.
// The application's old handles are translated to the new ones by the interposed dlsym, dlclose
// and dlinfo (dl_handles.cpp): the link_map a handle points to is ld.so's, never at the same
// address again. A requested library is opened again as many times as it was open
// (dl_open_counts.hpp), so that it goes at the same dlclose as in an uninterrupted run.
#include <cstddef>
#include <cstdint>

#include "checkpoint/memory/areas.hpp"

namespace yadokari::memory {

// A Python program with a scientific package loads many objects after start (Meep with numpy: 83
// besides what the MPI library brought before main, bench/apps/README.md); the table costs 600
// bytes per entry in .bss and in each image.
inline constexpr int kMaxLibraries = 256;
// The application's dlopen requests that are noted (a request names one object; its dependencies
// are found from it). More make every checkpoint fail (library_table.cpp).
inline constexpr int kMaxDlopenRequests = 256;
inline constexpr std::size_t kLibPathMax = 512;
inline constexpr char kLibrariesMagic[8] = {'Y', 'K', 'D', 'L', 'O', 'P', 'E', 'N'};

// Where a library's TLS block of the application thread is. Static: in the static TLS area below
// the thread pointer, at an offset the fresh process must give it again; the block travels as a
// library_tls area. Dynamic: allocated by glibc on first use (__tls_get_addr) with malloc in
// application context, so in the arena, which brings the bytes back; the restore points the
// fresh thread's DTV entry at it again (library_restore.cpp).
enum class LibTls : std::uint32_t { none = 0, static_block = 1, dynamic_in_arena = 2 };

struct LibRecord {
  char path[kLibPathMax];  // the link map's l_name: absolute
  std::uint64_t base;      // l_addr
  std::uint64_t lo, hi;    // the pages its PT_LOAD segments occupy
  std::uint64_t hash;      // xxh3-64 of the file
  std::uint64_t handle;    // what the application's dlopen returned; 0 if only loaded as a dependency
  std::int32_t mode;       // the application's dlopen mode (RTLD_*) when handle != 0
  LibTls tls_kind;
  std::uint64_t tls_addr, tls_size;  // its TLS block in the application thread (0, 0: none)
  std::uint32_t opens;               // glibc's open count when handle != 0 (dl_open_counts.hpp); 0: unknown
  std::uint32_t pad;
};

struct LibTable {
  char magic[8];
  std::uint32_t size;  // sizeof(LibTable)
  std::uint32_t count;
  LibRecord libs[kMaxLibraries];  // in load order (dependencies after the object that needed them)
};

// The capture (inside a library scope): the table area at address 0 if the application has such
// libraries, then each library's writable data and TLS. False if the sink refused an area.
bool capture_library_table(AreaSink& sink);
bool capture_library_contents(AreaSink& sink);

// The table as this checkpoint's refusal check collected it (it runs before the other checks:
// its registration is a constructor of priority 101).
const LibTable& application_loaded_libraries();

// The restore, before anything is overwritten: checks the image's table and loads each library
// at its address. False with one line in `why`: then nothing stays loaded.
bool place_libraries(const void* data, std::size_t len, char* why, std::size_t why_len);
// Where a `libraries` (address != 0) or `library_tls` area may be written, or nullptr.
void* library_destination(AreaKind kind, std::uint64_t addr, std::uint64_t len);

// For the exit handlers (exit_handlers.cpp): true while the restore loads the image's libraries
// again and `address` lies in one of them. What their constructors register then is in the
// image's record already, which the replay registers in the first run's order.
bool placing_library_at(std::uint64_t address);

// The application's handle as this process knows it (identity for anything else).
void* translate_dl_handle(void* handle);

// The application's dlopen requests (dlopen_tracking.cpp): name and mode of each, in order.
struct DlopenRequest {
  char name[kLibPathMax];
  std::int32_t mode;
};
int dlopen_requests(DlopenRequest* out, int max);
// True once a request found no free slot: what it loaded is not known, so nothing may be carried.
bool dlopen_requests_overflowed();
// After a restore: the image's requested libraries become the noted requests.
void replace_dlopen_requests(const DlopenRequest* in, int n);
// glibc's dlopen (resolved at load time).
void* real_dlopen(const char* name, int mode);

}  // namespace yadokari::memory
