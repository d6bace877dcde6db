/* State created through glibc-internal paths and other calls the memory layer must either carry or
 * refuse (checkpoint/memory/README.md, "Refused, with the reason" and "The application's files").
 * Usage: glibc_paths MODE DIR N. One boundary at the start of each of N iterations; the state is
 * created in iteration 2, after the restore point (the first boundary in the late tests). Modes:
 *   carried   a file from mkstemp written every iteration and read back at the end, POSIX shared
 *             memory (shm_open, named after DIR's inode) mapped shared and written through the
 *             mapping and the descriptor every iteration, an at_quick_exit handler; the program
 *             ends with quick_exit: all of them must survive a restart
 *   streams   stdout redirected with freopen to DIR/redirected.txt (a copy of the original kept
 *             open), stdin closed, a file opened with open (carried) and dup2'ed onto descriptor 850
 *   fds       a popen pipe, a tmpfile, an opendir stream of DIR, a file opened with open and then
 *             deleted (a scratch file: no path to reopen it by)
 *   timer     a POSIX timer (timer_create)
 *   dlmopen   libm loaded into a new link-map namespace
 *   bounds    129 files open at once (the fd table holds 128), then one more opened under an
 *             RLIMIT_NOFILE of 512 (it cannot be moved above 900): refused while they are open
 *   released  all of the refused ones but bounds created and released again in the same iteration
 * The refused modes write the lines the checkpoint must give into DIR/expected-refusals. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern int yk_memtest_boundary(void) __attribute__((weak));

static const char* dir;
static FILE* expected;

static void expect(const char* line) {
  if (!expected) {
    char path[4200];
    snprintf(path, sizeof path, "%s/expected-refusals", dir);
    expected = fopen(path, "w");
    if (!expected) exit(2);
  }
  fprintf(expected, "%s\n", line);
}

static void finish_expected(void) {
  if (expected) fclose(expected);
  expected = NULL;
}

static int scratch = -1, shm = -1;
static char scratch_name[4200], shm_name[64];
static char* shm_map;

static void quick_bye(void) {
  printf("at_quick_exit handler ran\n");
  fflush(stdout);
}

static void hold_streams(int release) {
  char path[4200];
  snprintf(path, sizeof path, "%s/redirected.txt", dir);
  int saved_out = dup(1), saved_in = dup(0);
  fflush(stdout);
  if (!freopen(path, "w", stdout)) exit(2);
  close(0);
  /* A copy of a carried file below 900: a number the application chose itself. */
  char copied[4200];
  snprintf(copied, sizeof copied, "%s/copied.txt", dir);
  int file = open(copied, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (file < 0 || dup2(file, 850) != 850) exit(2);
  close(file);
  if (release) {
    fflush(stdout);
    dup2(saved_out, 1);
    dup2(saved_in, 0);
    close(850);
  } else {
    char copy_line[4400];
    snprintf(copy_line, sizeof copy_line,
             "descriptor 850 is a copy (dup2) of the application's file %s, which is not carried", copied);
    expect(copy_line);
    snprintf(copy_line, sizeof copy_line,
             "descriptor %d is a copy of descriptor 1 (standard output), which is not carried", saved_out);
    expect(copy_line);
    char line[4400];
    snprintf(line, sizeof line,
             "descriptor 1 (standard output) was redirected by the application to %s, which is not carried", path);
    expect("descriptor 0 (standard input) was closed by the application, which is not carried");
    expect(line);
  }
  if (release) close(saved_out); /* kept open otherwise: refused */
  close(saved_in);
}

