/* Holds, at its pause point, state the memory layer cannot carry (argv[1] chooses: socket, pipe,
 * fifo, thread (blocked in sigwait, not a wait a thread is carried from), dlopen_tls (a plugin whose thread-local variable glibc allocated inside a library
 * call, refusal_plugin.c), shm, several; kernel_objects: an eventfd, an epoll instance, a timerfd, a
 * memfd and a directory opened with open(O_DIRECTORY); thread_exit: a thread that ended with
 * pthread_exit and was joined (not named) while the sigwait one runs; socket_dup: a socket and its dup (both named);
 * glibc_paths: descriptors glibc opens itself (a popen pipe, a tmpfile, an opendir stream), a POSIX
 * timer, a library loaded with dlmopen, standard output redirected with dup2 and the copy of it
 * kept to put it back (seven lines); locale: a locale object from newlocale in use by the thread
 * (uselocale) and its duplocale copy (three lines), while a newlocale("") object of only libc's built-in C
 * data is not named; constructor_thread: a thread the executable's
 * constructor started before main, still running; park_signal: a handler of the application's for
 * the signal the layer stops its threads with, while a thread runs; thread_plugin_tls: a library
 * with thread-local storage loaded after start, while a thread runs; resolver: the resolver's datagram socket kept open
 * by RES_STAYOPEN after one query to a name server the program answers itself (a thread that ends
 * before the pause point) and the changed settings; raw_syscalls: a socket, a pipe, an eventfd and a
 * memfd made by syscall() with their numbers (glibc's wrappers bypassed); newer_kernel_objects: a pidfd,
 * a fanotify group and a message queue made by glibc's wrappers, an io_uring, a userfaultfd and a
 * perf event made by syscall(), and an io_uring made by an inline system call (no interposer sees
 * it: found in /proc/self/fd at the checkpoint); sbrk: 4 KiB taken with sbrk (never given back:
 * glibc's heap may have grown above it meanwhile); omp_thread_key: a thread-specific data key given a
 * value on every thread of an OpenMP team, so also on a pool thread (idle at the pause point);
 * "released" creates all of them and releases them again before the pause point; "omp_region" reaches its pause point inside an OpenMP parallel region,
 * the MPI calls made by the master thread). A checkpoint asked for there must be refused with one line per problem
 * and the job must go on; refusals.sh checks this. Rank 0 writes the lines it expects into
 * expected-refusals in the working directory, computed from what it holds (descriptor numbers,
 * thread id, paths). Every rank holds the same kinds of state; the front end names the lowest
 * failing rank, 0. The output (stdout) does not depend on the mode's state nor on the pause. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <locale.h>
#include <link.h>
#include <mpi.h>
#include <netinet/in.h>
#include <resolv.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <linux/io_uring.h>
#include <linux/perf_event.h>
#include <linux/userfaultfd.h>
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/pidfd.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "tests/apps/pause_point.h"

/* The memory layer's library bracket (checkpoint/memory/memory.h), in the shim. */
extern void yk_mem_enter_library(void) __attribute__((weak));
extern void yk_mem_leave_library(void) __attribute__((weak));

static FILE* expected; /* rank 0 only */

static void expect(const char* line) {
  if (expected) fprintf(expected, "%s\n", line);
}

/* kind with its article: "a socket", "an eventfd" */
static void expect_fd(int fd, const char* kind) {
  char line[4400];
  snprintf(line, sizeof line, "descriptor %d is %s, which is not carried", fd, kind);
  expect(line);
}

/* Ends with pthread_exit before the pause point (joined): no longer running, so not named. */
void* refusal_exiting_worker(void* arg) {
  (void)arg;
  pthread_exit(NULL);
}

static pthread_mutex_t worker_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t worker_cond = PTHREAD_COND_INITIALIZER;
static int worker_tid;

/* Exported (the executable is linked with -rdynamic), so the refusal names it. It waits in
 * sigwait, a system call that is not one of the waits a thread is carried from (a signal would cut
 * it short: it is never sent one, only named). SIGUSR2 ends it. */
