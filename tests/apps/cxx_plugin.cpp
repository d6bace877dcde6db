// A C++ library loaded with dlopen after MPI_Init (tests/apps/README.md; checkpoint/memory/README.md,
// "Libraries loaded after start"): it throws an exception of its own type through its frames,
// caught by type here, before and after the pause point. After a restart the unwinder must find
// the library again (dl_iterate_phdr / _dl_find_object), its state (a std::map in the arena) must
// be back, and its static destructor must run exactly once, at dlclose of the handle kept from
// before the pause point.
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <string>

#include "tests/apps/cxx_plugin.hpp"
#include "tests/apps/pause_point.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  void* library = dlopen("libyk_cxx_plugin.so", RTLD_NOW);
  if (!library) {
    std::fprintf(stderr, "cxx_plugin: dlopen: %s\n", dlerror());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  auto step = reinterpret_cast<double (*)(int, double)>(dlsym(library, "yk_cxx_plugin_step"));
  auto set_rank = reinterpret_cast<void (*)(int)>(dlsym(library, "yk_cxx_plugin_set_rank"));
  if (!step || !set_rank) MPI_Abort(MPI_COMM_WORLD, 1);
  set_rank(rank);
  std::ofstream out("cxx_plugin." + std::to_string(rank) + ".txt");
  out << std::setprecision(17);
  double value = rank + 1;
  int caught = 0;
  for (int iteration = 0; iteration < 16; ++iteration) {
    if (iteration == 8) yk_app_pause_point(MPI_COMM_WORLD);
    try {
      value = step(iteration, value);
    } catch (const PluginError& e) {
      ++caught;
      out << "caught PluginError " << e.code() << ": " << e.what() << '\n';
      value -= e.code();
    }
    double total = 0;
    MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    out << "iteration " << iteration << ": " << value << ' ' << total << '\n';
    if (rank == 0) std::printf("iteration %d: total %.17g\n", iteration, total);
  }
  out.close();
  if (rank == 0) std::printf("caught %d\n", caught);
  std::fflush(stdout);
  const int closed = dlclose(library);  // the library's static destructor prints here
  if (rank == 0) std::printf("dlclose: %d\n", closed);
  MPI_Finalize();
  return 0;
}
