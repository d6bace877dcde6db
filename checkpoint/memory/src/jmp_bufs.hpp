#pragma once
// The application's setjmp buffers across a restart (checkpoint/memory/README.md, "The
// application's process state"). glibc keeps a jmp_buf's frame pointer, stack pointer and return
// address mangled with the process's pointer guard (on x86-64: xor with %fs:0x30, then rotate
// left by 17), and a restarted process has another guard: a longjmp to a buffer set before the
// checkpoint (an error-recovery point set at the start, libpng's or libjpeg's error handling)
// jumped to garbage. The application's setjmp, _setjmp and __sigsetjmp (what sigsetjmp calls) are
// interposed by an assembly stub (setjmp_stub_x86_64.S) that notes the buffer's address and
// tail-jumps to glibc's, which must see its caller's frame. The capture keeps the noted buffers
// that still hold a jmp_buf — demangled, the return address lies in a loaded object and the stack
// pointer is readable; any other bytes pass with a chance of about 2^-60 — with those two values;
// the replay mangles the three words again with the new guard wherever the restored memory still
// holds exactly them.
#include <cstdint>

namespace yadokari::memory {

inline constexpr std::uint32_t kMaxJmpBufs = 128;  // carried; more that hold a jmp_buf refuse the checkpoint

struct JmpBufRecord {
  std::uint64_t address;  // the jmp_buf
  std::uint64_t rsp, pc;  // its stack pointer and return address, demangled
};

// The noted buffers that hold a jmp_buf now: the first `cap` into `out`; returns how many there are.
std::uint32_t list_jmp_bufs(JmpBufRecord* out, std::uint32_t cap);

// In the restarted process, once the memory is back; `old_guard` is the capturing process's. The
// buffers are noted again, so that the next checkpoint carries them too.
void remangle_jmp_bufs(const JmpBufRecord* bufs, std::uint32_t count, std::uint64_t old_guard);

}  // namespace yadokari::memory