void* refusal_worker(void* arg) {
  (void)arg;
  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &usr2, NULL);
  pthread_mutex_lock(&worker_lock);
  worker_tid = gettid();
  pthread_cond_broadcast(&worker_cond);
  pthread_mutex_unlock(&worker_lock);
  int sig = 0;
  sigwait(&usr2, &sig);
  return NULL;
}

/* park_signal and thread_plugin_tls: a thread that could be carried (it waits on a condition
 * variable), so that what is named is the other problem of the mode. */
static int idle_stop;
static pthread_t idle_thread;
static void* refusal_idle_worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&worker_lock);
  while (!idle_stop) pthread_cond_wait(&worker_cond, &worker_lock);
  pthread_mutex_unlock(&worker_lock);
  return NULL;
}
static void refusal_ignore(int sig) { (void)sig; }

/* Started by the executable's constructor (before main) in mode constructor_thread: application
 * code like any thread main starts. Exported, so the refusal names it. */
static pthread_mutex_t early_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t early_cond = PTHREAD_COND_INITIALIZER;
static int early_tid, early_stop, early_started;
static pthread_t early_thread;

void* refusal_constructor_worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&early_lock);
  early_tid = gettid();
  pthread_cond_broadcast(&early_cond);
  while (!early_stop) pthread_cond_wait(&early_cond, &early_lock);
  pthread_mutex_unlock(&early_lock);
  return NULL;
}

/* glibc passes argc and argv to the executable's constructors. */
__attribute__((constructor)) static void start_early_thread(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "constructor_thread") == 0 &&
      pthread_create(&early_thread, NULL, refusal_constructor_worker, NULL) == 0)
    early_started = 1;
}

/* The name server of mode resolver: answers one query with an empty NOERROR response. */
static void* refusal_name_server(void* arg) {
  int server = *(int*)arg;
  unsigned char packet[512];
  struct sockaddr_in peer;
  socklen_t peer_len = sizeof peer;
  ssize_t n = recvfrom(server, packet, sizeof packet, 0, (struct sockaddr*)&peer, &peer_len);
  if (n < 12) abort();
  packet[2] |= 0x80; /* QR: a response */
  packet[3] = 0x80;  /* RA, rcode 0 */
  if (sendto(server, packet, (size_t)n, 0, (struct sockaddr*)&peer, peer_len) != n) abort();
  return NULL;
}

static unsigned long resolver_options;
static int resolver_retry;

/* One query through the resolver with RES_STAYOPEN, answered by refusal_name_server on 127.0.0.1:
 * libc keeps its socket open afterwards. Returns that descriptor. */
static int resolver_socket(void) {
  int server = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in at;
  memset(&at, 0, sizeof at);
  at.sin_family = AF_INET;
  at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t at_len = sizeof at;
  if (server < 0 || bind(server, (struct sockaddr*)&at, sizeof at) != 0 ||
      getsockname(server, (struct sockaddr*)&at, &at_len) != 0)
    abort();
  pthread_t responder;
  if (res_init() != 0 || pthread_create(&responder, NULL, refusal_name_server, &server) != 0) abort();
  resolver_options = _res.options;
  resolver_retry = _res.retry;
  _res.nscount = 1;
  _res.nsaddr_list[0] = at;
  _res.options |= RES_STAYOPEN | RES_NORELOAD; /* NORELOAD: libc keeps this server even if resolv.conf changes */
  _res.retry = 1;
  unsigned char answer[512];
  res_query("yadokari.test", C_IN, T_A, answer, sizeof answer); /* no data: -1, but it was answered */
  pthread_join(responder, NULL);
  close(server);
  for (int i = 0; i < _res._u._ext.nscount && i < MAXNS; ++i)
    if (_res._u._ext.nssocks[i] >= 0) return _res._u._ext.nssocks[i];
  abort();
}

