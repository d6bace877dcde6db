// Restore, in a fresh process of the same binary that reached the restore point:
//   1. read and check the meta area — nothing is modified if the image does not fit;
//   2. read every other area into place; the stack area goes to a side buffer, because this code
//      still runs on the application stack (and the source may live on it);
//   3. on a private stack: copy the stack into place, set the routing state, and jump into the
//      saved context with the saved canary: the checkpoint call returns YK_MEM_RESTARTED.
#include <sys/mman.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "checkpoint/memory/areas.hpp"
#include "checkpoint/memory/memory.h"
#include "checkpoint/memory/src/app_mappings.hpp"
#include "checkpoint/memory/src/args_region.hpp"
#include "checkpoint/memory/src/carried.hpp"
#include "checkpoint/memory/src/context.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/exe_layout.hpp"
#include "checkpoint/memory/src/deferred_truncation.hpp"
#include "checkpoint/memory/src/fd_table.hpp"
#include "checkpoint/memory/src/fortran_units.hpp"
#include "checkpoint/memory/src/identity.hpp"
#include "checkpoint/memory/src/linked_libraries.hpp"
#include "checkpoint/memory/src/layout.hpp"
#include "checkpoint/memory/src/loaded_libraries.hpp"
#include "checkpoint/memory/src/meta.hpp"
#include "checkpoint/memory/src/process.hpp"
#include "checkpoint/memory/src/restore_prelude.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "checkpoint/memory/src/written_files_note.hpp"

