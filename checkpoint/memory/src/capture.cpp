// Capture: save the registers, then hand the application's memory to the sink.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "checkpoint/memory/areas.hpp"
#include "checkpoint/memory/memory.h"
#include "checkpoint/memory/src/args_region.hpp"
#include "checkpoint/memory/src/carried.hpp"
#include "checkpoint/memory/src/context.hpp"
#include "checkpoint/memory/src/cpu_clocks.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/exe_layout.hpp"
#include "checkpoint/memory/src/fd_table.hpp"
#include "checkpoint/memory/src/gfortran_entry_points.hpp"
#include "checkpoint/memory/src/fortran_units.hpp"
#include "checkpoint/memory/src/identity.hpp"
#include "checkpoint/memory/src/linked_libraries.hpp"
#include "checkpoint/memory/src/layout.hpp"
#include "checkpoint/memory/src/loaded_libraries.hpp"
#include "checkpoint/memory/src/mapping_image.hpp"
#include "checkpoint/memory/src/meta.hpp"
#include "checkpoint/memory/src/openmp.hpp"
#include "checkpoint/memory/src/syslog_state.hpp"
#include "checkpoint/memory/src/thread_park.hpp"
#include "checkpoint/memory/src/thread_restart.hpp"
#include "checkpoint/memory/src/process.hpp"
#include "checkpoint/memory/src/process_state.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"

