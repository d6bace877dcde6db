#pragma once
// yk_mem_enter_library()/yk_mem_leave_library() (memory.h) without a call, for code linked into
// the same shared object as the layer: the shim brackets every MPI call with them, on the
// wrappers' fast path. Same variable as src/routing.hpp (initial-exec TLS, no allocation).
namespace yadokari::memory {

extern __thread __attribute__((tls_model("initial-exec"))) int t_depth;

inline void enter_library() { ++t_depth; }
inline void leave_library() { --t_depth; }

// The application's own code called back from inside an MPI call (a user-defined reduction, an
// error handler, an attribute's copy or delete function) is application code again while it runs:
// what it allocates goes into the arena, the files and Fortran units it opens are carried, as if
// it had done so outside MPI. Without this, a block a reduction allocates on its first call, or
// the copy an attribute's copy function makes at MPI_Comm_dup, came from glibc's heap, which a
// restart does not bring back (apps.c-callbacks.*: the restart crashed). Nested MPI calls from
// the callback bracket themselves again.
class ApplicationCallback {
 public:
  // The barriers keep the stores where they are written: GCC takes malloc for a function that
  // reads no program state and would otherwise fold them away around a direct malloc call.
  ApplicationCallback() : depth_(t_depth) {
    t_depth = 0;
    asm volatile("" ::: "memory");
  }
  ~ApplicationCallback() {
    asm volatile("" ::: "memory");
    t_depth = depth_;
  }
  ApplicationCallback(const ApplicationCallback&) = delete;
  ApplicationCallback& operator=(const ApplicationCallback&) = delete;

 private:
  int depth_;
};

}  // namespace yadokari::memory
