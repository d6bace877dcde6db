// C++ state of an MPI application (tests/apps/README.md): an std::ofstream opened after MPI_Init
// and written before and after the pause point, a function-local static whose destructor prints
// at exit (registered with __cxa_atexit when first used, after MPI_Init), and an exception thrown
// and caught in every iteration, also after the restart.
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/apps/pause_point.h"

namespace {

int g_rank = 0;

struct Registry {
  std::vector<std::string> names;
  ~Registry() {
    if (g_rank == 0) std::cout << "registry destroyed with " << names.size() << " names" << std::endl;
  }
};

Registry& registry() {
  static Registry r;  // constructed at the first call, after MPI_Init: its destructor is registered then
  return r;
}

double checked_step(int iteration, double value) {
  if (iteration % 3 == 0) throw std::runtime_error("iteration " + std::to_string(iteration) + " is a multiple of 3");
  return value * 1.5 + iteration;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::ofstream out("stream." + std::to_string(g_rank) + ".txt");
  out << std::setprecision(17);
  double value = g_rank + 1;
  for (int iteration = 0; iteration < 30; ++iteration) {
    if (iteration == 15) yk_app_pause_point(MPI_COMM_WORLD);
    std::ostringstream name;
    name << "name-" << iteration;
    registry().names.push_back(name.str());
    try {
      value = checked_step(iteration, value);
    } catch (const std::exception& e) {
      out << "caught: " << e.what() << '\n';
      value /= 2;
    }
    double total = 0;
    MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    out << "iteration " << iteration << " value " << value << " total " << total << '\n';
    if (g_rank == 0) std::cout << "iteration " << iteration << " total " << std::setprecision(17) << total << '\n';
  }
  out.close();
  MPI_Finalize();
  return 0;
}
