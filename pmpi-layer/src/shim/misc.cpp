// Calls that fit nowhere else, and the handler behind every unsupported-function stub.
#include "pmpi-layer/src/shim/diagnostics.hpp"
#include "pmpi-layer/src/shim/api.hpp"
#include "pmpi-layer/src/shim/call_scope.hpp"

#include <cstdio>
#include <cstdlib>
#include <ctime>

extern "C" YK_API int MPI_Pcontrol(const int level, ...) {
  yadokari::shim::CallScope scope(yadokari::shim::Fn::MPI_Pcontrol);
  return PMPI_Pcontrol(level);
}

// Called by the generated stubs (unsupported.c). Aborting is the only safe answer: letting the
// call through would hand the library a virtual handle and fail later, far from the cause.
extern "C" [[noreturn]] YK_API void yadokari_unsupported_call(const char* function, const char* binding) {
  yadokari::shim::print_line(
      "yadokari: %s (%s binding) is not supported by yadokari; the job cannot continue "
      "(see pmpi-layer/README.md, \"Coverage\")",
      function, binding);
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  // Hydra tears the job down on an abort without always reading what the ranks wrote last (the
  // line above went missing under load, with an empty stderr): give it time to forward the line.
  const timespec pause{0, 200'000'000};
  nanosleep(&pause, nullptr);
  if (initialized && !finalized) PMPI_Abort(MPI_COMM_WORLD, 70);
  std::_Exit(70);
}
