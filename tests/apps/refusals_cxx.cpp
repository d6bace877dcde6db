// The C++ side of refusals.sh: holds, at its pause point, what argv[1] chooses.
// std_locale: a std::locale with a name ("C.UTF-8", present on every Debian system), imbued in a
// stream. libstdc++ makes its locale objects with glibc's __newlocale/__duplocale, which the memory
// layer follows like newlocale (checkpoint/memory/README.md, "Refused, with the reason"): one line.
// std_locale_released: the same locale and stream, gone again before the pause point: the
// checkpoint must commit. Rank 0 writes the lines it expects into expected-refusals; stdout does
// not depend on the mode's state nor on the pause.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <locale>
#include <memory>
#include <sstream>
#include <string>

#include "tests/apps/pause_point.h"

namespace {

// The number as the named locale writes it (C.UTF-8 groups no digits).
std::string written_with(const std::locale& named, long value) {
  std::ostringstream out;
  out.imbue(named);
  out << value;
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "std_locale" && mode != "std_locale_released") {
    std::fprintf(stderr, "usage: refusals_cxx std_locale|std_locale_released\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  auto named = std::make_unique<std::locale>("C.UTF-8");
  const std::string before = written_with(*named, 1234567L + rank);
  if (mode == "std_locale_released") named.reset();
  if (rank == 0) {
    std::FILE* expected = std::fopen("expected-refusals", "w");
    if (!expected) MPI_Abort(MPI_COMM_WORLD, 1);
    if (named)
      std::fprintf(expected,
                   "a std::locale with a name (locale objects made with __newlocale/__duplocale) is not "
                   "carried\n");
    std::fclose(expected);
  }
  yk_app_pause_point(MPI_COMM_WORLD);
  const std::string after = named ? written_with(*named, 7654321L + rank) : "released";
  long sum = 0, mine = static_cast<long>(before.size() + after.size());
  MPI_Reduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("rank 0 wrote %s then %s; digits on all ranks: %ld\n", before.c_str(), after.c_str(), sum);
  MPI_Finalize();
  return 0;
}
