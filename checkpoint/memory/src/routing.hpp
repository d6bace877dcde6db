#pragma once
// Who is calling: decides whether an allocation (or rand(), getenv()) belongs to the application.
//   application context = the application thread (main's, or a thread it created itself)
//                         outside any library call bracketed by yk_mem_enter_library().
// Initial-exec TLS: no __tls_get_addr (which may allocate) on the malloc path; fine because the
// shim is loaded at startup (preload or DT_NEEDED), never dlopen()ed.
#include <atomic>

#define YK_TLS __thread __attribute__((tls_model("initial-exec")))

namespace yadokari::memory {

extern YK_TLS int t_depth;  // nesting of yk_mem_enter_library()
extern YK_TLS bool t_app;   // this thread runs application code (main's thread after main starts)
extern YK_TLS bool t_lib;   // this thread was created inside a library call (or before main)

extern bool g_enabled;                          // layer active (set at load time, never changes later)
extern std::atomic<bool> g_arena_on;            // application allocations go to the arena
extern bool g_restore_pending;                  // this process will restore; the arena stays off until then
extern std::atomic<bool> g_past_restore_point;  // yk_mem_restore_point() was called (process_state.hpp)

// Whether the caller is the process's main thread, asked of the kernel once per thread (gettid
// and getpid are system calls, and RANDOM_NUMBER may be called once per element in a loop).
bool on_main_thread();

inline bool app_context() { return t_app && t_depth == 0; }
inline bool use_arena() { return t_app && t_depth == 0 && g_arena_on.load(std::memory_order_relaxed); }

// RAII bracket for the layer's own work (capture, restore, identity reading): allocations made
// meanwhile go to glibc, never into the arena being captured or restored.
struct LibraryScope {
  LibraryScope() { ++t_depth; }
  ~LibraryScope() { --t_depth; }
  LibraryScope(const LibraryScope&) = delete;
  LibraryScope& operator=(const LibraryScope&) = delete;
};

}  // namespace yadokari::memory
