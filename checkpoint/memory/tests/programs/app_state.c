/* State an application owns besides its heap (C): its own mappings and libc process state.
 * Usage: app_state iterations DIR. Before the loop (the restore point's "before" in the late tests):
 * chdir(DIR), an input file and a shared file created, an atexit handler. In the loop, one
 * boundary at the start of each iteration; from iteration 2 on: anonymous private mappings
 * (written, partly unmapped, grown and moved with mremap, a PROT_NONE guard page), a private file
 * mapping written to (the file must not change), a private mapping of 4 pages of a file of 1 page
 * and 100 bytes (its last 2 pages are beyond the end of the file: reading them is SIGBUS, which
 * every iteration checks, also after a restart), a shared file mapping written to (the file is the
 * contents), an anonymous shared mapping, a mapping at a fixed address outside the region
 * (MAP_FIXED_NOREPLACE), one fresh mmap per iteration (its address is printed: the restarted
 * process must hand out the same ones), a SIGALRM handler with an ITIMER_REAL interval timer, a
 * blocked SIGUSR1 raised at iteration 5 (it waits, and is taken when unblocked at the end), a
 * blocked real-time signal queued with values at iteration 5, three times to the thread and twice
 * to the process, and a blocked SIGUSR2 with a value queued to the process and another to the
 * thread (each taken once per instance, in order, with its value, when unblocked at the end; from
 * iteration 5 on every iteration prints which of the three signals wait in the thread's queue and
 * which in the process's, from /proc/thread-self/status), an
 * on_exit handler, an fmemopen stream written every iteration and flushed with fflush(NULL) (its
 * buffer is read back), thread-specific data keys and values, the core size and open files' soft
 * limits, umask, a sub-directory as working directory (files are
 * created relative to it), setlocale, strtok across iterations, errno across the boundary. From
 * iteration 4 on a tick is held pending across each boundary (see hold_a_tick). Its environment:
 * YK_STATE_GONE set before the loop, YK_STATE_SET set and YK_STATE_GONE unset at iteration 2;
 * every iteration prints them and YK_TEST_TAG (which the restarts get with another value), and
 * optind and optarg after a getopt pass over an argument list of its own at iteration 2.
 * Environment: YK_STATE_SQUAT=1 maps the fixed address before the loop (a restore must refuse);
 * YK_STATE_DELETED=1 maps a file shared and deletes it (a checkpoint must refuse). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

extern int yk_memtest_boundary(void) __attribute__((weak));

#define PAGE 4096UL
#define FIXED_ADDR ((void*)0x200000000000UL)

static volatile sig_atomic_t ticks, usr1_taken;
static volatile int queued_values[16], queued_taken, usr2_values[4], usr2_taken;
static char sentence[] = "the quick brown fox jumps over the lazy dog and keeps on running far away";
static unsigned char *anon, *grown, *guarded, *priv, *past_end, *shared, *anon_shared, *fixed, *fresh;
static size_t grown_len, fresh_len;
static FILE* memstream;
static char memstream_buf[256];

static void tick(int sig) {
  (void)sig;
  ++ticks;
}

static void take_usr1(int sig) {
  (void)sig;
  ++usr1_taken;
}

static void take_queued(int sig, siginfo_t* info, void* context) {
  (void)context;
  if (sig == SIGUSR2) {
    if (usr2_taken < 4) usr2_values[usr2_taken++] = info->si_value.sival_int;
  } else if (queued_taken < 16) {
    queued_values[queued_taken++] = info->si_value.sival_int;
  }
}

static void bye_atexit(void) { printf("atexit handler ran\n"); }
static void bye_on_exit(int code, void* arg) { printf("on_exit handler ran: code %d, %s\n", code, (const char*)arg); }

static void* map(size_t len, int prot, int flags, int fd) {
  void* p = mmap(NULL, len, prot, flags, fd, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  return p;
}

static int open_or_die(const char* path, int flags) {
  int fd = open(path, flags, 0644);
  if (fd < 0) {
    perror(path);
    exit(2);
  }
  return fd;
}

static void write_file(const char* path, size_t len, unsigned seed) {
  int fd = open_or_die(path, O_WRONLY | O_CREAT | O_TRUNC);
  for (size_t i = 0; i < len; ++i) {
    unsigned char c = (unsigned char)(i * seed + 7);
    if (write(fd, &c, 1) != 1) exit(2);
  }
  close(fd);
}

static uint64_t sum(const unsigned char* p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

/* The permissions of the page at p in /proc/self/maps ("---p" for a guard page). */
static void perms_of(const void* p, char out[5]) {
  strcpy(out, "????");
  FILE* f = fopen("/proc/self/maps", "r");
  if (!f) return;
  char line[512];
  uintptr_t a = (uintptr_t)p;
  while (fgets(line, sizeof line, f)) {
    uintptr_t lo, hi;
    char perms[5];
    if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 && a >= lo && a < hi) {
      memcpy(out, perms, 5);
      break;
    }
  }
  fclose(f);
}

