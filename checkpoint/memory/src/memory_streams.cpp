// The application's streams without a descriptor: see memory_streams.hpp. glibc exports its list
// of open streams (_IO_list_all, each FILE's _chain), the list's lock and _IO_link_in. The layout
// of a cookie stream and the pointer mangling are glibc's on x86-64 (libio/iofopncook.c,
// sysdeps/unix/sysv/linux/x86_64/pointer_guard.h: xor with %fs:0x30, then rotate left by 17).
#include "checkpoint/memory/src/memory_streams.hpp"

#include <stdio.h>

#include <cstdio>

#include "checkpoint/memory/src/layout.hpp"
#include "checkpoint/memory/src/refusal.hpp"

extern "C" {
extern FILE* _IO_list_all;  // glibc libio: the open streams, newest first
void _IO_list_lock(void);
void _IO_list_unlock(void);
void _IO_link_in(void* fp);
}

namespace yadokari::memory {
namespace {

constexpr int kLinked = 0x0080;  // glibc libio's _IO_LINKED

struct CookieFile {  // glibc's struct _IO_cookie_file
  FILE file;
  const void* vtable;
  void* cookie;
  std::uint64_t functions[4];  // read, write, seek, close: mangled
};

std::uint64_t demangle(std::uint64_t v, std::uint64_t guard) { return ((v >> 17) | (v << 47)) ^ guard; }
std::uint64_t mangle(std::uint64_t p, std::uint64_t guard) {
  p ^= guard;
  return (p << 17) | (p >> 47);
}

// The vtable glibc gives cookie streams, from a stream made for the purpose.
const void* cookie_vtable() {
  FILE* probe = fopencookie(nullptr, "r", cookie_io_functions_t{});
  if (!probe) return nullptr;
  const void* vtable = reinterpret_cast<CookieFile*>(probe)->vtable;
  std::fclose(probe);
  return vtable;
}

void check_memory_streams() {
  if (list_memory_streams(nullptr, 0) > kMaxMemoryStreams)
    refusal_add(
        "the application has more than 32 streams without a descriptor (fmemopen, open_memstream, "
        "fopencookie) open, which is not carried");
}

__attribute__((constructor)) void register_check() { register_refusal_check(check_memory_streams); }

}  // namespace

std::uint32_t list_memory_streams(std::uint64_t* out, std::uint32_t cap) {
  std::uint32_t count = 0;
  _IO_list_lock();
  for (FILE* fp = _IO_list_all; fp; fp = fp->_chain) {
    if (fp->_fileno >= 0 || !in_arena(fp)) continue;
    if (count < cap) out[count] = reinterpret_cast<std::uint64_t>(fp);
    ++count;
  }
  _IO_list_unlock();
  return count;
}

std::uint64_t pointer_guard() {
  std::uint64_t guard;
  asm volatile("mov %%fs:0x30, %0" : "=r"(guard));
  return guard;
}

void relink_memory_streams(const std::uint64_t* streams, std::uint32_t count, std::uint64_t old_guard) {
  if (!count) return;
  const void* cookie = cookie_vtable();
  const std::uint64_t guard = pointer_guard();
  for (std::uint32_t i = count; i-- > 0;) {  // _IO_link_in puts each first: oldest first keeps the order
    FILE* fp = reinterpret_cast<FILE*>(streams[i]);
    auto* c = reinterpret_cast<CookieFile*>(fp);
    if (cookie && c->vtable == cookie)
      for (std::uint64_t& f : c->functions) f = mangle(demangle(f, old_guard), guard);
    fp->_flags &= ~kLinked;
    _IO_link_in(fp);
  }
}

}  // namespace yadokari::memory
