#include "checkpoint/memory/src/trapped_dlopen.hpp"

#include <dlfcn.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>

#include "checkpoint/memory/src/routing.hpp"

namespace yadokari::memory {
namespace {

constexpr std::uint32_t kPage = 4096;
constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
constexpr int kBySeccomp = 1;  // the kernel's si_code SYS_SECCOMP, which glibc's headers do not define here
constexpr std::uint32_t kLibraryFlags = MAP_PRIVATE | MAP_DENYWRITE;  // glibc's MAP_COPY, ld.so's first mapping
// ld.so's first mapping of a library whose segments align above a page: a PROT_NONE reservation of
// span + alignment, into which it maps the file (glibc's _dl_map_segment). Trapped in region mode.
constexpr std::uint32_t kReservationFlags = MAP_PRIVATE | MAP_ANONYMOUS;

// What the handler needs; one placement at a time (the restore runs on one thread, the
// application's dlopens into the region are serialised by library_region.cpp).
struct Window {
  std::atomic<long> helper_tid{0};
  std::atomic<bool> armed{false};
  std::atomic<bool> placed{false};
  std::uintptr_t lo = 0;
  // Region mode (dlopen_into_region): every library mapping of the helper goes just below `floor`.
  bool region = false;
  std::uintptr_t region_lo = 0;
  std::atomic<std::uintptr_t> floor{0};
};
Window g_window;

long raw_mmap(std::uintptr_t addr, std::uintptr_t len, long prot, long flags, long fd, long off) {
  const long r = syscall(SYS_mmap, addr, len, prot, flags, fd, off);
  return r == -1 ? -errno : r;  // the trapped system call's result, as the kernel gives it
}

// Every trapped call is an mmap of the library's shape. The helper's first one is answered at the
// held range; any other (a thread the library's constructor started inherits the filter) is
// passed through without MAP_DENYWRITE, which the kernel ignores and the filter matches on.
void on_sigsys(int, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  greg_t* r = static_cast<ucontext_t*>(context)->uc_mcontext.gregs;
  const auto addr = static_cast<std::uintptr_t>(r[REG_RDI]), len = static_cast<std::uintptr_t>(r[REG_RSI]);
  // Passed through or answered without the bits the filter matches on: MAP_DENYWRITE, which the
  // kernel ignores, and for glibc's PROT_NONE reservation (region mode) with MAP_NORESERVE added.
  long flags = r[REG_R10] & ~static_cast<long>(MAP_DENYWRITE);
  if (flags == kReservationFlags) flags |= MAP_NORESERVE;
  const long prot = r[REG_RDX], fd = r[REG_R8], off = r[REG_R9];
  long result = -ENOSYS;
  if (info->si_code == kBySeccomp && info->si_syscall == SYS_mmap) {
    bool mine = g_window.armed.load() && syscall(SYS_gettid) == g_window.helper_tid.load();
    if (mine && g_window.region) {
      // Over the region's own PROT_NONE reservation, top down: nothing else is ever mapped there.
      // Where the kernel's top-down choice would put it in the free region below `floor` (what
      // the steering gets, e.g. in a process that has yet to restore): right below, and a mapping
      // of 2 MiB or more at the 2 MiB boundary below that (THP alignment, docs/platform.md §5).
      const std::uintptr_t pages = (len + kPage - 1) & ~static_cast<std::uintptr_t>(kPage - 1);
      const std::uintptr_t floor = g_window.floor.load();
      std::uintptr_t lo = floor - g_window.region_lo >= pages ? floor - pages : 0;
      if (lo && len >= kHugePage) lo &= ~(kHugePage - 1);
      if (!lo || lo < g_window.region_lo) {
        result = -ENOMEM;
      } else {
        result = raw_mmap(lo, len, prot, flags | MAP_FIXED, fd, off);
        if (result == static_cast<long>(lo)) {
          g_window.floor.store(lo);
          g_window.placed.store(true);
        }
      }
    } else {
      if (mine) g_window.armed.store(false);
      result = mine ? raw_mmap(g_window.lo, len, prot, flags | MAP_FIXED, fd, off)
                    : raw_mmap(addr, len, prot, flags, fd, off);
      if (mine && result == static_cast<long>(g_window.lo)) g_window.placed.store(true);
    }
  }
  r[REG_RAX] = result;
  errno = saved_errno;
}

// Traps mmap(NULL, len, PROT_READ [| PROT_EXEC], MAP_PRIVATE | MAP_DENYWRITE, fd, ...) with
// span - 4096 < len <= span: ld.so's first mapping of a library of that span (the length is the
// segments' extent, not page rounded); with span 0, of any length below 4 GiB. Everything else is
// allowed.
bool install_filter(std::size_t span) {
  const auto lo_word = [](int arg) { return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + 8 * arg); };
  // Any length: the comparisons below pass for every len (len > 0xffffffff - never; len > 0 - always).
  const auto span32 = span ? static_cast<std::uint32_t>(span) : 0xffffffffu;
  const auto floor32 = span ? span32 - kPage : 0u;
  sock_filter code[] = {
      // Jump offsets count from the next instruction; 18 is "allow", 19 "trap".
      /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 16),
      /* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 0, 14),
      /* 4 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo_word(0)),
      /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 12),
      /* 6 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo_word(0) + 4),
      /* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 10),
      /* 8 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo_word(1) + 4),
      /* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 8),
      /* 10 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo_word(1)),
      /* 11 */ BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, span32, 6, 0),
      /* 12 */ BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, floor32, 0, 5),
      /* 13 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo_word(2)),
      // The first segment is read-only, or also executable in libraries linked without -z separate-code.
      /* 14 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~static_cast<std::uint32_t>(PROT_EXEC)),
      /* 15 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_READ, 0, 2),
      /* 16 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo_word(3)),
      /* 17 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kLibraryFlags, 1, 0),
      /* 18 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      /* 19 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
  };
  const sock_fprog program{static_cast<unsigned short>(sizeof code / sizeof code[0]), code};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) == 0) return true;
  // Without CAP_SYS_ADMIN the kernel wants no_new_privs, which is per thread like the filter.
  if (errno != EACCES || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) == 0;
}

// Region mode: traps, whatever the length below 4 GiB, mmap(NULL, len, PROT_READ [| PROT_EXEC],
// MAP_PRIVATE | MAP_DENYWRITE, ...) and mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, ...):
// every first mapping ld.so makes of a library. Everything else is allowed.
bool install_region_filter() {
  const auto lo_word = [](int arg) { return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + 8 * arg); };
  sock_filter code[] = {
      // Jump offsets count from the next instruction; 18 is "allow", 19 "trap".
      /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 16),
      /* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 0, 14),
      /* 4 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo_word(0)),
      /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 12),
      /* 6 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo_word(0) + 4),
      /* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 10),
      /* 8 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo_word(1) + 4),
      /* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 8),
      /* 10 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo_word(3)),
      /* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kReservationFlags, 4, 0),
      /* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kLibraryFlags, 0, 5),
      // A library's mapping: its first segment is read-only, or also executable.
      /* 13 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo_word(2)),
      /* 14 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~static_cast<std::uint32_t>(PROT_EXEC)),
      /* 15 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_READ, 3, 2),
      // The reservation: PROT_NONE.
      /* 16 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo_word(2)),
      /* 17 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_NONE, 1, 0),
      /* 18 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      /* 19 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
  };
  const sock_fprog program{static_cast<unsigned short>(sizeof code / sizeof code[0]), code};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) == 0) return true;
  if (errno != EACCES || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) == 0;
}

struct Request {
  DlopenFunction open;
  const char* path;
  int mode;
  std::size_t span;  // 0: any (region mode)
  bool as_application;
  TrappedDlopen* result;
};

void* helper(void* arg) {
  auto* q = static_cast<Request*>(arg);
  // The application's own dlopen: what ld.so and the library's constructors allocate goes where it
  // would on the calling thread, into the arena (the library's carried data points there).
  if (q->as_application) {
    t_app = true;
    t_lib = false;
  }
  sigset_t sys;
  sigemptyset(&sys);
  sigaddset(&sys, SIGSYS);
  // A blocked SIGSYS would make the kernel kill the process at the trap instead.
  if (pthread_sigmask(SIG_UNBLOCK, &sys, nullptr) != 0 ||
      !(q->span ? install_filter(q->span) : install_region_filter()))
    return nullptr;
  g_window.helper_tid.store(syscall(SYS_gettid));
  g_window.armed.store(true);
  q->result->handle = q->open(q->path, q->mode);
  g_window.armed.store(false);
  if (q->result->handle) {
    q->result->outcome = TrappedDlopen::Outcome::loaded;
  } else {
    const char* error = dlerror();  // per thread: read here
    std::snprintf(q->result->error, sizeof q->result->error, "%s", error ? error : "dlopen failed");
    q->result->outcome = TrappedDlopen::Outcome::failed;
  }
  return nullptr;
}

// The span must fit the filter's 32-bit comparison and be a whole number of pages.
bool span_supported(std::size_t span) { return span >= kPage && span % kPage == 0 && span <= 0xffffffffu; }

}  // namespace

namespace {

alignas(4096) unsigned char g_helper_stack[4u << 20];

TrappedDlopen run_on_helper(Request& request) {
  TrappedDlopen& result = *request.result;
  g_window.placed.store(false);
  g_window.armed.store(false);
  struct sigaction trap {
  }, previous{};
  trap.sa_sigaction = on_sigsys;
  trap.sa_flags = SA_SIGINFO;
  sigemptyset(&trap.sa_mask);
  if (sigaction(SIGSYS, &trap, &previous) != 0) return result;
  // The helper's stack is ours, in .bss: a stack glibc maps (and keeps in its cache after the
  // join) would move everything the kernel places later, in the first run and not in a restarted
  // process, or the other way round.
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) != 0) return result;
  if (pthread_attr_setstack(&attr, g_helper_stack, sizeof g_helper_stack) == 0 &&
      pthread_create(&thread, &attr, helper, &request) == 0)
    pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  sigaction(SIGSYS, &previous, nullptr);
  result.placed = g_window.placed.load();
  g_window.helper_tid.store(0);
  return result;
}

}  // namespace

TrappedDlopen dlopen_at_held_range(DlopenFunction open, const char* path, int mode, std::uintptr_t lo,
                                   std::size_t span) {
  TrappedDlopen result;
  if (!span_supported(span)) return result;
  g_window.region = false;
  g_window.lo = lo;
  Request request{open, path, mode, span, false, &result};
  return run_on_helper(request);
}

TrappedDlopen dlopen_into_region(DlopenFunction open, const char* path, int mode, std::uintptr_t region_lo,
                                 std::uintptr_t& floor) {
  TrappedDlopen result;
  g_window.region = true;
  g_window.region_lo = region_lo;
  g_window.floor.store(floor);
  Request request{open, path, mode, 0, true, &result};
  run_on_helper(request);
  floor = g_window.floor.load();
  g_window.region = false;
  return result;
}

}  // namespace yadokari::memory