static void setup_mappings(void) {
  anon = map(16 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
  for (size_t i = 0; i < 16 * PAGE; ++i) anon[i] = (unsigned char)(i % 251);
  if (munmap(anon + 6 * PAGE, 2 * PAGE) != 0) exit(3); /* a hole: the entry is split */
  guarded = anon + 15 * PAGE;
  if (mprotect(guarded, PAGE, PROT_NONE) != 0) exit(3); /* written first, then a guard page */
  grown_len = 2 * PAGE;
  grown = map(grown_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
  memset(grown, 'g', grown_len);
  int in = open_or_die("input.bin", O_RDONLY);
  priv = map(4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, in);
  close(in);
  write_file("short.bin", PAGE + 100, 5);
  int short_file = open_or_die("short.bin", O_RDONLY);
  past_end = map(4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, short_file);
  close(short_file);
  int sh = open_or_die("shared.bin", O_RDWR);
  shared = map(4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, sh);
  close(sh);
  anon_shared = map(2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1);
  fixed = mmap(FIXED_ADDR, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (fixed != FIXED_ADDR) {
    perror("mmap at the fixed address");
    exit(2);
  }
}

static void setup_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = tick;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGALRM, &sa, NULL) != 0) exit(4);
  struct itimerval t = {{0, 2000}, {0, 2000}};
  if (setitimer(ITIMER_REAL, &t, NULL) != 0) exit(4);
  sa.sa_handler = take_usr1;
  if (sigaction(SIGUSR1, &sa, NULL) != 0) exit(4);
  sa.sa_sigaction = take_queued;
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  if (sigaction(SIGRTMIN + 1, &sa, NULL) != 0 || sigaction(SIGUSR2, &sa, NULL) != 0) exit(4);
}

static void add_queued_signals(sigset_t* s) {
  sigaddset(s, SIGUSR1);
  sigaddset(s, SIGUSR2);
  sigaddset(s, SIGRTMIN + 1);
}

/* Three instances in the thread's queue, two in the process's (taken after the thread's). */
static void queue_signals(void) {
  static const int to_thread[] = {7, 11, 13}, to_process[] = {17, 19};
  for (int i = 0; i < 3; ++i)
    if (pthread_sigqueue(pthread_self(), SIGRTMIN + 1, (union sigval){.sival_int = to_thread[i]}) != 0) exit(4);
  for (int i = 0; i < 2; ++i)
    if (sigqueue(getpid(), SIGRTMIN + 1, (union sigval){.sival_int = to_process[i]}) != 0) exit(4);
  if (sigqueue(getpid(), SIGUSR2, (union sigval){.sival_int = 23}) != 0) exit(4);
  /* A standard signal waits once per queue: this one too, in the thread's. */
  if (pthread_sigqueue(pthread_self(), SIGUSR2, (union sigval){.sival_int = 29}) != 0) exit(4);
}

