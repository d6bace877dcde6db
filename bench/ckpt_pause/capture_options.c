// How long would the application be stopped to get a consistent copy of N bytes of its memory,
// with each way of taking one? Measured here, in one invocation, so the ratios compare like with
// like on a noisy machine (checkpoint/memory/README.md, "Background writing", says which one the
// product uses and why):
//   memcpy   copy everything into a staging buffer (pause = the copy)
//   fork     fork a writer that sees a copy-on-write snapshot (pause = fork; then the parent pays a
//            page fault for each page it writes while the child lives)
//   uffd-wp  write-protect the range with userfaultfd (pause = the protect; then a fault per page
//            written until the writer has copied it — not simulated here, only the protect)
// Usage: capture_options [MiB ...]   (default 64 256 1024). Prints one line per size: seconds of CPU
// time of the measuring thread (not wall time: on a loaded machine the wall time mostly measures
// how long the thread waited for a core), and `rewrite` (writing every page once, no snapshot
// alive) against `cow_rewrite` (the same while a forked snapshot holds the pages).
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void touch(char* p, size_t n, int value) {
  for (size_t i = 0; i < n; i += 4096) p[i] = (char)(value + (int)(i >> 12));
}

static char* map(size_t n) {
  char* p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  return p;
}

static double time_memcpy(char* src, size_t n) {
  char* dst = map(n);
  touch(dst, n, 0);
  double t0 = now();
  memcpy(dst, src, n);
  double t = now() - t0;
  munmap(dst, n);
  return t;
}

// Pause = fork() in the parent; `rewrite` = the parent then writes every page once while the
// child still holds the snapshot (the copy-on-write faults a running application pays).
static void time_fork(char* mem, size_t n, double* pause, double* rewrite) {
  int go[2];
  if (pipe(go) != 0) exit(1);
  double t0 = now();
  pid_t pid = fork();
  if (pid == 0) {
    char c;
    close(go[1]);
    (void)!read(go[0], &c, 1);  // hold the snapshot until the parent has rewritten everything
    _exit(0);
  }
  *pause = now() - t0;
  close(go[0]);
  t0 = now();
  touch(mem, n, 7);
  *rewrite = now() - t0;
  close(go[1]);
  waitpid(pid, NULL, 0);
}

static double time_plain_rewrite(char* mem, size_t n) {
  double t0 = now();
  touch(mem, n, 9);
  return now() - t0;
}

static double time_uffd_wp(char* mem, size_t n) {
  int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
  if (uffd < 0) return -1;
  struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP};
  if (ioctl(uffd, UFFDIO_API, &api) != 0) return close(uffd), -1;
  double t0 = now();
  struct uffdio_register reg = {.range = {(uintptr_t)mem, n}, .mode = UFFDIO_REGISTER_MODE_WP};
  struct uffdio_writeprotect wp = {.range = {(uintptr_t)mem, n}, .mode = UFFDIO_WRITEPROTECT_MODE_WP};
  if (ioctl(uffd, UFFDIO_REGISTER, &reg) != 0 || ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) != 0) return close(uffd), -1;
  double t = now() - t0;
  wp.mode = 0;
  (void)ioctl(uffd, UFFDIO_WRITEPROTECT, &wp);
  struct uffdio_range range = {(uintptr_t)mem, n};
  (void)ioctl(uffd, UFFDIO_UNREGISTER, &range);
  close(uffd);
  return t;
}

int main(int argc, char** argv) {
  static const char* defaults[] = {"64", "256", "1024"};
  int count = argc > 1 ? argc - 1 : 3;
  const char** sizes = argc > 1 ? (const char**)argv + 1 : defaults;
  printf("%8s %10s %10s %10s %12s %12s\n", "MiB", "memcpy_s", "fork_s", "uffd_wp_s", "rewrite_s", "cow_rewrite_s");
  for (int i = 0; i < count; ++i) {
    size_t n = (size_t)strtoull(sizes[i], NULL, 10) << 20;
    char* mem = map(n);
    touch(mem, n, 1);
    double copy = time_memcpy(mem, n);
    double plain = time_plain_rewrite(mem, n);
    double pause = 0, rewrite = 0;
    time_fork(mem, n, &pause, &rewrite);
    double wp = time_uffd_wp(mem, n);
    printf("%8zu %10.4f %10.4f %10.4f %12.4f %12.4f\n", n >> 20, copy, pause, wp, plain, rewrite);
    munmap(mem, n);
  }
  return 0;
}