namespace yadokari::memory {
namespace {

MetaRecord g_meta;
FdRecord g_fds[kMaxAppFds];
FortranState g_fortran;
alignas(64) unsigned char g_restore_stack[256 * 1024];

struct StackCopy {
  std::uintptr_t addr = 0;
  std::size_t len = 0;
  void* copy = nullptr;
  std::size_t mapped = 0;
} g_stack;

const char* g_what = "";
// Where a refusal goes when the caller reports it itself (restore()'s `refusal`); else stderr.
std::string* g_refusal = nullptr;

bool fail(const char* why) {
  if (g_refusal)
    *g_refusal = std::string(g_what) + ": " + why;
  else
    say("cannot restore ", g_what, ": ", why);
  return false;
}

bool check_meta(const MetaRecord& m, const ExeLayout& exe) {
  char why[512];
  if (std::memcmp(m.magic, kMetaMagic, sizeof m.magic) != 0 || m.size != sizeof m)
    return fail("not a yadokari memory image");
  if (m.version != kMetaVersion) return fail("memory image version differs from this yadokari");
  if (m.stack_top != kStackTop || m.args_base != kArgsBase || m.arena_base != kArenaBase)
    return fail("the image was written with a different memory layout");
  std::uint64_t hash = 0;
  if (!exe_hash(hash)) return fail("cannot read /proc/self/exe");
  if (hash != m.exe_hash) {
    std::snprintf(why, sizeof why, "the executable %s changed since the checkpoint (it was %s)", exe_path(),
                  m.exe_path);
    return fail(why);
  }
  if (!same_objects(m.objects, premain_objects(), why, sizeof why)) return fail(why);
  if (!check_linked_libraries(m.linked_libraries, why, sizeof why)) return fail(why);
  std::uintptr_t tls_addr = 0;
  std::size_t tls_size = 0;
  exe_tls_block(tls_addr, tls_size);
  if (tls_size != m.tls_size || tls_addr != m.tls_addr || tls_size != exe.tls_memsz)
    return fail("the executable's thread-local storage is not where it was at the checkpoint");
  if (m.args_size > kArgsMax || m.arena_committed_end > kArenaBase + kArenaReserve ||
      m.arena_committed_end < kArenaBase)
    return fail("the image's region sizes are out of range");
  if (static_cast<int>(m.carried_count) != carried_count())
    return fail("the shim carries different state than at the checkpoint");
  for (std::uint32_t i = 0; i < m.carried_count; ++i) {
    const CarriedRange& a = m.carried[i];
    bool found = false;
    for (int j = 0; j < carried_count() && !found; ++j)
      found = carried_ranges()[j].addr == a.addr && carried_ranges()[j].len == a.len;
    if (!found) {
      std::snprintf(why, sizeof why, "the shim's carried state \"%s\" is not where it was at the checkpoint", a.name);
      return fail(why);
    }
  }
  return true;
}

bool inside(std::uintptr_t lo, std::uintptr_t hi, const std::vector<Range>& ranges) {
  for (const Range& r : ranges)
    if (lo >= r.lo && hi <= r.hi) return true;
  return false;
}

// Where an area may be written; the reason on stderr if nowhere.
void* destination(const AreaHeader& h, const std::vector<Range>& exe_data) {
  std::uintptr_t lo = h.addr, hi = h.addr + h.len;
  if (hi < lo) return nullptr;
  switch (h.kind) {
    case AreaKind::args:
      if (lo == kArgsBase && h.len == g_meta.args_size && args_remap(h.len)) return reinterpret_cast<void*>(lo);
      return nullptr;
    case AreaKind::carried:
      for (int j = 0; j < carried_count(); ++j)
        if (carried_ranges()[j].addr == lo && carried_ranges()[j].len == h.len) return reinterpret_cast<void*>(lo);
      return nullptr;
    case AreaKind::exe_data:
      return inside(lo, hi, exe_data) ? reinterpret_cast<void*>(lo) : nullptr;
    case AreaKind::exe_tls:
      return lo == g_meta.tls_addr && h.len == g_meta.tls_size ? reinterpret_cast<void*>(lo) : nullptr;
    case AreaKind::arena:
      if (lo == kArenaBase && hi <= g_meta.arena_committed_end && arena_commit(kArenaBase, g_meta.arena_committed_end))
        return reinterpret_cast<void*>(lo);
      return nullptr;
    case AreaKind::stack: {
      // With room below the saved stack: the restarted code calls deeper than the checkpoint did
      // (the replay of the process state first), under a limit that may be smaller than the saved depth.
      constexpr std::uintptr_t kHeadroom = 256 * 1024;
      if (hi != kStackTop || lo < kStackTop - kStackWindow) return nullptr;
      if (!extend_stack(lo - kHeadroom >= kStackTop - kStackWindow ? lo - kHeadroom : lo)) return nullptr;
      std::size_t mapped = (h.len + kPage - 1) & ~(kPage - 1);
      void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) return nullptr;
      g_stack = {lo, h.len, p, mapped};
      return p;
    }
    case AreaKind::mappings:
      return mapping_destination(lo, h.len);
    case AreaKind::libraries:
    case AreaKind::library_tls:
      if (void* placed = library_destination(h.kind, lo, h.len)) return placed;
      return linked_library_destination(h.kind, lo, h.len);
    case AreaKind::meta:
    case AreaKind::fds:
    case AreaKind::fortran_units:
    case AreaKind::process_state:
      break;
  }
  return nullptr;
}

[[noreturn]] void finish(void*) {  // on g_restore_stack
  std::memcpy(reinterpret_cast<void*>(g_stack.addr), g_stack.copy, g_stack.len);
  munmap(g_stack.copy, g_stack.mapped);
  g_restore_pending = false;
  g_arena_on.store(true);
  t_app = true;
  t_lib = false;
  t_depth = g_meta.depth_at_call;
  arena_unlock();
  yk_ctx_resume(&g_meta.ctx, g_meta.canary);
}

}  // namespace

