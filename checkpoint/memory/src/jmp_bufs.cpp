// The application's setjmp buffers: see jmp_bufs.hpp. The layout and the mangling are glibc's on
// x86-64 (sysdeps/x86_64/jmpbuf-offsets.h: the words are rbx, rbp, r12-r15, rsp, pc; setjmp.S
// mangles rbp, rsp and pc; pointer_guard.h: xor with the guard, then rotate left by 17).
#include "checkpoint/memory/src/jmp_bufs.hpp"

#include <dlfcn.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/memory_streams.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"

extern "C" {
void* yk_real_setjmp;  // glibc's, the stub's jump targets
void* yk_real__setjmp;
void* yk_real_sigsetjmp;
void yk_note_jmp_buf(const void* buf);
}

namespace yadokari::memory {
namespace {

enum Word { kRbp = 1, kRsp = 6, kPc = 7, kWords = 8 };

// The noted addresses: an open-addressing set, written by any application thread without a lock.
// A buffer noted again costs a hash and a load. When a probe window is full the newest note takes
// its first slot (the one it evicts is then not carried: its longjmp after a restart crashes,
// as before this table existed).
constexpr std::uint32_t kSlots = 1024, kProbe = 16;
std::atomic<std::uint64_t> g_noted[kSlots];

std::uint32_t slot_of(std::uint64_t address) {
  return static_cast<std::uint32_t>(((address >> 4) * 0x9E3779B97F4A7C15ull) >> 54);  // 10 bits: kSlots
}

void note(std::uint64_t address) {
  const std::uint32_t first = slot_of(address);
  for (std::uint32_t i = 0; i < kProbe; ++i) {
    std::atomic<std::uint64_t>& slot = g_noted[(first + i) % kSlots];
    std::uint64_t seen = slot.load(std::memory_order_relaxed);
    if (seen == address) return;
    if (seen == 0 && slot.compare_exchange_strong(seen, address, std::memory_order_relaxed)) return;
    if (seen == address) return;
  }
  g_noted[first].store(address, std::memory_order_relaxed);
}

void resolve() {
  if (yk_real_sigsetjmp) return;
  yk_real_setjmp = dlsym(RTLD_NEXT, "setjmp");
  yk_real__setjmp = dlsym(RTLD_NEXT, "_setjmp");
  yk_real_sigsetjmp = dlsym(RTLD_NEXT, "__sigsetjmp");
  if (!yk_real_setjmp || !yk_real__setjmp || !yk_real_sigsetjmp) fatal("cannot resolve libc's setjmp");
}

__attribute__((constructor(101))) void init() { resolve(); }

std::uint64_t demangle(std::uint64_t v, std::uint64_t guard) { return ((v >> 17) | (v << 47)) ^ guard; }
std::uint64_t mangle(std::uint64_t p, std::uint64_t guard) {
  p ^= guard;
  return (p << 17) | (p >> 47);
}

// Reads or writes without faulting where nothing is mapped (a buffer in a frame or block gone since).
bool copy_words(std::uint64_t address, std::uint64_t* words, std::size_t n, bool write) {
  iovec local{words, n * sizeof *words};
  iovec remote{reinterpret_cast<void*>(address), n * sizeof *words};
  const ssize_t done = write ? process_vm_writev(getpid(), &local, 1, &remote, 1, 0)
                             : process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  return done == static_cast<ssize_t>(n * sizeof *words);
}

bool holds_jmp_buf(std::uint64_t address, std::uint64_t guard, JmpBufRecord& out) {
  std::uint64_t words[kWords];
  if (address % 8 != 0 || !copy_words(address, words, kWords, false)) return false;
  const std::uint64_t rsp = demangle(words[kRsp], guard), pc = demangle(words[kPc], guard);
  Dl_info info;
  std::uint64_t top;
  if (rsp % 8 != 0 || !dladdr(reinterpret_cast<void*>(pc), &info) || !copy_words(rsp, &top, 1, false)) return false;
  out = {address, rsp, pc};
  return true;
}

void check_jmp_bufs() {
  if (list_jmp_bufs(nullptr, 0) > kMaxJmpBufs)
    refusal_add("the application has more than 128 setjmp buffers set (setjmp, sigsetjmp), which are not carried");
}

__attribute__((constructor)) void register_check() { register_refusal_check(check_jmp_bufs); }

}  // namespace

std::uint32_t list_jmp_bufs(JmpBufRecord* out, std::uint32_t cap) {
  const std::uint64_t guard = pointer_guard();
  std::uint32_t count = 0;
  for (const auto& slot : g_noted) {
    const std::uint64_t address = slot.load(std::memory_order_relaxed);
    JmpBufRecord record;
    if (!address || !holds_jmp_buf(address, guard, record)) continue;
    if (count < cap) out[count] = record;
    ++count;
  }
  return count;
}

void remangle_jmp_bufs(const JmpBufRecord* bufs, std::uint32_t count, std::uint64_t old_guard) {
  for (auto& slot : g_noted) slot.store(0, std::memory_order_relaxed);
  const std::uint64_t guard = pointer_guard();
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint64_t words[kWords];
    const JmpBufRecord& b = bufs[i];
    if (!copy_words(b.address, words, kWords, false) || demangle(words[kRsp], old_guard) != b.rsp ||
        demangle(words[kPc], old_guard) != b.pc)
      continue;  // the memory came back holding something else: not a jmp_buf of the image's any more
    for (int w : {kRbp, kRsp, kPc}) words[w] = mangle(demangle(words[w], old_guard), guard);
    if (copy_words(b.address, words, kWords, true)) note(b.address);
  }
}

}  // namespace yadokari::memory

// Called by the stub before the jump: only the application's buffers are noted.
extern "C" void yk_note_jmp_buf(const void* buf) {
  using namespace yadokari::memory;
  if (!yk_real_sigsetjmp) resolve();  // a library constructor may call setjmp before ours ran
  if (app_context()) note(reinterpret_cast<std::uint64_t>(buf));
}
