/* State a C MPI application owns besides its heap (tests/apps/README.md): buffers it maps itself
 * with mmap and uses as MPI send and receive buffers, a shared file mapping, a SIGALRM handler
 * with an interval timer, an atexit handler, a per-rank working directory and a umask, all set
 * after MPI_Init. Each rank writes files relative to its working directory before and after the
 * pause point; rank 0 prints. Nothing printed depends on how often the timer ticked. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "tests/apps/pause_point.h"

#define N 4096

static volatile sig_atomic_t ticks;
static int rank;

static void tick(int sig) {
  (void)sig;
  ++ticks;
}

static void at_exit(void) {
  if (rank == 0) printf("atexit handler ran\n");
}

static void* map_or_abort(size_t len, int flags, int fd) {
  void* p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);
  if (p == MAP_FAILED) MPI_Abort(MPI_COMM_WORLD, 2);
  return p;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char dir[32];
  snprintf(dir, sizeof dir, "rank%d", rank);
  mkdir(dir, 0777);
  if (chdir(dir) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
  umask(027);
  atexit(at_exit);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = tick;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval every_2ms = {{0, 2000}, {0, 2000}};
  setitimer(ITIMER_REAL, &every_2ms, NULL);

  double* send = map_or_abort(N * sizeof(double), MAP_PRIVATE | MAP_ANONYMOUS, -1);
  double* recv = map_or_abort(N * sizeof(double), MAP_PRIVATE | MAP_ANONYMOUS, -1);
  int fd = open("shared.bin", O_RDWR | O_CREAT | O_TRUNC, 0666);
  if (fd < 0 || ftruncate(fd, 40 * 64) != 0) MPI_Abort(MPI_COMM_WORLD, 4);
  char* shared = map_or_abort(40 * 64, MAP_SHARED, fd);
  close(fd);
  for (int i = 0; i < N; ++i) send[i] = rank + i * 0.25;
  FILE* log = fopen("log.txt", "w");
  if (!log) MPI_Abort(MPI_COMM_WORLD, 5);

  for (int iteration = 0; iteration < 40; ++iteration) {
    if (iteration == 20) yk_app_pause_point(MPI_COMM_WORLD);
    MPI_Sendrecv(send, N, MPI_DOUBLE, (rank + 1) % size, 0, recv, N, MPI_DOUBLE, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double local = 0, total = 0;
    for (int i = 0; i < N; ++i) {
      send[i] = send[i] * 0.5 + recv[i] * 0.25;
      local += send[i];
    }
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    snprintf(shared + iteration * 64, 64, "iteration %d local %.10g\n", iteration, local);
    fprintf(log, "iteration %d local %.17g\n", iteration, local);
    char name[32];
    snprintf(name, sizeof name, "step%02d.txt", iteration);
    FILE* f = fopen(name, "w");
    if (!f) MPI_Abort(MPI_COMM_WORLD, 6);
    fprintf(f, "%.17g\n", total);
    fclose(f);
    if (rank == 0) printf("iteration %d total %.17g\n", iteration, total);
  }
  fclose(log);
  sig_atomic_t t0 = ticks;
  for (int waited = 0; ticks < t0 + 2 && waited < 10000; ++waited) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  int alive = ticks >= t0 + 2, all = 0;
  MPI_Allreduce(&alive, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) printf("timers %s\n", all ? "alive" : "dead");
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  MPI_Finalize();
  return 0;
}
