// The composition root: MPI_Init, MPI_Init_thread and MPI_Finalize, and the order in which the
// shim's concerns are set up and torn down. Each hook it calls is declared in
// <concern>/lifecycle.hpp and called from here only; the steps of the other concerns around a
// checkpoint and a restart are given to the cut as hooks (cut::set_checkpoint_hooks).
#include "pmpi-layer/src/cut/checkpoint_taker.hpp"
#include "pmpi-layer/src/cut/cut_protocol.hpp"
#include "pmpi-layer/src/cut/lifecycle.hpp"
#include "pmpi-layer/src/link/lifecycle.hpp"
#include "checkpoint/memory/memory.h"
#include "pmpi-layer/src/objects/lifecycle.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/objects/world.hpp"
#include "pmpi-layer/src/shim/api.hpp"
#include "pmpi-layer/src/shim/call_scope.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"
#include "pmpi-layer/src/shim/finalize_hold.hpp"
#include "pmpi-layer/src/shim/library_swap.hpp"
#include "pmpi-layer/src/telemetry/lifecycle.hpp"

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include "common/parameters.hpp"

namespace yadokari::shim {
namespace {

#if defined(OPEN_MPI)
constexpr const char* kLibraryName = "libmpi.so";
constexpr const char* kPrettyName = "Open MPI";
#else
constexpr const char* kLibraryName = "libmpich.so";
constexpr const char* kPrettyName = "MPICH";
#endif

// Aborts the process with one clear line if this shim was built for another MPI ABI than the
// library the program actually uses (it would otherwise fail with "Invalid communicator").
void check_abi_or_die() {
  void* init = dlsym(RTLD_DEFAULT, "PMPI_Init");
  Dl_info info{};
  if (init && dladdr(init, &info) && info.dli_fname) {
    const char* base = std::strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    if (std::strncmp(base, kLibraryName, std::strlen(kLibraryName)) != 0) {
      print_line(
          "yadokari: this shim (libyadokari-%s.so) is built for %s but the program uses %s; "
          "launch it with `yadokari run`, which picks the matching shim",
          kFlavour, kPrettyName, info.dli_fname);
      std::_Exit(70);
    }
  }
  const char* expected = std::getenv(yadokari::parameters::kFlavour);
  if (expected && *expected && std::strcmp(expected, kFlavour) != 0) {
    print_line("yadokari: YADOKARI_FLAVOUR=%s but this shim is built for %s", expected, kFlavour);
    std::_Exit(70);
  }
}

// Around the memory capture of a checkpoint (cut/checkpoint_taker.cpp: drain, the shim's state,
// then these, then the capture) and, in a restarted process, when the restore returned into it.
void before_checkpoint_capture() {
  telemetry::on_checkpoint();  // MPI_Wtime's value at the checkpoint, carried in the image
}
void after_restart() {
  telemetry::on_restart();    // MPI_Wtime continues from the checkpoint's value
  cut::on_restart();          // pending receives re-posted, the restart counted and reported
  cut::report_idle_policy();  // an oversubscribed node says that its ranks yield when idle
}

// Once the library is up, in this order (a restore, if any, follows: cut::restore_if_requested()).
void after_library_init(int thread_level, std::chrono::steady_clock::time_point init_started) {
  cut::set_checkpoint_hooks({before_checkpoint_capture, after_restart});
  set_checkpoint_taker(&take_checkpoint);        // what the cut runs once every rank is parked
  install_move_swapper();                        // and when a live move keeps the rank
  objects::on_init(thread_level, init_started);  // identity, the virtual world, MPI_COMM_SELF
  cut::on_init();                                // the cut's listener, before the link can deliver
  link::on_init();                               // registers with the front end, if there is one
  telemetry::on_init(link::up());                // compute time: only for a front end to report it to
  // Checkpoints need the memory layer (on when YADOKARI_CKPT_DIR or YADOKARI_RESTORE is set)
  // and a coordinator to agree with. Then blocking calls poll, looking at the checkpoint request:
  const bool checkpoints = yk_mem_enabled() && link::up();
  cut::enable_checkpoints(checkpoints);                                        // the blocking wrappers
  objects::use_blocking_waits(checkpoints ? &cut::polling_waits() : nullptr);  // and the MPI_Wait family
}

// Before the library's MPI_Finalize, in this order.
void before_library_finalize() {
  hold_before_finalize();  // fault injection: may take part in checkpoints while it waits
  cut::on_finalize();      // abandons a cut in progress
  telemetry::on_finalize();
  link::on_finalize();
}

}  // namespace
}  // namespace yadokari::shim

extern "C" YK_API int MPI_Init(int* argc, char*** argv) {
  yadokari::shim::check_abi_or_die();
  yadokari::shim::CallScope scope(yadokari::shim::Fn::MPI_Init);
  const auto started = std::chrono::steady_clock::now();
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) {
    yadokari::shim::after_library_init(MPI_THREAD_SINGLE, started);
    yadokari::shim::cut::restore_if_requested();  // returns only when there is nothing to restore
  }
  return rc;
}

extern "C" YK_API int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  yadokari::shim::check_abi_or_die();
  yadokari::shim::CallScope scope(yadokari::shim::Fn::MPI_Init_thread);
  const auto started = std::chrono::steady_clock::now();
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) {
    yadokari::shim::after_library_init(*provided, started);
    yadokari::shim::cut::restore_if_requested();
  }
  return rc;
}

extern "C" YK_API int MPI_Finalize(void) {
  yadokari::shim::CallScope scope(yadokari::shim::Fn::MPI_Finalize);
  yadokari::shim::delete_self_attributes();  // first, while MPI is whole (MPI 3.1 §8.7.1)
  yadokari::shim::before_library_finalize();
  return PMPI_Finalize();
}
