// The cut's globals that other parts of the shim read: whether a cut is requested, whether
// checkpoints are on, drained messages waiting, and the cut's counters for the stats. State
// private to one file of cut/ (the protocol's view of the cut in progress, the drained messages
// themselves) stays in that file. What of it an image carries: cut/shim_state.cpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace yadokari::shim {

// Set by the control thread when a cut is in progress; read (relaxed) on every call boundary
// (cut_protocol.hpp).
inline std::atomic<bool> g_cut_requested{false};

// True when checkpoints are possible in this process (YADOKARI_CKPT_DIR set and a control plane):
// blocking calls then poll instead of blocking inside the library (interruptible.hpp).
inline bool g_interruptible = false;

// Open MPI: the polling blocking calls post and look at the library's requests below its public
// calls (open_mpi_requests.h), because the library running is the version the shim was built for.
inline bool g_direct_requests = false;

// Drained messages not yet delivered: the receive wrappers look at the drained queue only when
// this is non-zero (drain.hpp).
inline std::size_t g_drained_pending = 0;

// For the stats: how many messages cuts drained, objects the restart replayed, restarts.
inline std::uint64_t g_drained_total = 0;
inline std::uint64_t g_objects_replayed = 0;
inline std::uint64_t g_restarts = 0;

}  // namespace yadokari::shim