/* Which of SIGUSR1, SIGUSR2, SIGRTMIN+1 wait in the thread's queue and in the process's ("u1 u2 rt"). */
static void print_queues(int iteration) {
  FILE* f = fopen("/proc/thread-self/status", "r");
  if (!f) exit(4);
  char line[256];
  unsigned long long thread = 0, process = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "SigPnd:", 7) == 0) thread = strtoull(line + 7, NULL, 16);
    if (strncmp(line, "ShdPnd:", 7) == 0) process = strtoull(line + 7, NULL, 16);
  }
  fclose(f);
  const int sigs[] = {SIGUSR1, SIGUSR2, SIGRTMIN + 1};
  printf("%d waiting in the thread's queue:", iteration);
  for (int k = 0; k < 3; ++k) printf(" %d", (int)((thread >> (sigs[k] - 1)) & 1));
  printf(", in the process's:");
  for (int k = 0; k < 3; ++k) printf(" %d", (int)((process >> (sigs[k] - 1)) & 1));
  printf("\n");
}

/* A periodic ITIMER_REAL whose signal is pending reads as disarmed (getitimer's it_value is 0 until
 * the signal is taken, when the kernel re-arms it): hold a tick pending across the boundary, so a
 * checkpoint there sees exactly that and a restart must still re-arm the timer. */
