/* State a C MPI application owns besides its heap (tests/apps/README.md): buffers it maps itself
 * with mmap and uses as MPI send and receive buffers, a shared file mapping, a SIGALRM handler
 * with an interval timer, an atexit handler, a per-rank working directory and a umask, all set
 * after MPI_Init, and a real-time signal the main thread blocks, queued to it three times with
 * values before the pause point and taken after the loop, and a jmp_buf set before the loop
 * through which it leaves the loop (glibc mangles it with a per-process key). Each rank writes
 * files relative to its working directory before and after the pause point; rank 0 prints. Nothing printed depends on
 * how often the timer ticked. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <setjmp.h>
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
static volatile int queued_values[8], queued_taken;
static int rank;

static void tick(int sig) {
  (void)sig;
  ++ticks;
}

static void take_queued(int sig, siginfo_t* info, void* context) {
  (void)sig;
  (void)context;
  if (queued_taken < 8) queued_values[queued_taken++] = info->si_value.sival_int;
}

static void block_queued_signal(int how) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGRTMIN + 2);
  pthread_sigmask(how, &s, NULL);
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
  ualarm(2000, 2000); /* ITIMER_REAL through glibc's internal setitimer: interposed on its own */
  sa.sa_sigaction = take_queued;
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  sigaction(SIGRTMIN + 2, &sa, NULL);
  block_queued_signal(SIG_BLOCK);

  double* send = map_or_abort(N * sizeof(double), MAP_PRIVATE | MAP_ANONYMOUS, -1);
  double* recv = map_or_abort(N * sizeof(double), MAP_PRIVATE | MAP_ANONYMOUS, -1);
  int fd = open("shared.bin", O_RDWR | O_CREAT | O_TRUNC, 0666);
  if (fd < 0 || ftruncate(fd, 40 * 64) != 0) MPI_Abort(MPI_COMM_WORLD, 4);
  char* shared = map_or_abort(40 * 64, MAP_SHARED, fd);
  close(fd);
  for (int i = 0; i < N; ++i) send[i] = rank + i * 0.25;
  FILE* log = fopen("log.txt", "w");
  if (!log) MPI_Abort(MPI_COMM_WORLD, 5);

  static jmp_buf loop_done; /* set before the pause point, jumped to after it */
  if (setjmp(loop_done) == 0) {
    for (int iteration = 0; iteration < 40; ++iteration) {
      if (iteration == 10)
        for (int i = 1; i <= 3; ++i)
          pthread_sigqueue(pthread_self(), SIGRTMIN + 2, (union sigval){.sival_int = 100 * rank + i});
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
    longjmp(loop_done, 1);
  }
  if (rank == 0) printf("left the loop through a jmp_buf set before it\n");
  fclose(log);
  block_queued_signal(SIG_UNBLOCK); /* each queued instance is taken now, with its value */
  int queued_ok = queued_taken == 3, all_queued_ok = 0;
  for (int i = 0; i < queued_taken && i < 3; ++i) queued_ok &= queued_values[i] == 100 * rank + i + 1;
  MPI_Allreduce(&queued_ok, &all_queued_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("rank 0 took the queued signal %d times, values", (int)queued_taken);
    for (int i = 0; i < queued_taken; ++i) printf(" %d", queued_values[i]);
    printf("; every rank in order: %s\n", all_queued_ok ? "yes" : "no");
  }
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
