#pragma once
// The memory layer's one-way interface to whatever stores images: the capture hands out areas to
// an AreaSink, the restore pulls them from an AreaSource. The image format (checkpoint/image) is
// plugged in by an adapter; this layer knows nothing about files except its own simple format
// (file_format.hpp) used by tests.
#include <cstdint>
#include <string>

namespace yadokari::memory {

// What an area holds. Kept numerically separate from the image format's kinds on purpose: the
// adapter maps them (the meta area is the "registers" record, args is "environment", ...).
enum class AreaKind : std::uint32_t {
  meta = 1,            // MetaRecord: registers, canary, identities, layout (always first)
  args = 2,            // the copy of argv/envp in shim memory at a fixed address
  carried = 3,         // a range of the shim's own memory registered with yk_mem_carry()
  exe_data = 4,        // part of the executable's writable segments (.data/.bss minus exclusions)
  exe_tls = 5,         // the executable's TLS block of the application thread
  arena = 6,           // the used part of the application arena
  stack = 7,           // the used part of the application stack
  fds = 8,             // FdRecord[] (src/fd_table.hpp): the application's open files (right after meta)
  fortran_units = 9,   // FortranState (src/fortran_units.hpp): Fortran units, RANDOM_NUMBER (after fds)
  mappings = 10,       // at address 0: MapRecord[] (src/app_mappings.hpp), after fds; elsewhere: a mapping's contents
  process_state = 11,  // ProcessState (src/process_state.hpp): libc state the application set, after mappings
  libraries = 12,      // at address 0: LibTable (src/loaded_libraries.hpp), after process_state; elsewhere: the
                       // writable data of a library the application loaded after start
  library_tls = 13,    // the static TLS block of such a library in the application thread
};

const char* to_string(AreaKind kind);

struct AreaSink {
  virtual ~AreaSink() = default;
  // One area; `data` is valid only during the call. Return false to abort the capture (the
  // checkpoint then fails with YK_MEM_ERROR). `name` is at most 47 characters.
  virtual bool area(AreaKind kind, std::uint64_t addr, std::uint64_t len, std::uint32_t prot, const char* name,
                    const void* data) = 0;

  // Called once, after the areas that describe the process (meta, fds, Fortran units, the
  // mappings table, process state: what the kernel or the running process would change) and
  // before the memory contents. A sink that writes in the background forks a writer here
  // (checkpoint/memory/README.md, "Background writing"): in the parent it returns `parent` and
  // gets no more areas; in the child it returns `here` and gets the rest from the snapshot.
  enum class Split { here, parent, failed };
  virtual Split split() { return Split::here; }
};

struct AreaHeader {
  AreaKind kind{};
  std::uint64_t addr = 0;
  std::uint64_t len = 0;
  std::uint32_t prot = 0;
};

struct AreaSource {
  virtual ~AreaSource() = default;
  // Next area, in the order the sink received them; false at the end (or on error: then
  // failed() says so).
  virtual bool next(AreaHeader& header) = 0;
  // The current area's data, exactly header.len bytes, into dst (which may be the live address).
  virtual bool read(void* dst) = 0;
  virtual bool failed() const = 0;
  // Called once before the restore switches stacks; release files etc. here. The source is
  // never used afterwards (it may live on the stack that is about to be overwritten).
  virtual void done() {}
};

// Capture: returns YK_MEM_CHECKPOINTED / YK_MEM_RESTARTED / YK_MEM_ERROR (see memory.h).
int checkpoint(AreaSink& sink);

// Restore: `what` names the image in messages. Returns YK_MEM_ERROR only before anything was
// modified (why, in one line: on stderr, or into `refusal` when given, for a caller that reports
// it itself); on success it does not return.
int restore(AreaSource& source, const char* what, std::string* refusal = nullptr);

}  // namespace yadokari::memory
