#pragma once
// How many times the application's libraries loaded after start are open (checkpoint/memory/
// README.md, "Libraries loaded after start"). A library dlopen'ed twice needs two dlcloses to go;
// a restart that loaded it back once unloaded it at the first, under the application's feet. The
// count is glibc's own (the link map's l_direct_opencount: every dlopen of the object, whoever
// made it), read at a place found at load time by opening a library once more and seeing which
// word moves by one (the link map's layout is glibc-internal and differs between versions).
#include <cstdint>

namespace yadokari::memory {

// The object's open count, or 0 if its place in the link map is unknown.
std::uint32_t dl_open_count(const void* link_map);

// In the restarted process: opens the library (loaded, at its place) again until its count is
// `count`. False if the count cannot be read or an open fails.
bool reopen_to_count(const void* link_map, const char* path, int mode, std::uint32_t count);

}  // namespace yadokari::memory