struct Held {
  int sock, sock_dup, pipe_fds[2], fifo, shm_id;
  int kernel_fds[4], dir, raw_fds[5], newer_fds[7];
  void* shm_at;
  void* plugin;
  FILE *popened, *temporary;
  DIR* dir_stream;
  timer_t timer;
  void* namespaced;
  locale_t own_locale, copied_locale, builtin_locale;
  int saved_stdout;
  pthread_t thread;
  int have_thread;
  pthread_key_t omp_key;
};

/* io_uring_setup as liburing makes it: a system call instruction, no libc in between. */
static int ring_past_libc(void) {
  struct io_uring_params params;
  memset(&params, 0, sizeof params);
  long ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"((long)SYS_io_uring_setup), "D"(4L), "S"(&params)
                   : "rcx", "r11", "memory");
  return (int)ret;
}

static void hold_newer_kernel_objects(struct Held* h) {
  struct io_uring_params params;
  memset(&params, 0, sizeof params);
  struct perf_event_attr counter;
  memset(&counter, 0, sizeof counter);
  counter.size = sizeof counter;
  counter.type = PERF_TYPE_SOFTWARE;
  counter.config = PERF_COUNT_SW_TASK_CLOCK;
  char queue[64];
  snprintf(queue, sizeof queue, "/yk-refusals-%d", (int)getpid());
  h->newer_fds[0] = pidfd_open(getpid(), 0);
  h->newer_fds[1] = fanotify_init(FAN_CLASS_NOTIF, O_RDONLY);
  h->newer_fds[2] = (int)mq_open(queue, O_CREAT | O_RDWR, 0600, NULL);
  mq_unlink(queue); /* nothing left behind; the descriptor stays */
  h->newer_fds[3] = (int)syscall(SYS_io_uring_setup, 4, &params);
  h->newer_fds[4] = (int)syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
  h->newer_fds[5] = (int)syscall(SYS_perf_event_open, &counter, 0, -1, -1, 0);
  h->newer_fds[6] = ring_past_libc();
  for (int i = 0; i < 7; ++i)
    if (h->newer_fds[i] < 0) abort();
  expect_fd(h->newer_fds[0], "a pidfd");
  expect_fd(h->newer_fds[1], "a fanotify group");
  expect_fd(h->newer_fds[2], "a POSIX message queue");
  expect_fd(h->newer_fds[3], "an io_uring instance");
  expect_fd(h->newer_fds[4], "a userfaultfd");
  expect_fd(h->newer_fds[5], "a perf event");
  char line[200];
  snprintf(line, sizeof line,
           "descriptor %d is an io_uring instance, which is not carried (its writes are not watched)", h->newer_fds[6]);
  expect(line);
}