static void hold_fds(int release) {
  FILE* p = popen("exec true", "r");
  FILE* t = tmpfile();
  DIR* d = opendir(dir);
  char scratch[4200];
  snprintf(scratch, sizeof scratch, "%s/scratch.bin", dir);
  int s = open(scratch, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (!p || !t || !d || s < 0 || unlink(scratch) != 0) exit(2);
  if (release) {
    pclose(p);
    fclose(t);
    closedir(d);
    close(s);
    return;
  }
  char line[4400];
  snprintf(line, sizeof line, "descriptor %d is a pipe to a command started by popen, which is not carried", fileno(p));
  expect(line);
  snprintf(line, sizeof line, "descriptor %d is a temporary file from tmpfile, which is not carried", fileno(t));
  expect(line);
  snprintf(line, sizeof line, "descriptor %d is a directory %s, which is not carried", dirfd(d), dir);
  expect(line);
  snprintf(line, sizeof line, "descriptor %d is the application's file %s, deleted while open, which is not carried", s,
           scratch);
  expect(line);
}

static void hold_timer(int release) {
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_NONE;
  timer_t id;
  if (timer_create(CLOCK_MONOTONIC, &ev, &id) != 0) exit(2);
  if (release)
    timer_delete(id);
  else {
    char line[128];
    snprintf(line, sizeof line, "POSIX timer %ld (timer_create) is not carried", (long)(intptr_t)id);
    expect(line);
  }
}

static void hold_dlmopen(int release) {
  void* h = dlmopen(LM_ID_NEWLM, "libm.so.6", RTLD_NOW);
  if (!h) {
    fprintf(stderr, "dlmopen: %s\n", dlerror());
    exit(2);
  }
  if (release) {
    dlclose(h);
    return;
  }
  struct link_map* map = NULL;
  Lmid_t lmid = 0;
  if (dlinfo(h, RTLD_DI_LINKMAP, &map) != 0 || dlinfo(h, RTLD_DI_LMID, &lmid) != 0) exit(2);
  char line[4400];
  snprintf(line, sizeof line, "library %s was loaded with dlmopen into link-map namespace %ld, which is not carried",
           map->l_name, (long)lmid);
  expect(line);
}

static void hold_bounds(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) exit(2);
  rl.rlim_cur = rl.rlim_max; /* room above 900 for all of them */
  if (setrlimit(RLIMIT_NOFILE, &rl) != 0) exit(2);
  for (int f = 0; f < 129; ++f) {
    char path[4200];
    snprintf(path, sizeof path, "%s/many-%d", dir, f);
    if (open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) < 0) exit(2);
  }
  rl.rlim_cur = 512;
  if (setrlimit(RLIMIT_NOFILE, &rl) != 0) exit(2);
  char path[4200];
  snprintf(path, sizeof path, "%s/low", dir);
  FILE* low = fopen(path, "w");
  if (!low) exit(2);
  /* Both left out while they are open: the lowest descriptor named, the 129th file counted. */
  char real_path[4200], line[4400];
  if (!realpath(path, real_path)) exit(2);
  snprintf(line, sizeof line,
           "the application has more than 128 files open, which is not carried (descriptor %d %s, and 1 more)",
           fileno(low), real_path);
  expect(line);
}

static void step(const char* mode, int i) {
  if (i != 2) return;
  int released = strcmp(mode, "released") == 0;
  if (strcmp(mode, "carried") == 0) {
    snprintf(scratch_name, sizeof scratch_name, "%s/scratch-XXXXXX", dir);
    scratch = mkstemp(scratch_name);
    if (scratch < 0 || at_quick_exit(quick_bye) != 0) exit(2);
    printf("mkstemp's descriptor is %s\n", scratch >= 900 ? "in the carried range" : "below 900");
    struct stat st;
    if (stat(dir, &st) != 0) exit(2);
    snprintf(shm_name, sizeof shm_name, "/yk-glibc-paths-%lu", (unsigned long)st.st_ino);
    shm = shm_open(shm_name, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (shm < 0 || ftruncate(shm, 4096) != 0) exit(2);
    shm_map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, shm, 0);
    if (shm_map == MAP_FAILED) exit(2);
    printf("shm_open's descriptor is %s\n", shm >= 900 ? "in the carried range" : "below 900");
  }
  if (released || strcmp(mode, "streams") == 0) hold_streams(released);
  if (released || strcmp(mode, "fds") == 0) hold_fds(released);
  if (released || strcmp(mode, "timer") == 0) hold_timer(released);
  if (released || strcmp(mode, "dlmopen") == 0) hold_dlmopen(released);
  if (strcmp(mode, "bounds") == 0) hold_bounds();
  finish_expected();
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const char* mode = argv[1];
  dir = argv[2];
  int n = atoi(argv[3]);
  for (int i = 1; i <= n; ++i) {
    if (yk_memtest_boundary) yk_memtest_boundary();
    step(mode, i);
    if (scratch >= 0) {
      char line[64];
      int len = snprintf(line, sizeof line, "iteration %d\n", i);
      if (write(scratch, line, (size_t)len) != len) printf("write to the mkstemp file failed at iteration %d\n", i);
      shm_map[i] = (char)('a' + i);
      char upper = (char)('A' + i);
      if (pwrite(shm, &upper, 1, 64 + i) != 1) printf("write to the shared memory failed at iteration %d\n", i);
    }
    printf("iteration %d\n", i);
  }
  if (scratch >= 0) {
    char back[4096];
    ssize_t len = pread(scratch, back, sizeof back - 1, 0);
    back[len > 0 ? len : 0] = '\0';
    printf("the mkstemp file holds:\n%s", back);
    printf("the shared memory holds: %.*s %.*s\n", n, shm_map + 1, n, shm_map + 65);
    unlink(scratch_name);
    shm_unlink(shm_name);
    fflush(stdout);
    quick_exit(0);
  }
  return 0;
}
