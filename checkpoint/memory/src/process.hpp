#pragma once
// Process-wide state of the memory layer, set up at load time by startup.cpp
// (docs/architecture.md, pitfall 8: nothing needed after a restore may be resolved lazily).
#include <cstdint>

#include "checkpoint/memory/src/arena.hpp"

namespace yadokari::memory {

extern std::uintptr_t g_stack_lo;  // lowest mapped address of the application stack
extern void (*g_main_hook)(void);  // yk_mem_set_main_hook()

// The arena, or nullptr when the layer is disabled.
Arena* arena();
// The arena lock (malloc_interpose.cpp); the capture and the restore hold it.
void arena_lock();
void arena_unlock();

// Makes [lo, g_stack_lo) part of the application stack (a restore of a deeper stack).
bool extend_stack(std::uintptr_t lo);

// Functions of the next object (libc) we interpose, resolved at load time.
struct RealFunctions {
  int (*libc_start_main)(int (*)(int, char**, char**), int, char**, void (*)(), void (*)(), void (*)(), void*);
  std::size_t (*malloc_usable_size)(void*);
};
extern RealFunctions g_real;
void resolve_real_functions();

}  // namespace yadokari::memory
