#pragma once
// Libraries linked with the application (loaded before main) whose data is the application's
// (checkpoint/memory/README.md, "Libraries linked with the application"). A library the program
// links itself (its own libfoo.so, a solver or I/O library it calls) keeps state in its .data,
// .bss and TLS block that the executable's data does not hold; without this it came back as the
// fresh process made it, with exit 0.
//
// Which ones: every object loaded before main except the executable, ld.so, the C library and
// the toolchain runtimes whose application part the layer carries itself or which are library
// state (libgcc_s, libstdc++, libgfortran, libgomp...), the MPI library and this layer with
// everything they need (DT_NEEDED, transitively), and those named in YADOKARI_FRESH_LIBRARIES.
//
// What: what the application changed there after main. When main starts (after every library's
// constructors) their writable data (minus RELRO and the GOT) and TLS block are copied aside;
// the capture carries the words that differ from that copy. A restore first puts back the fresh
// process's own copy from its main (undoing what its code before the restore point did), then the
// carried words: constructor state (a thread pool, a pid, pointers into blocks a constructor
// allocated from glibc's heap) stays the fresh process's, everything the application made of the
// library since is the checkpoint's.
#include <cstddef>
#include <cstdint>

#include "checkpoint/memory/areas.hpp"
#include "checkpoint/memory/src/identity.hpp"

namespace yadokari::memory {

// Called when main starts (the __libc_start_main wrapper, before the executable's constructors):
// classifies the objects loaded before main and copies the carried ones' data aside.
void note_linked_libraries_at_main();
// The carried libraries as a bit per index of the list of objects loaded before main
// (identity.hpp), kept in the image's meta.
inline constexpr int kLinkedMaskWords = kMaxObjects / 64;
using LinkedMask = std::uint64_t[kLinkedMaskWords];
void linked_libraries_carried(LinkedMask& mask);

// Whether the object loaded at `base` is one of them.
bool is_carried_linked_library(std::uintptr_t base);

// The capture: one `libraries` area per run of changed words, one `library_tls` area per changed
// run of a TLS block. False if the sink refused an area.
bool capture_linked_library_changes(AreaSink& sink);

// The restore, before anything is overwritten: the image carried the libraries of `mask`; this
// process must carry the same ones. False with one line in `why` otherwise.
bool check_linked_libraries(const LinkedMask& mask, char* why, std::size_t why_len);
// After the point of no return, before the areas: the data as this process's main found it.
void reset_linked_libraries();
// Where a `libraries` or `library_tls` area of such a library may be written, or nullptr.
void* linked_library_destination(AreaKind kind, std::uint64_t addr, std::uint64_t len);

}  // namespace yadokari::memory
