/* Links mpi_dependency, not MPI itself. */
#include <stdio.h>

int mpi_dependency_world_size(void);

int main(int argc, char** argv) {
  (void)argv;
  if (argc > 1) printf("%d\n", mpi_dependency_world_size());
  return 0;
}
