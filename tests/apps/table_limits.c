/* Fills one of the memory layer's fixed-size tables past its limit after a first checkpoint
 * (checkpoint/memory/README.md, "Bounds of the tables"): the next checkpoint must be refused with
 * the line(s) rank 0 writes to expected-refusals, and the epoch before stays the newest
 * (table_limits.sh checks both). argv[1] chooses the table:
 *   dlopen_requests   257 libraries dlopen'ed by distinct names (the request table holds 256);
 *   dlopen_libraries  256 libraries that share one dependency: 257 libraries loaded after start
 *                     (the library table holds 256);
 *   mappings          mmap until the table of the application's mappings (256) is full and the
 *                     kernel places one outside the region;
 *   exit_handlers     65 atexit handlers (64 are carried);
 *   thread_keys       65 thread-specific data keys created (64 are carried);
 *   files             129 files kept open (128 are carried; the 129th is named);
 *   waiting_signals   a real-time signal the main thread blocks, queued to it 65 times (64 waiting
 *                     instances are carried);
 *   memory_streams    33 fmemopen streams kept open (32 streams without a descriptor are carried);
 *   jmp_bufs          129 jmp_bufs set with setjmp (128 are carried);
 *   environment       129 environment variables set (the changes of 128 are carried).
 * argv[2]: the directory of libyk_limit_plugin.so and libyk_limit_plugin_user.so; the program
 * copies one of them under many names into ./libs. Pause points: $YK_APP_PAUSE-1 before anything
 * is filled, $YK_APP_PAUSE-2 after. Rank 0 prints only after the first one, so a restart from the
 * epoch taken there prints what an uninterrupted run prints. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
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
#include <unistd.h>

#include "tests/apps/pause_point.h"

enum {
  kTable = 256,
  kExitHandlers = 64,
  kThreadKeys = 64,
  kFiles = 128,
  kWaitingSignals = 64,
  kMemoryStreams = 32,
  kJmpBufs = 128
};
static const uintptr_t kMapBase = 0x120000000000ull, kMapReserve = 1ull << 40; /* src/layout.hpp */

static void pause_step(const char* step) {
  const char* base = getenv("YK_APP_PAUSE");
  if (!base || !*base) return;
  char go[4096];
  snprintf(go, sizeof go, "%s-%s", base, step);
  yk_app_pause_at(MPI_COMM_WORLD, go);
}

static void copy_file(const char* from, const char* to) {
  static char buf[1 << 16];
  int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
  if (in < 0 || out < 0) {
    fprintf(stderr, "table_limits: cannot copy %s to %s\n", from, to);
    abort();
  }
  for (ssize_t n; (n = read(in, buf, sizeof buf)) > 0;)
    if (write(out, buf, (size_t)n) != n) abort();
  close(in);
  close(out);
}

/* `count` copies of dir/lib loaded by absolute path; returns the sum of their answers. */
static int load_copies(const char* dir, const char* lib, int count, int rank, void** first) {
  char cwd[2048], from[4096], to[4200];
  if (!getcwd(cwd, sizeof cwd)) abort();
  snprintf(from, sizeof from, "%s/%s", dir, lib);
  snprintf(to, sizeof to, "%s/libs-%d", cwd, rank); /* one directory per rank: no race on the files */
  mkdir(to, 0755);
  int sum = 0;
  for (int i = 0; i < count; ++i) {
    snprintf(to, sizeof to, "%s/libs-%d/copy-%03d-%s", cwd, rank, i, lib);
    copy_file(from, to);
    void* h = dlopen(to, RTLD_NOW);
    if (!h) {
      fprintf(stderr, "table_limits: dlopen: %s\n", dlerror());
      abort();
    }
    int (*get)(void) = (int (*)(void))dlsym(h, "yk_limit_plugin_get");
    if (!get) abort();
    sum += get();
    if (i == 0) *first = h;
  }
  return sum;
}

/* The loaded object whose name ends with `tail`, walking the link maps (a dlopen(RTLD_NOLOAD)
 * would be one more request the layer notes). */
static const char* loaded_path(void* any, const char* tail) {
  struct link_map* m = NULL;
  if (dlinfo(any, RTLD_DI_LINKMAP, &m) != 0) abort();
  while (m->l_prev) m = m->l_prev;
  for (; m; m = m->l_next) {
    size_t n = strlen(m->l_name), t = strlen(tail);
    if (n >= t && strcmp(m->l_name + n - t, tail) == 0) return m->l_name;
  }
  abort();
}

static void on_exit_nothing(void) {}