static void hold(const char* what, struct Held* h, int rank) {
  int all = strcmp(what, "several") == 0 || strcmp(what, "released") == 0;
  if (all || strcmp(what, "socket") == 0) {
    h->sock = socket(AF_UNIX, SOCK_STREAM, 0);
    expect_fd(h->sock, "a socket");
  }
  if (all || strcmp(what, "pipe") == 0) {
    if (pipe(h->pipe_fds) != 0) abort();
    expect_fd(h->pipe_fds[0], "a pipe");
    expect_fd(h->pipe_fds[1], "a pipe");
  }
  if (strcmp(what, "fifo") == 0) {
    char cwd[2048], path[4096], kind[4200];
    if (!getcwd(cwd, sizeof cwd)) abort();
    snprintf(path, sizeof path, "%s/fifo-%d", cwd, rank);
    unlink(path);
    if (mkfifo(path, 0600) != 0) abort();
    h->fifo = open(path, O_RDWR); /* read-write: does not wait for a peer */
    snprintf(kind, sizeof kind, "a FIFO %s", path);
    expect_fd(h->fifo, kind);
  }
  if (strcmp(what, "socket_dup") == 0) {
    h->sock = socket(AF_UNIX, SOCK_STREAM, 0);
    h->sock_dup = dup(h->sock);
    if (h->sock < 0 || h->sock_dup < 0) abort();
    expect_fd(h->sock, "a socket");
    expect_fd(h->sock_dup, "a socket");
  }
  if (strcmp(what, "raw_syscalls") == 0) {
    int pair[2];
    h->raw_fds[0] = (int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0);
    if (syscall(SYS_pipe2, pair, 0) != 0) abort();
    h->raw_fds[1] = pair[0];
    h->raw_fds[2] = pair[1];
    h->raw_fds[3] = (int)syscall(SYS_eventfd2, 0, 0);
    h->raw_fds[4] = (int)syscall(SYS_memfd_create, "raw", 0);
    for (int i = 0; i < 5; ++i)
      if (h->raw_fds[i] < 0) abort();
    expect_fd(h->raw_fds[0], "a socket");
    expect_fd(h->raw_fds[1], "a pipe");
    expect_fd(h->raw_fds[2], "a pipe");
    expect_fd(h->raw_fds[3], "an eventfd");
    expect_fd(h->raw_fds[4], "a memfd");
  }
  if (all || strcmp(what, "newer_kernel_objects") == 0) hold_newer_kernel_objects(h);
  if (all || strcmp(what, "kernel_objects") == 0) {
    h->kernel_fds[0] = eventfd(0, 0);
    h->kernel_fds[1] = epoll_create1(0);
    h->kernel_fds[2] = timerfd_create(CLOCK_MONOTONIC, 0);
    h->kernel_fds[3] = memfd_create("refusals", 0);
    char cwd[2048], kind[2100];
    if (!getcwd(cwd, sizeof cwd)) abort();
    h->dir = open(cwd, O_RDONLY | O_DIRECTORY);
    for (int i = 0; i < 4; ++i)
      if (h->kernel_fds[i] < 0) abort();
    if (h->dir < 0) abort();
    expect_fd(h->kernel_fds[0], "an eventfd");
    expect_fd(h->kernel_fds[1], "an epoll instance");
    expect_fd(h->kernel_fds[2], "a timerfd");
    expect_fd(h->kernel_fds[3], "a memfd");
    snprintf(kind, sizeof kind, "a directory %s", cwd);
    expect_fd(h->dir, kind);
  }
  if (all || strcmp(what, "thread_exit") == 0) {
    pthread_t exiting;
    if (pthread_create(&exiting, NULL, refusal_exiting_worker, NULL) != 0) abort();
    pthread_join(exiting, NULL);
  }
  if (all || strcmp(what, "thread") == 0 || strcmp(what, "thread_exit") == 0) {
    pthread_create(&h->thread, NULL, refusal_worker, NULL);
    h->have_thread = 1;
    pthread_mutex_lock(&worker_lock);
    while (!worker_tid) pthread_cond_wait(&worker_cond, &worker_lock);
    pthread_mutex_unlock(&worker_lock);
    char exe[4096], line[4400];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    snprintf(
        line, sizeof line,
        "thread %d (started at refusal_worker in %s) is blocked in system call %d, which is not one of the waits a "
        "thread is carried from",
        worker_tid, exe, SYS_rt_sigtimedwait);
    expect(line);
  }
  if (strcmp(what, "park_signal") == 0) {
    /* The signal the layer stops its threads with, taken by the application. */
    signal(SIGRTMAX - 2, refusal_ignore);
    if (pthread_create(&idle_thread, NULL, refusal_idle_worker, NULL) != 0) abort();
    char line[200];
    snprintf(line, sizeof line,
             "the application handles signal %d, which the layer needs to stop its threads at a checkpoint",
             SIGRTMAX - 2);
    expect(line);
  }
  if (strcmp(what, "thread_plugin_tls") == 0) {
    /* A library with thread-local storage loaded after start, and a thread that could use it. */
    h->plugin = dlopen("libyk_refusal_plugin.so", RTLD_NOW);
    struct link_map* map = NULL;
    if (!h->plugin || dlinfo(h->plugin, RTLD_DI_LINKMAP, &map) != 0) abort();
    if (pthread_create(&idle_thread, NULL, refusal_idle_worker, NULL) != 0) abort();
    char line[4400];
    snprintf(line, sizeof line,
             "library %s, loaded after start, has thread-local storage, which is not carried for threads other than "
             "the main one",
             map->l_name);
    expect(line);
  }
  if (all || strcmp(what, "dlopen_tls") == 0) {
    /* A bare name: found only through the executable's RUNPATH (the shim must not change that).
     * Its reduction touches its thread-local variable first inside a library call: the memory
     * layer's own bracket (memory.h), as a library calling into the plugin would. (Used as an MPI
     * operation it would be application code again, and its block in the arena: carried.) */
    h->plugin = dlopen("libyk_refusal_plugin.so", RTLD_NOW);
    if (!h->plugin) {
      fprintf(stderr, "refusals: dlopen: %s\n", dlerror());
      abort();
    }
    int (*answer)(void) = (int (*)(void))dlsym(h->plugin, "yk_refusal_plugin_answer");
    void* sum = dlsym(h->plugin, "yk_refusal_plugin_sum");
    if (!answer || answer() != 42 || !sum) abort();
    int in = 1, inout = 2, len = 1;
    if (!yk_mem_enter_library || !yk_mem_leave_library) abort();
    yk_mem_enter_library();
    ((void (*)(void*, void*, int*, void*))sum)(&in, &inout, &len, NULL);
    yk_mem_leave_library();
    if (inout != 3) abort();
    struct link_map* map = NULL;
    dlinfo(h->plugin, RTLD_DI_LINKMAP, &map);
    char line[4400];
    snprintf(line, sizeof line,
             "library %s has thread-local storage that glibc allocated inside a library call, which is not carried",
             map->l_name);
    expect(line);
  }
  if (strcmp(what, "released") == 0 || strcmp(what, "glibc_paths") == 0) {
    char cwd[2048], line[4400];
    if (!getcwd(cwd, sizeof cwd)) abort();
    h->popened = popen("exec true", "r");
    h->temporary = tmpfile();
    h->dir_stream = opendir(cwd);
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_NONE;
    h->namespaced = dlmopen(LM_ID_NEWLM, "libm.so.6", RTLD_NOW);
    if (!h->popened || !h->temporary || !h->dir_stream || timer_create(CLOCK_MONOTONIC, &ev, &h->timer) != 0 ||
        !h->namespaced)
      abort();
    snprintf(line, sizeof line, "descriptor %d is a pipe to a command started by popen, which is not carried",
             fileno(h->popened));
    expect(line);
    snprintf(line, sizeof line, "descriptor %d is a temporary file from tmpfile, which is not carried",
             fileno(h->temporary));
    expect(line);
    snprintf(line, sizeof line, "descriptor %d is a directory %s, which is not carried", dirfd(h->dir_stream), cwd);
    expect(line);
    snprintf(line, sizeof line, "POSIX timer %ld (timer_create) is not carried", (long)(intptr_t)h->timer);
    expect(line);
    struct link_map* map = NULL;
    Lmid_t lmid = 0;
    if (dlinfo(h->namespaced, RTLD_DI_LINKMAP, &map) != 0 || dlinfo(h->namespaced, RTLD_DI_LMID, &lmid) != 0) abort();
    snprintf(line, sizeof line, "library %s was loaded with dlmopen into link-map namespace %ld, which is not carried",
             map->l_name, (long)lmid);
    expect(line);
    /* Standard output into a file of the working directory, put back after the pause point. */
    char path[2100];
    snprintf(path, sizeof path, "%s/stdout-%d", cwd, rank);
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    fflush(stdout);
    h->saved_stdout = dup(1);
    if (out < 0 || h->saved_stdout < 0 || dup2(out, 1) != 1) abort();
    close(out);
    snprintf(line, sizeof line,
             "descriptor 1 (standard output) was redirected by the application to %s, which is not carried", path);
    expect(line);
    snprintf(line, sizeof line, "descriptor %d is a copy of descriptor 1 (standard output), which is not carried",
             h->saved_stdout);
    expect(line);
  }
  if (strcmp(what, "released") == 0 || strcmp(what, "locale") == 0) {
    h->own_locale = newlocale(LC_ALL_MASK, "C.UTF-8", (locale_t)0);
    h->copied_locale = duplocale(h->own_locale);
    /* The environment's locale, made "C" here: an object of only libc's built-in C data, carried,
     * not named. */
    if (setenv("LC_ALL", "C", 1) != 0) abort();
    h->builtin_locale = newlocale(LC_ALL_MASK, "", (locale_t)0);
    unsetenv("LC_ALL");
    if (!h->builtin_locale) abort();
    if (!h->own_locale || !h->copied_locale || !uselocale(h->own_locale)) abort();
    char line[200];
    expect("the application thread uses a locale of its own (uselocale), which is not carried");
    snprintf(line, sizeof line, "locale object %p (newlocale) is not carried", (void*)h->own_locale);
    expect(line);
    snprintf(line, sizeof line, "locale object %p (duplocale) is not carried", (void*)h->copied_locale);
    expect(line);
  }
  if (strcmp(what, "released") == 0 || strcmp(what, "resolver") == 0) {
    char line[200];
    snprintf(line, sizeof line, "descriptor %d is the resolver's socket (RES_STAYOPEN), which is not carried",
             resolver_socket());
    expect(line);
    expect("the application changed the resolver's settings (_res), which is not carried");
  }
  if (strcmp(what, "constructor_thread") == 0) {
    if (!early_started) abort();
    pthread_mutex_lock(&early_lock);
    while (!early_tid) pthread_cond_wait(&early_cond, &early_lock);
    pthread_mutex_unlock(&early_lock);
    char exe[4096], line[4400];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    snprintf(
        line, sizeof line,
        "thread %d (started at refusal_constructor_worker in %s) was started before MPI_Init, which is not carried",
        early_tid, exe);
    expect(line);
  }
  if (strcmp(what, "several") == 0 || strcmp(what, "sbrk") == 0) {
    char* got = sbrk(4096);
    if (got == (void*)-1) abort();
    got[0] = 1;
    expect("the application moved the program break by 4096 bytes (sbrk), whose memory is not carried");
  }
  if (strcmp(what, "released") == 0 || strcmp(what, "omp_thread_key") == 0) {
    static int marks[2];
    if (pthread_key_create(&h->omp_key, NULL) != 0) abort();
#pragma omp parallel num_threads(2)
    pthread_setspecific(h->omp_key, &marks[omp_get_thread_num() % 2]);
    char line[200];
    snprintf(line, sizeof line,
             "thread-specific data of key %u was set on an OpenMP thread, whose value is not carried (a restarted "
             "process has a new pool)",
             (unsigned)h->omp_key);
    expect(line);
  }
  if (all || strcmp(what, "shm") == 0) {
    h->shm_id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    h->shm_at = shmat(h->shm_id, NULL, 0);
    if (h->shm_id < 0 || h->shm_at == (void*)-1) abort();
    shmctl(h->shm_id, IPC_RMID, NULL); /* gone once detached (and if the test dies) */
    char line[200];
    snprintf(line, sizeof line, "System V shared memory segment %d attached at %p is not carried", h->shm_id,
             h->shm_at);
    expect(line);
  }
}

