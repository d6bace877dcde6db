#pragma once
// stdin/stdout/stderr live in libc (fresh after a restart), but the buffer glibc allocates for
// them at their first use comes from the arena when that use is the application's. A restarted
// stdout would allocate a second buffer, and from then on the arena would hand out different
// addresses than in the uninterrupted run. So the restore gives each standard stream back the
// buffer and buffering mode it had at the checkpoint (the buffer's bytes are restored with the
// arena or the executable's data; it was flushed before the capture).
#include <cstdint>

namespace yadokari::memory {

struct StreamState {
  std::uint64_t base;  // _IO_buf_base at the checkpoint (0: no buffer yet)
  std::uint64_t size;
  std::int32_t flags;  // _flags at the checkpoint
  std::int32_t pad;
};

void capture_std_streams(StreamState out[3]);
// After the arena and data are back; before the jump.
void restore_std_streams(const StreamState in[3]);

}  // namespace yadokari::memory
