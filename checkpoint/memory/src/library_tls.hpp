#pragma once
// The thread-local storage of a library loaded after start, in the calling thread
// (loaded_libraries.hpp, LibTls). Uses glibc's __tls_get_addr and, for the restore, the x86-64
// layout of its thread control block (the DTV at %fs:8).
#include <cstddef>
#include <cstdint>

namespace yadokari::memory {

// The static TLS block of module `modid` (a DF_STATIC_TLS library: glibc gives it a fixed place
// at dlopen, without allocating; dl_iterate_phdr may not know it yet). 0 if unavailable.
std::uintptr_t static_tls_block(std::size_t modid);

// Makes the calling thread's DTV entry of module `modid` point at `block` (a dynamic block the
// arena brings back), freeing the one glibc allocates first. False if glibc does not behave as
// expected (then nothing was changed but glibc's own allocation).
bool repoint_dynamic_tls(std::size_t modid, std::uintptr_t block);

}  // namespace yadokari::memory
