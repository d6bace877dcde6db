#pragma once
// Register context and stack switching, in our own assembly (context_x86_64.S): glibc's
// setjmp/longjmp mangle rsp/rbp/rip with the pointer guard, which differs in the fresh process
// and must not be restored (docs/architecture.md, pitfall 5).
#include <cstdint>

namespace yadokari::memory {

// Offsets are used by the assembly; keep them in sync.
struct Context {
  std::uint64_t rbx, rbp, r12, r13, r14, r15;  // 0..40
  std::uint64_t rsp;                           // 48: stack pointer after yk_ctx_save returns
  std::uint64_t rip;                           // 56: its return address
  std::uint32_t mxcsr;                         // 64: SSE control/status (rounding mode)
  std::uint16_t fpu_cw;                        // 68: x87 control word
  std::uint16_t pad0;
  std::uint32_t pad1[2];
};
static_assert(sizeof(Context) == 80);

}  // namespace yadokari::memory

extern "C" {
// Saves the callee-saved state; returns 0, and returns 1 again when yk_ctx_resume(ctx) runs.
__attribute__((returns_twice)) int yk_ctx_save(yadokari::memory::Context* ctx);
// Sets the stack-protector canary (%fs:0x28; docs/architecture.md, pitfall 4) and jumps into
// ctx; never returns.
[[noreturn]] void yk_ctx_resume(const yadokari::memory::Context* ctx, std::uint64_t canary);
// Calls fn(a, b, c) on the stack whose top is `top` (16-byte aligned) and returns its result on
// the original stack. The original stack pointer is kept in a private global, not on the new
// stack, so that after a restore the return goes to the fresh process's original stack.
int yk_run_on_stack(void* top, int (*fn)(int, char**, char**), int a, char** b, char** c);
// Switches to `top` and calls fn(arg), which must not return.
[[noreturn]] void yk_jump_to_stack(void* top, void (*fn)(void*), void* arg);
// Stores the stack pointer at the call into *sp, then returns fn(arg): the frames of fn and what
// it calls lie below *sp (thread_restart.cpp copies them back into a thread started again).
void* yk_call_recording_sp(void* (*fn)(void*), void* arg, std::uint64_t* sp);
// The current stack-protector canary.
std::uint64_t yk_read_canary(void);
}
