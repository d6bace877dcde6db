#pragma once
// yk_mem_enter_library()/yk_mem_leave_library() (memory.h) without a call, for code linked into
// the same shared object as the layer: the shim brackets every MPI call with them, on the
// wrappers' fast path. Same variable as src/routing.hpp (initial-exec TLS, no allocation).
namespace yadokari::memory {

extern __thread __attribute__((tls_model("initial-exec"))) int t_depth;

inline void enter_library() { ++t_depth; }
inline void leave_library() { --t_depth; }

}  // namespace yadokari::memory
