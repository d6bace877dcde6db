// MPI_Buffer_attach's buffer (object_state.hpp, g_attached_buffer): the library's attachment does
// not survive a restart, the application's buffer does (it is in the image). Without attaching it
// again, the first MPI_Bsend after a restart failed with MPI_ERR_BUFFER. Buffered sends pending at
// the checkpoint were drained by their receivers at the cut, so the fresh library starts with the
// whole buffer free, as the old one would have once they were delivered.
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/objects/object_state.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"

namespace yadokari::shim {

void remember_attached_buffer(void* buffer, int size) {
  g_attached_buffer = {reinterpret_cast<std::uint64_t>(buffer), size};
}

void forget_attached_buffer() { g_attached_buffer = {}; }

void reattach_buffer() {
  if (g_attached_buffer.size <= 0) return;
  const int rc =
      PMPI_Buffer_attach(reinterpret_cast<void*>(g_attached_buffer.address), static_cast<int>(g_attached_buffer.size));
  if (rc != MPI_SUCCESS)
    print_line("yadokari: could not attach the MPI_Buffer_attach buffer again after the restart (MPI error %d)", rc);
}

}  // namespace yadokari::shim
