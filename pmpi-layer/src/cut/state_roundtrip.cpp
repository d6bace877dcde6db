// For tests: a restart of the shim's state inside one running job, without the memory layer.
// Everything a new process would not have is dropped (the library's pending requests, the
// shim's tables and queues); the shim's state then comes back from its bytes, the objects are
// re-created and the receives re-posted, exactly as the MPI_Init wrapper of a restarted rank
// does. The application goes on with its old handles and must not notice.
#include "checkpoint/memory/memory.h"
#include "pmpi-layer/src/shim/diagnostics.hpp"
#include "pmpi-layer/src/cut/replay.hpp"
#include "pmpi-layer/src/cut/shim_state.hpp"
#include "pmpi-layer/src/cut/drain.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/shim/api.hpp"

#include <exception>
#include <stdexcept>
#include <string>

namespace yadokari::shim {
namespace {

// Damaged bytes must be refused with one line and leave the (fresh) state untouched.
bool refuses_damaged(const std::string& good) {
  std::string wrong_version = good, trailing = good + '\0', huge_count = good;
  // After the 8-byte magic: cereal's byte-order flag, the version (4 bytes), the flavour's length.
  wrong_version[9] ^= 0x40;
  for (std::size_t i = 13; i < 21; ++i) huge_count[i] = '\x7f';
  for (const std::string& bad :
       {good.substr(0, good.size() / 2), wrong_version, trailing, huge_count, std::string("YKSHIMST")}) {
    try {
      load_shim_state(bad);
      return false;
    } catch (const std::runtime_error& e) {
      const std::string_view line = e.what();
      if (!line.starts_with("yadokari: shim state: ") || line.find('\n') != line.npos) return false;
    }
  }
  return registry<ReqK>().table.live_count() == 0 && g_creation_log.empty();
}

int roundtrip() {
  consistent_cut();
  std::string why;
  if (!shim_state_checkpointable(&why)) {
    print_line("yadokari: state round trip refused: %s", why.c_str());
    return MPI_ERR_OTHER;
  }
  const std::string bytes = save_shim_state();
  if (!drop_library_requests()) {
    print_line("yadokari: state round trip: a receive pending at the cut was matched after it");
    return MPI_ERR_OTHER;
  }
  forget_shim_state();
  if (!refuses_damaged(bytes)) {
    print_line("yadokari: state round trip: damaged state bytes were not refused cleanly");
    return MPI_ERR_OTHER;
  }
  try {
    load_shim_state(bytes);
  } catch (const std::exception& e) {
    print_line("%s", e.what());
    return MPI_ERR_OTHER;
  }
  replay_creation_log();
  repost_pending_receives();
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace yadokari::shim

// Collective over the virtual world. Allocations are the shim's, never the app's (as inside
// any MPI call: the memory layer's arena holds only application data).
extern "C" YK_API int yadokari_test_state_roundtrip(void) {
  yk_mem_enter_library();
  const int rc = yadokari::shim::roundtrip();
  yk_mem_leave_library();
  return rc;
}