static void hold_a_tick(int i) {
  if (i < 4) return;
  sigset_t alarm_only, pending;
  sigemptyset(&alarm_only);
  sigaddset(&alarm_only, SIGALRM);
  sigprocmask(SIG_BLOCK, &alarm_only, NULL);
  for (int waited = 0; waited < 10000; ++waited) {
    sigpending(&pending);
    if (sigismember(&pending, SIGALRM)) return;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
}

static void release_ticks(int i) {
  if (i < 4) return;
  sigset_t alarm_only;
  sigemptyset(&alarm_only);
  sigaddset(&alarm_only, SIGALRM);
  sigprocmask(SIG_UNBLOCK, &alarm_only, NULL);
}

static void step(int i) {
  if (i == 2) setup_mappings();
  if (i == 3) {
    setup_signals();
    sigset_t s;
    sigemptyset(&s);
    add_queued_signals(&s);
    sigprocmask(SIG_BLOCK, &s, NULL);
    on_exit(bye_on_exit, sentence + 4); /* "quick brown ...": an argument in .data */
    memstream = fmemopen(memstream_buf, sizeof memstream_buf, "w");
    if (!memstream) exit(4);
  }
  if (i == 4) {
    mkdir("sub", 0777);
    if (chdir("sub") != 0) exit(5);
    umask(027);
  }
  if (i == 5) {
    setlocale(LC_NUMERIC, "C.UTF-8");
    raise(SIGUSR1); /* blocked: it waits */
    queue_signals();
  }
  if (i == 6) { /* grow a mapping: moved to the lowest free range */
    unsigned char* p = mremap(grown, grown_len, 40 * PAGE, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) exit(6);
    grown = p;
    grown_len = 40 * PAGE;
  }
  if (i == 8) { /* shrink it again */
    if (mremap(grown, grown_len, 24 * PAGE, 0) != grown) exit(6);
    grown_len = 24 * PAGE;
  }
  if (i >= 2) {
    anon[(size_t)i * 997 % (6 * PAGE)] ^= (unsigned char)i;
    grown[(size_t)i * 331 % grown_len] += (unsigned char)i;
    priv[(size_t)i * 13] = (unsigned char)('A' + i % 26);
    past_end[PAGE + 100 + (size_t)i] = (unsigned char)i; /* past the file's end, in its last page */
    snprintf((char*)shared + (size_t)i * 64, 64, "iteration %d was here\n", i);
    anon_shared[i] = (unsigned char)i;
    fixed[PAGE + i] = (unsigned char)(i * 3);
    if (fresh) munmap(fresh, fresh_len);
    fresh_len = (size_t)(i % 5 + 1) * PAGE;
    fresh = map(fresh_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
    fresh[0] = (unsigned char)i;
  }
  if (memstream) {
    fprintf(memstream, "[%d]", i);
    fflush(NULL); /* every stream: also the memory stream, whose buffer it writes */
  }
}

/* Thread-specific data: a key made before the loop and given a value at iteration 3, one made at
 * iteration 2, one made at 2 and deleted at 4 (its number is free again), and one made at 9, which
 * must get the same number after a restart. Every iteration prints the numbers and values. */
static pthread_key_t key_early, key_late, key_gone, key_next;

static char* text(const char* what, int i) {
  char* value = malloc(48);
  snprintf(value, 48, "%s at %d", what, i);
  return value;
}

static const char* value_of(pthread_key_t key) {
  const char* v = pthread_getspecific(key);
  return v ? v : "(null)";
}

/* Resource limits: at iteration 3 the core size's soft limit goes to 4096 bytes (setrlimit) and the
 * open files' soft limit to 1000 (prlimit; the layer keeps the application's files above 900);
 * every iteration prints both soft limits. */
static void step_limits(int i) {
  struct rlimit limit;
  if (i == 3) {
    getrlimit(RLIMIT_CORE, &limit);
    limit.rlim_cur = limit.rlim_max == RLIM_INFINITY || limit.rlim_max >= 4096 ? 4096 : limit.rlim_max;
    setrlimit(RLIMIT_CORE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = limit.rlim_max >= 1000 ? 1000 : limit.rlim_max;
    prlimit(0, RLIMIT_NOFILE, &limit, NULL);
  }
  struct rlimit core, files;
  getrlimit(RLIMIT_CORE, &core);
  getrlimit(RLIMIT_NOFILE, &files);
  if (i >= 2) printf("%d limits core %lld files %lld\n", i, (long long)core.rlim_cur, (long long)files.rlim_cur);
}

static void step_thread_keys(int i) {
  if (i == 2) {
    pthread_key_create(&key_late, free);
    pthread_key_create(&key_gone, NULL);
    pthread_setspecific(key_late, text("late key set", i));
  }
  if (i == 3) pthread_setspecific(key_early, text("early key set", i));
  if (i == 4) pthread_key_delete(key_gone);
  if (i == 9) {
    pthread_key_create(&key_next, NULL);
    pthread_setspecific(key_next, text("next key set", i));
  }
  if (i >= 2)
    printf("%d keys %u %u %u: %s, %s, %s\n", i, (unsigned)key_early, (unsigned)key_late, (unsigned)key_next,
           value_of(key_early), value_of(key_late), i >= 9 ? value_of(key_next) : "-");
}

static sigjmp_buf probe_jump;
static void leave_probe(int sig) {
  (void)sig;
  siglongjmp(probe_jump, 1);
}

/* What reading *p does: a page of a file mapping past the file's end raises SIGBUS. */
static const char* read_outcome(const volatile unsigned char* p) {
  struct sigaction leave, old;
  memset(&leave, 0, sizeof leave);
  leave.sa_handler = leave_probe;
  sigaction(SIGBUS, &leave, &old);
  const char* outcome = "SIGBUS";
  if (sigsetjmp(probe_jump, 1) == 0) {
    (void)*p;
    outcome = "readable";
  }
  sigaction(SIGBUS, &old, NULL);
  return outcome;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20;
  const char* dir = argc > 2 ? argv[2] : ".";
  printf("start\n");
  fflush(stdout);
  if (chdir(dir) != 0) return 2;
  write_file("input.bin", 4 * PAGE, 3);
  if (access("shared.bin", F_OK) != 0) write_file("shared.bin", 4 * PAGE, 0);
  atexit(bye_atexit);
  pthread_key_create(&key_early, NULL);
  if (getenv("YK_STATE_SQUAT"))
    mmap(FIXED_ADDR, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  setenv("YK_STATE_GONE", "set before the loop", 1);
  char* token = strtok(sentence, " ");
  for (int i = 1; i <= n; ++i) {
    hold_a_tick(i);
    errno = 1000 + i;
    if (yk_memtest_boundary) yk_memtest_boundary();
    int seen_errno = errno;
    release_ticks(i);
    step(i);
    if (i == 2 && getenv("YK_STATE_DELETED")) {
      int fd = open_or_die("scratch.bin", O_RDWR | O_CREAT);
      if (ftruncate(fd, PAGE) != 0) return 2;
      map(PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
      close(fd);
      unlink("scratch.bin");
    }
    char name[32];
    snprintf(name, sizeof name, "f%d.txt", i);
    FILE* f = fopen(name, "w");
    if (!f) return 7;
    fprintf(f, "%d %.3f\n", i, i / 3.0);
    fclose(f);
    struct stat st;
    stat(name, &st);
    uint64_t h = 0;
    if (i >= 2) {
      h = sum(anon, 6 * PAGE) ^ sum(anon + 8 * PAGE, 7 * PAGE) ^ sum(grown, grown_len) ^ sum(priv, 4 * PAGE) ^
          sum(past_end, 2 * PAGE) ^ sum(shared, 4 * PAGE) ^ sum(anon_shared, 2 * PAGE) ^ sum(fixed, 2 * PAGE);
    }
    step_thread_keys(i);
    step_limits(i);
    if (i >= 2)
      printf("%d past the file's end: %s, %s\n", i, read_outcome(past_end + 2 * PAGE),
             read_outcome(past_end + 3 * PAGE));
    if (i == 2) {
      static char* options[] = {"app_state", "-x", "3", "-q", "input.dat", NULL};
      while (getopt(5, options, "x:q") != -1) {
      }
      setenv("YK_STATE_SET", "set at iteration 2", 1);
      unsetenv("YK_STATE_GONE");
    }
    const char *set = getenv("YK_STATE_SET"), *gone = getenv("YK_STATE_GONE"), *tag = getenv("YK_TEST_TAG");
    printf("%d env %s / %s / %s, getopt optind %d optarg %s\n", i, set ? set : "(unset)", gone ? gone : "(unset)",
           tag ? tag : "(unset)", optind, optarg ? optarg : "(none)");
    printf("%d errno %d token %s mode %o locale %s maps %016llx fresh %p\n", i, seen_errno, token ? token : "-",
           (unsigned)(st.st_mode & 0777), setlocale(LC_NUMERIC, NULL), (unsigned long long)h, (void*)fresh);
    if (memstream) printf("%d memory stream: %s\n", i, memstream_buf);
    if (i >= 5) print_queues(i);
    token = strtok(NULL, " ");
  }
  /* The private file mapping was written; its file must not have been. */
  int in = open_or_die("../input.bin", O_RDONLY);
  unsigned char file[4 * PAGE];
  if (read(in, file, sizeof file) != (ssize_t)sizeof file) return 8;
  close(in);
  int unchanged = 1;
  for (size_t i = 0; i < sizeof file; ++i) unchanged &= file[i] == (unsigned char)(i * 3 + 7);
  printf("input.bin unchanged: %d\n", unchanged);
  char perms[5];
  perms_of(guarded, perms);
  printf("guard page %s\n", perms);
  sigset_t now;
  sigprocmask(SIG_BLOCK, NULL, &now);
  printf("SIGUSR1 blocked: %d\n", sigismember(&now, SIGUSR1));
  if (n >= 5) {
    sigset_t usr1;
    sigemptyset(&usr1);
    add_queued_signals(&usr1);
    sigprocmask(SIG_UNBLOCK, &usr1, NULL);
    printf("SIGUSR1 taken when unblocked: %d\n", (int)usr1_taken);
    printf("SIGUSR2 taken %d times, values", (int)usr2_taken);
    for (int i = 0; i < usr2_taken; ++i) printf(" %d", usr2_values[i]);
    printf("; SIGRTMIN+1 taken %d times, values", (int)queued_taken);
    for (int i = 0; i < queued_taken; ++i) printf(" %d", queued_values[i]);
    printf("\n");
  }
  /* The timer keeps ticking: wait for two more ticks (bounded only to report a dead timer). */
  sig_atomic_t t0 = ticks;
  for (int waited = 0; ticks < t0 + 2 && waited < 10000; ++waited) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  printf("timer %s\n", ticks >= t0 + 2 ? "alive" : "dead");
  return 0;
}
