#include "checkpoint/memory/src/std_streams.hpp"

#include <cstdio>

#include "checkpoint/memory/src/layout.hpp"

namespace yadokari::memory {
namespace {

// glibc's libio flag bits (stable ABI, from its internal libio.h).
constexpr int kUserBuf = 0x0001, kUnbuffered = 0x0002, kLineBuf = 0x0200;

FILE* stream(int i) { return i == 0 ? stdin : i == 1 ? stdout : stderr; }

}  // namespace

void capture_std_streams(StreamState out[3]) {
  for (int i = 0; i < 3; ++i) {
    FILE* f = stream(i);
    out[i].base = reinterpret_cast<std::uint64_t>(f->_IO_buf_base);
    out[i].size = f->_IO_buf_base ? static_cast<std::uint64_t>(f->_IO_buf_end - f->_IO_buf_base) : 0;
    out[i].flags = f->_flags;
    out[i].pad = 0;
  }
}

void restore_std_streams(const StreamState in[3]) {
  for (int i = 0; i < 3; ++i) {
    FILE* f = stream(i);
    const StreamState& s = in[i];
    std::fflush(f);
    if (s.flags & kUnbuffered) {
      std::setvbuf(f, nullptr, _IONBF, 0);
    } else if (s.base && ((s.flags & kUserBuf) || in_arena(reinterpret_cast<void*>(s.base)))) {
      // A buffer in restored memory: the arena block glibc allocated, or the application's own.
      std::setvbuf(f, reinterpret_cast<char*>(s.base), (s.flags & kLineBuf) ? _IOLBF : _IOFBF, s.size);
    }
    // Otherwise the stream had no buffer yet, or one from glibc's heap (allocated before main or
    // inside a library call, which the fresh process has done the same way): leave it.
  }
}

}  // namespace yadokari::memory