namespace yadokari::memory {
namespace {

constexpr std::uint32_t kRW = 3;  // PROT_READ | PROT_WRITE
MetaRecord g_meta;                // static: large, and must not sit on the stack being captured
FdRecord g_fds[kMaxAppFds];       // likewise
FortranState g_fortran;           // likewise
int g_errno_at_call;              // the application's errno when it called checkpoint()

struct ArenaLocked {
  ArenaLocked() { arena_lock(); }
  ~ArenaLocked() { arena_unlock(); }
  ArenaLocked(const ArenaLocked&) = delete;
  ArenaLocked& operator=(const ArenaLocked&) = delete;
};

bool refuse(const char* why) {
  refusal_add(why);
  return false;
}

// Output the application wrote before the checkpoint must not be lost if the job is killed right
// after it (and must not be written twice: a restarted process starts with empty buffers).
void flush_output() {
  LibraryScope scope;
  std::fflush(nullptr);
  if (const auto flush = gfortran::functions().flush) flush(nullptr);
  flush_fortran_units();
}

bool fill_meta(MetaRecord& m, const Context& ctx, int depth, const ExeLayout& exe, std::uintptr_t tls_addr) {
  std::memset(&m, 0, sizeof m);
  std::memcpy(m.magic, kMetaMagic, sizeof m.magic);
  m.version = kMetaVersion;
  m.size = sizeof m;
  m.ctx = ctx;
  m.canary = yk_read_canary();
  m.depth_at_call = depth;
  m.stack_top = kStackTop;
  m.args_base = kArgsBase;
  m.arena_base = kArenaBase;
  m.args_size = args_region()->size;
  m.arena_committed_end = arena()->committed_end();
  if (!exe_hash(m.exe_hash)) return refuse("cannot read /proc/self/exe");
  m.tls_addr = tls_addr;
  m.tls_size = exe.tls_memsz;
  std::snprintf(m.exe_path, sizeof m.exe_path, "%s", exe_path());
  m.objects = premain_objects();
  linked_libraries_carried(m.linked_libraries);
  capture_std_streams(m.streams);
  m.carried_count = static_cast<std::uint32_t>(carried_count());
  std::memcpy(m.carried, carried_ranges(), sizeof(CarriedRange) * m.carried_count);
  return true;
}

__attribute__((noinline)) int capture(AreaSink& sink, const Context& ctx, int depth) {
  LibraryScope scope;
  ExeLayout exe;
  std::string error;
  if (!read_exe_layout(exe, error)) return refuse(error.c_str()), YK_MEM_ERROR;
  std::uintptr_t tls_addr = 0;
  std::size_t tls_size = 0;
  exe_tls_block(tls_addr, tls_size);

  std::optional<ArenaLocked> locked(std::in_place);
  if (!fill_meta(g_meta, ctx, depth, exe, tls_addr)) return YK_MEM_ERROR;
  auto put = [&sink](AreaKind kind, std::uintptr_t lo, std::uintptr_t hi, const char* name) {
    return hi <= lo || sink.area(kind, lo, hi - lo, kRW, name, reinterpret_cast<const void*>(lo));
  };
  int nfds = capture_fds(g_fds);
  bool fortran = capture_fortran(g_fortran);
  bool ok = sink.area(AreaKind::meta, 0, sizeof g_meta, 0, "yadokari memory meta", &g_meta);
  // Right after meta: the restore reopens (or refuses) before it overwrites anything.
  if (ok && nfds > 0)
    ok = sink.area(AreaKind::fds, 0, sizeof(FdRecord) * static_cast<unsigned>(nfds), 0, "application files", g_fds);
  // Then the Fortran units: reconnected onto the descriptors the fds area reopens.
  if (ok && fortran)
    ok = sink.area(AreaKind::fortran_units, 0, fortran_state_bytes(g_fortran), 0, "Fortran units", &g_fortran);
  // Then what the restore checks before it modifies anything: mappings, process state.
  ok = ok && capture_mapping_table(sink) && capture_process_state(sink, g_errno_at_call);
  // Then the libraries loaded after start: the restore loads them again before it overwrites anything.
  ok = ok && capture_library_table(sink);
  // From here on only memory: a background sink hands it to a forked writer. fork() takes the
  // arena lock itself (the prefork handler of malloc_interpose.cpp), so it is let go for the call;
  // no application thread runs to allocate meanwhile (the refusal checks saw to that).
  if (ok) {
    locked.reset();
    switch (sink.split()) {
      case AreaSink::Split::here:
        break;
      case AreaSink::Split::parent:
        return YK_MEM_CHECKPOINTED;
      case AreaSink::Split::failed:
        return YK_MEM_ERROR;
    }
    locked.emplace();
  }
  ok = ok && put(AreaKind::args, kArgsBase, kArgsBase + g_meta.args_size, "argv+envp copy");
  for (int i = 0; ok && i < carried_count(); ++i) {
    const CarriedRange& c = carried_ranges()[i];
    ok = put(AreaKind::carried, c.addr, c.addr + c.len, c.name);
  }
  for (const Range& r : subtract(exe.writable, exe.excluded))
    if (ok) ok = put(AreaKind::exe_data, r.lo, r.hi, ".data/.bss");
  if (ok && tls_size) ok = put(AreaKind::exe_tls, tls_addr, tls_addr + tls_size, "executable TLS");
  if (ok) ok = capture_library_contents(sink);
  if (ok) ok = capture_linked_library_changes(sink);
  if (ok) ok = put(AreaKind::arena, kArenaBase, arena()->used_end(), "application arena");
  if (ok) ok = capture_mapping_contents(sink);
  if (ok) ok = put(AreaKind::stack, ctx.rsp, kStackTop, "application stack");
  if (!ok) say("checkpoint failed: the image writer refused an area");
  return ok ? YK_MEM_CHECKPOINTED : YK_MEM_ERROR;
}

}  // namespace

__attribute__((noinline)) int checkpoint(AreaSink& sink) {
  g_errno_at_call = errno;
  refusal_begin();
  if (!g_enabled) return refuse("the memory layer is disabled in this process"), YK_MEM_ERROR;
  if (!t_app) return refuse("not called from the application thread"), YK_MEM_ERROR;
  if (g_restore_pending)
    return refuse("this process was started to restore an image and has not restored it"), YK_MEM_ERROR;
  auto sp = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  if (sp < g_stack_lo || sp >= kStackTop) return refuse("not running on the application stack"), YK_MEM_ERROR;
  bool parked = false;
  {
    LibraryScope scope;  // the checks may allocate (dladdr, /proc)
    // The application's other threads stand still from here until the capture is done (for a
    // background write: until the writer is forked), so that nothing the checks and the capture
    // read changes meanwhile.
    parked = park_application_threads();
    if (!refusal_run_checks()) {
      if (parked) release_application_threads();
      return YK_MEM_ERROR;
    }
  }
  flush_output();
  note_cpu_clocks();
  int depth = t_depth;
  Context ctx;
  if (yk_ctx_save(&ctx) == 0) {
    int r = capture(sink, ctx, depth);
    if (parked) release_application_threads();
    errno = g_errno_at_call;
    return r;
  }
  // Second return, in the restarted process: restore.cpp already set the routing state. Now
  // that memory is back, the library settings and the application's process state (timers last,
  // errno last of all).
  reapply_openmp_settings();
  reapply_syslog_settings();
  continue_cpu_clocks();
  replay_process_state();
  const int application_errno = errno;  // the replay's last step; creating threads may change it
  start_carried_threads_again();
  errno = application_errno;
  return YK_MEM_RESTARTED;
}

const char* to_string(AreaKind kind) {
  switch (kind) {
    case AreaKind::meta:
      return "meta";
    case AreaKind::args:
      return "args";
    case AreaKind::carried:
      return "carried";
    case AreaKind::exe_data:
      return "exe-data";
    case AreaKind::exe_tls:
      return "exe-tls";
    case AreaKind::arena:
      return "arena";
    case AreaKind::stack:
      return "stack";
    case AreaKind::fds:
      return "fds";
    case AreaKind::fortran_units:
      return "fortran-units";
    case AreaKind::mappings:
      return "mappings";
    case AreaKind::process_state:
      return "process-state";
    case AreaKind::libraries:
      return "libraries";
    case AreaKind::library_tls:
      return "library-tls";
  }
  return "unknown";
}

}  // namespace yadokari::memory