static long work(int rank, int step) {
  long local = (long)(rank + 1) * step, total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  const char* dir = argc > 2 ? argv[2] : ".";
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  work(rank, 1);
  pause_step("1");

  char line[4400] = "";
  int filled = 0;
  void* first = NULL;
  if (strcmp(mode, "dlopen_requests") == 0) {
    filled = load_copies(dir, "libyk_limit_plugin.so", kTable + 1, rank, &first);
    snprintf(line, sizeof line, "the application made more than %d dlopen requests, which is not carried", kTable);
  } else if (strcmp(mode, "dlopen_libraries") == 0) {
    filled = load_copies(dir, "libyk_limit_plugin_user.so", kTable, rank, &first) + 1; /* and the dependency */
    snprintf(line, sizeof line,
             "the application loaded more than %d libraries after start (%s...), which is not carried", kTable,
             loaded_path(first, "/libyk_limit_plugin_dep.so"));
  } else if (strcmp(mode, "mappings") == 0) {
    for (int i = 0; i < 4 * kTable; ++i) {
      char* p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) abort();
      p[0] = 1;
      if ((uintptr_t)p < kMapBase || (uintptr_t)p >= kMapBase + kMapReserve) {
        snprintf(line, sizeof line, "the application has more mappings than the table holds (%d), from %#llx", kTable,
                 (unsigned long long)(uintptr_t)p);
        filled = 1;
        break;
      }
    }
  } else if (strcmp(mode, "files") == 0) {
    char cwd[2048], path[4200];
    if (!getcwd(cwd, sizeof cwd)) abort();
    snprintf(path, sizeof path, "%s/files-%d", cwd, rank);
    mkdir(path, 0755);
    for (int i = 0; i <= kFiles; ++i) {
      snprintf(path, sizeof path, "%s/files-%d/f-%03d", cwd, rank, i);
      int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0) abort();
      ++filled;
      if (i == kFiles)
        snprintf(line, sizeof line,
                 "the application has more than %d files open, which is not carried (descriptor %d %s)", kFiles, fd,
                 path);
    }
  } else if (strcmp(mode, "exit_handlers") == 0) {
    for (int i = 0; i <= kExitHandlers; ++i)
      if (atexit(on_exit_nothing) == 0) ++filled;
    snprintf(line, sizeof line,
             "the application registered more signal handlers, exit handlers or setlocale calls than are carried");
  } else if (strcmp(mode, "thread_keys") == 0) {
    static pthread_key_t keys[kThreadKeys + 1];
    for (int i = 0; i <= kThreadKeys; ++i)
      if (pthread_key_create(&keys[i], NULL) == 0) ++filled;
    snprintf(line, sizeof line,
             "the application created or set more than %d thread-specific data keys, which are not carried",
             kThreadKeys);
  } else if (strcmp(mode, "waiting_signals") == 0) {
    sigset_t blocked;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGRTMIN + 3);
    pthread_sigmask(SIG_BLOCK, &blocked, NULL);
    for (int i = 0; i <= kWaitingSignals; ++i)
      if (pthread_sigqueue(pthread_self(), SIGRTMIN + 3, (union sigval){.sival_int = i}) == 0) ++filled;
    snprintf(line, sizeof line, "%d signals wait for the application thread (blocked), more than the %d carried",
             filled, kWaitingSignals);
  } else if (strcmp(mode, "memory_streams") == 0) {
    static char buffers[kMemoryStreams + 1][64];
    for (int i = 0; i <= kMemoryStreams; ++i)
      if (fmemopen(buffers[i], sizeof buffers[i], "w")) ++filled;
    snprintf(line, sizeof line,
             "the application has more than 32 streams without a descriptor (fmemopen, open_memstream, fopencookie) "
             "open, which is not carried");
  } else if (strcmp(mode, "jmp_bufs") == 0) {
    static jmp_buf buffers[kJmpBufs + 1];
    for (int i = 0; i <= kJmpBufs; ++i)
      if (setjmp(buffers[i]) == 0) ++filled;
    snprintf(line, sizeof line,
             "the application has more than 128 setjmp buffers set (setjmp, sigsetjmp), which are not carried");
  } else if (strcmp(mode, "environment") == 0) {
    for (int i = 0; i <= 128; ++i) {
      char name[32];
      snprintf(name, sizeof name, "YK_LIMIT_%d", i);
      if (setenv(name, "1", 1) == 0) ++filled;
    }
    snprintf(line, sizeof line,
             "the application changed more of its environment than is carried (128 variables, 32 KiB)");
  } else {
    fprintf(stderr, "table_limits: unknown mode '%s'\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) {
    FILE* f = fopen("expected-refusals", "w");
    if (!f || fprintf(f, "%s\n", line) < 0 || fclose(f) != 0) abort();
    printf("%s: %d filled (%s)\n", mode, filled, filled ? "past the limit" : "nothing");
  }
  pause_step("2");
  long total = work(rank, 2);
  if (rank == 0) printf("done: %ld\n", total);
  if (first) dlclose(first);
  MPI_Finalize();
  return 0;
}