int restore(AreaSource& src, const char* what, std::string* refusal) {
  g_what = what ? what : "image";
  g_refusal = refusal;
  if (!g_enabled) return fail("the memory layer is disabled in this process (see the message above)"), YK_MEM_ERROR;
  if (!t_app) return fail("not called from the application thread"), YK_MEM_ERROR;
  // Otherwise libraries may already hold arena blocks that the restore would overwrite.
  if (!g_restore_pending)
    return fail("the process was not started for a restore (yk_mem_expect_restore() or YADOKARI_RESTORE)"),
           YK_MEM_ERROR;
  LibraryScope scope;  // the source's allocations and ours go to glibc, not the arena
  ExeLayout exe;
  std::string error;
  if (!read_exe_layout(exe, error)) return fail(error.c_str()), YK_MEM_ERROR;
  AreaHeader h;
  if (!src.next(h) || h.kind != AreaKind::meta || h.len != sizeof g_meta || !src.read(&g_meta))
    return fail("not a yadokari memory image (no meta area first)"), YK_MEM_ERROR;
  if (!check_meta(g_meta, exe)) return YK_MEM_ERROR;
  char why[kFdPathMax + 200];
  bool more = src.next(h);
  int nfds = 0;
  if (more && h.kind == AreaKind::fds) {
    // The application's files: reopened onto their descriptors, or refused with nothing changed.
    if (h.len > sizeof g_fds || h.len % sizeof(FdRecord) != 0)
      return fail("the image's file table is malformed"), YK_MEM_ERROR;
    if (!src.read(g_fds)) return fail("the image ended early or could not be read"), YK_MEM_ERROR;
    nfds = static_cast<int>(h.len / sizeof(FdRecord));
    more = src.next(h);
  }
  // The Fortran units' table; they are reconnected once the files are open again (below).
  std::memset(&g_fortran, 0, sizeof g_fortran);
  std::memcpy(g_fortran.magic, kFortranMagic, sizeof g_fortran.magic);
  g_fortran.size = sizeof g_fortran;
  std::size_t fortran_len = fortran_state_bytes(g_fortran);
  if (more && h.kind == AreaKind::fortran_units) {
    if (h.len > sizeof g_fortran) return fail("the image's Fortran unit table is malformed"), YK_MEM_ERROR;
    if (!src.read(&g_fortran)) return fail("the image ended early or could not be read"), YK_MEM_ERROR;
    fortran_len = h.len;
    more = src.next(h);
  }
  // The application's mappings and process state: checked (or refused) before the files reopen.
  if (!read_restore_prelude(src, h, more, why, sizeof why)) return fail(why), YK_MEM_ERROR;
  forget_written_files();
  forget_deferred_truncations();  // the files still open keep what they hold
  if (nfds > 0 && !reopen_fds(g_fds, nfds, why, sizeof why)) return abandon_mappings(), fail(why), YK_MEM_ERROR;
  // The libraries the application loaded after start, at their addresses (their constructors run
  // again here, inside this library scope); a library that cannot be placed back is a refusal.
  if (!place_restored_libraries(why, sizeof why)) return abandon_mappings(), fail(why), YK_MEM_ERROR;
  // The Fortran units, reconnected with libgfortran's OPEN now (after the libraries: one of them
  // may have brought libgfortran), while a failure can still be a refusal: libgfortran's unit
  // table is library state, which the overwrite below does not touch (library_table.cpp).
  // Without the area (nothing was connected at the checkpoint) this still closes the units that
  // the fresh process's code before the restore point connected.
  if (!restore_fortran(g_fortran, fortran_len, why, sizeof why)) return abandon_mappings(), fail(why), YK_MEM_ERROR;

  // Point of no return: from here on, memory of this process is overwritten, and whatever fails
  // is said here, before the process ends (the caller never sees it).
  g_refusal = nullptr;
  apply_mappings();
  reset_linked_libraries();
  std::vector<Range> exe_data = subtract(exe.writable, exe.excluded);
  arena_lock();
  bool arena_seen = false;
  for (; more; more = src.next(h)) {
    void* dst = destination(h, exe_data);
    if (!dst) {
      std::snprintf(why, sizeof why, "area %s at %#llx (+%llu) does not fit this process", to_string(h.kind),
                    static_cast<unsigned long long>(h.addr), static_cast<unsigned long long>(h.len));
      fail(why);
      fatal("the process is half restored and cannot continue");
    }
    if (!src.read(dst)) {
      fail("the image ended early or could not be read");
      fatal("the process is half restored and cannot continue");
    }
    arena_seen |= h.kind == AreaKind::arena;
  }
  if (src.failed() || !arena_seen || !g_stack.copy) {
    fail(src.failed() ? "the image could not be read to its end" : "the image lacks the arena or the stack");
    fatal("the process is half restored and cannot continue");
  }
  finish_mappings();
  src.done();
  restore_std_streams(g_meta.streams);
  relink_app_streams();
  yk_jump_to_stack(g_restore_stack + sizeof g_restore_stack, finish, nullptr);
}

}  // namespace yadokari::memory
