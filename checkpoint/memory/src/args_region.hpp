#pragma once
// argv and the environment, copied at main's start into shim memory at a fixed address
// (kArgsBase). main receives the copy, so argv pointers the application keeps stay valid after
// a restart, and the application's getenv() is answered from the copy
// (docs/architecture.md, pitfall 6: its old pointers point into it), while libraries keep using
// the live environment.
#include <cstddef>
#include <cstdint>

namespace yadokari::memory {

struct ArgsRegion {
  std::uint64_t size;  // bytes mapped at kArgsBase
  std::int64_t argc;
  char** argv;
  char** envp;
  std::uint64_t reserved;  // 0 (the names the application changed are environment.hpp's)
};

// Maps the region and copies; returns it, or nullptr (then main gets the original arguments).
ArgsRegion* copy_args(int argc, char** argv, char** envp);
// The region, or nullptr if it is not mapped.
ArgsRegion* args_region();
// Replaces the mapping by one of `size` bytes (restore), contents undefined.
bool args_remap(std::size_t size);
// The application's view: value of `name` in the copied environment, or nullptr.
char* args_getenv(const char* name);

}  // namespace yadokari::memory
