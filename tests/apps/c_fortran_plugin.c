/* A Fortran library (fortran_plugin.f90) loaded with dlopen after MPI_Init by a C program and used
 * before and after the pause point (tests/apps/README.md): its unit, written every iteration, and
 * its RANDOM_NUMBER generator must be carried. On Open MPI libgfortran comes only with that library.
 * Rank 0 prints the sums; every rank's library writes its own file. At exit, this program's atexit
 * handler (registered after the dlopen) runs, then the on_exit handler of the library's
 * constructor (fortran_plugin_exit.c): once each, in that order, also after a restart. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/apps/pause_point.h"

static int g_rank;
static void program_exit(void) {
  if (g_rank == 0) printf("program's atexit handler ran\n");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* A bare name, found through the executable's RUNPATH. */
  void* plugin = dlopen("libyk_fortran_plugin.so", RTLD_NOW);
  if (!plugin) {
    fprintf(stderr, "c_fortran_plugin: dlopen: %s\n", dlerror());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  void (*open_unit)(int) = (void (*)(int))dlsym(plugin, "yk_fplugin_open");
  long (*step)(int, long) = (long (*)(int, long))dlsym(plugin, "yk_fplugin_step");
  void (*close_unit)(void) = (void (*)(void))dlsym(plugin, "yk_fplugin_close");
  void (*exit_rank)(int) = (void (*)(int))dlsym(plugin, "yk_fplugin_exit_rank");
  if (!open_unit || !step || !close_unit || !exit_rank) MPI_Abort(MPI_COMM_WORLD, 1);
  g_rank = rank;
  exit_rank(rank);
  atexit(program_exit);
  open_unit(rank);
  long value = rank + 1;
  for (int iteration = 0; iteration < 20; ++iteration) {
    if (iteration == 10) yk_app_pause_point(MPI_COMM_WORLD);
    long mine = step(iteration, value), sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    value = sum % 100003;
    if (rank == 0) printf("iteration %d: sum %ld\n", iteration, sum);
  }
  close_unit();
  MPI_Finalize();
  return 0;
}