static void release(const char* what, struct Held* h) {
  int all = strcmp(what, "several") == 0 || strcmp(what, "released") == 0;
  if (all || strcmp(what, "socket") == 0) close(h->sock);
  if (all || strcmp(what, "pipe") == 0) {
    close(h->pipe_fds[0]);
    close(h->pipe_fds[1]);
  }
  if (strcmp(what, "fifo") == 0) close(h->fifo);
  if (strcmp(what, "socket_dup") == 0) {
    close(h->sock);
    close(h->sock_dup);
  }
  if (strcmp(what, "raw_syscalls") == 0)
    for (int i = 0; i < 5; ++i) syscall(SYS_close, h->raw_fds[i]);
  if (all || strcmp(what, "newer_kernel_objects") == 0)
    for (int i = 0; i < 7; ++i) close(h->newer_fds[i]);
  if (all || strcmp(what, "kernel_objects") == 0) {
    for (int i = 0; i < 4; ++i) close(h->kernel_fds[i]);
    close(h->dir);
  }
  if (h->have_thread) {
    pthread_kill(h->thread, SIGUSR2);
    pthread_join(h->thread, NULL);
    worker_tid = h->have_thread = 0;
  }
  if (strcmp(what, "park_signal") == 0 || strcmp(what, "thread_plugin_tls") == 0) {
    pthread_mutex_lock(&worker_lock);
    idle_stop = 1;
    pthread_cond_broadcast(&worker_cond);
    pthread_mutex_unlock(&worker_lock);
    pthread_join(idle_thread, NULL);
  }
  if (h->plugin) dlclose(h->plugin);
  h->plugin = NULL;
  if (strcmp(what, "released") == 0 || strcmp(what, "glibc_paths") == 0) {
    pclose(h->popened);
    fclose(h->temporary);
    closedir(h->dir_stream);
    timer_delete(h->timer);
    dlclose(h->namespaced);
    fflush(stdout);
    dup2(h->saved_stdout, 1);
    close(h->saved_stdout);
  }
  if (strcmp(what, "released") == 0 || strcmp(what, "locale") == 0) {
    uselocale(LC_GLOBAL_LOCALE);
    freelocale(h->own_locale);
    freelocale(h->copied_locale);
    freelocale(h->builtin_locale);
  }
  if (strcmp(what, "released") == 0 || strcmp(what, "resolver") == 0) {
    _res.options = resolver_options; /* as res_init left them */
    _res.retry = resolver_retry;
    res_close(); /* closes the kept socket */
    res_init();  /* the servers of /etc/resolv.conf again */
  }
  if (early_started) {
    pthread_mutex_lock(&early_lock);
    early_stop = 1;
    pthread_cond_broadcast(&early_cond);
    pthread_mutex_unlock(&early_lock);
    pthread_join(early_thread, NULL);
    early_started = 0;
  }
  if (all || strcmp(what, "shm") == 0) shmdt(h->shm_at);
  if (strcmp(what, "released") == 0 || strcmp(what, "omp_thread_key") == 0) pthread_key_delete(h->omp_key);
}

static long work(int rank, int size, int step) {
  long local = (long)(rank + 1) * step, total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total + size;
}

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "socket";
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0 && strcmp(what, "released") != 0) {
    expected = fopen("expected-refusals", "w");
    if (!expected) abort();
  }
  struct Held held;
  memset(&held, 0, sizeof held);
  long before = work(rank, size, 1);
  hold(what, &held, rank);
  if (expected && strcmp(what, "omp_region") != 0) {
    fclose(expected);
    expected = NULL;
  }
  if (strcmp(what, "released") == 0) release(what, &held);
  if (strcmp(what, "omp_region") == 0) {
    expect("the checkpoint was requested inside an OpenMP parallel region (nesting level 1), which is not carried");
    if (expected) fclose(expected);
    expected = NULL;
#pragma omp parallel num_threads(2)
    {
#pragma omp master
      yk_app_pause_point(MPI_COMM_WORLD);
    }
  } else {
    yk_app_pause_point(MPI_COMM_WORLD);
  }
  if (strcmp(what, "released") != 0) release(what, &held);
  long after = work(rank, size, 2);
  if (rank == 0) printf("refusals %s: before %ld, after %ld\n", what, before, after);
  MPI_Finalize();
  return 0;
}
