/* Application threads carried across a restart (checkpoint/memory/README.md, "Threads"). Started
 * after MPI_Init and alive at the pause point:
 * - two pool workers that wait on a condition variable for each iteration's job, sum their half of
 *   an array, count their jobs in a thread-local variable and keep a thread-specific data value;
 *   one blocks SIGUSR1 (its mask must come back);
 * - a busy thread, started right before the pause point and stopped right after it, that spins in
 *   its own code (parked in the middle of that loop, not in a library call);
 * - a sleeper in a loop of 20 ms nanosleeps and a thread blocked in sem_wait, each counting the
 *   calls that failed with EINTR (none: the park's signal must not cut a wait short);
 * - a poller in a loop of 1 s polls without descriptors (at the pause point it is inside one), the
 *   same poller built fortified (c_threads_fortified.c: glibc's __poll_chk), and
 *   a thread in sigsuspend until main sends it a signal at the end: the poller counts the polls
 *   that failed with EINTR, the other how often sigsuspend returned before that signal (none:
 *   the park's signal cuts neither short, and both are parked inside the call);
 * - a thread that has already returned 42 at the pause point and is joined only after it.
 * Every result, the join values and the counts are printed at the end; the per-rank file gets a
 * line per iteration. The pthread_t values main keeps must still name the threads. */
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tests/apps/pause_point.h"

enum { kValues = 200000, kIterations = 30, kPauseAt = 15 };

static double* values;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t job_posted = PTHREAD_COND_INITIALIZER, job_done = PTHREAD_COND_INITIALIZER;
static int job = -1, done_count, stop;
static double partial[2];
static __thread long jobs_here;
static pthread_key_t worker_key;
static pthread_t self_seen[2];

struct Worker {
  int index;
  long key_value;
};

static void* worker(void* arg) {
  struct Worker* w = arg;
  if (w->index == 1) {
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, NULL);
  }
  pthread_setspecific(worker_key, &w->key_value);
  self_seen[w->index] = pthread_self();
  int last = -1;
  pthread_mutex_lock(&lock);
  for (;;) {
    while (job == last && !stop) pthread_cond_wait(&job_posted, &lock);
    if (stop) break;
    last = job;
    pthread_mutex_unlock(&lock);
    double sum = 0;
    for (int i = w->index * kValues / 2; i < (w->index + 1) * kValues / 2; ++i) {
      values[i] = values[i] * 0.75 + (double)((i + last) % 11);
      sum += values[i];
    }
    ++jobs_here;
    pthread_mutex_lock(&lock);
    partial[w->index] = sum;
    ++done_count;
    pthread_cond_signal(&job_done);
  }
  pthread_mutex_unlock(&lock);
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, NULL, &mask);
  const long* kept = pthread_getspecific(worker_key);
  return (void*)(intptr_t)(jobs_here * 1000 + (kept ? *kept : -1) * 10 + sigismember(&mask, SIGUSR1));
}

static atomic_int busy_stop;
static atomic_long busy_spins;

static void* busy(void* arg) {
  (void)arg;
  while (!atomic_load_explicit(&busy_stop, memory_order_relaxed))
    atomic_fetch_add_explicit(&busy_spins, 1, memory_order_relaxed);
  return (void*)(intptr_t)7;
}

static atomic_int sleeper_stop;

static void* sleeper(void* arg) {
  (void)arg;
  long interrupted = 0;
  while (!atomic_load(&sleeper_stop)) {
    struct timespec twenty_ms = {0, 20 * 1000 * 1000};
    if (nanosleep(&twenty_ms, NULL) != 0 && errno == EINTR) ++interrupted;
  }
  return (void*)(intptr_t)interrupted;
}

static sem_t semaphore;

static void* sem_waiter(void* arg) {
  (void)arg;
  long interrupted = 0;
  while (sem_wait(&semaphore) != 0)
    if (errno == EINTR) ++interrupted;
  return (void*)(intptr_t)interrupted;
}

static atomic_int poller_stop;
void* fortified_poller(void* stop); /* c_threads_fortified.c */

static void* poller(void* arg) {
  (void)arg;
  long interrupted = 0;
  while (!atomic_load(&poller_stop))
    if (poll(NULL, 0, 1000) < 0 && errno == EINTR) ++interrupted;
  return (void*)(intptr_t)interrupted;
}

/* Blocked in the thread (and main) until its sigsuspend: a signal sent before cannot be lost. */
#define WAKE_SIGNAL (SIGRTMIN + 5)
static volatile sig_atomic_t woken;
static void on_wake(int signal) {
  (void)signal;
  woken = 1;
}

static void* suspender(void* arg) {
  (void)arg;
  sigset_t open;
  pthread_sigmask(SIG_BLOCK, NULL, &open);
  sigdelset(&open, WAKE_SIGNAL);
  long early = 0;
  while (!woken) {
    sigsuspend(&open);
    if (!woken) ++early;
  }
  return (void*)(intptr_t)early;
}

static void* returns_early(void* arg) {
  (void)arg;
  return (void*)(intptr_t)42;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  values = calloc(kValues, sizeof *values);
  char name[64];
  snprintf(name, sizeof name, "threads.%d.txt", rank);
  FILE* out = fopen(name, "w");
  if (!values || !out || pthread_key_create(&worker_key, NULL) != 0 || sem_init(&semaphore, 0, 0) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  struct Worker workers[2] = {{0, 7 + rank}, {1, 9 + rank}};
  pthread_t pool[2], busy_thread, sleep_thread, sem_thread, early, poll_thread, fortified_poll_thread, suspend_thread;
  struct sigaction wake = {0};
  wake.sa_handler = on_wake;
  sigset_t wake_set;
  sigemptyset(&wake_set);
  sigaddset(&wake_set, WAKE_SIGNAL);
  if (sigaction(WAKE_SIGNAL, &wake, NULL) != 0 || pthread_sigmask(SIG_BLOCK, &wake_set, NULL) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (int i = 0; i < 2; ++i)
    if (pthread_create(&pool[i], NULL, worker, &workers[i]) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  if (pthread_create(&sleep_thread, NULL, sleeper, NULL) != 0 ||
      pthread_create(&sem_thread, NULL, sem_waiter, NULL) != 0 || pthread_create(&early, NULL, returns_early, NULL) ||
      pthread_create(&poll_thread, NULL, poller, NULL) != 0 ||
      pthread_create(&fortified_poll_thread, NULL, fortified_poller, &poller_stop) != 0 ||
      pthread_create(&suspend_thread, NULL, suspender, NULL) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (int iteration = 0; iteration < kIterations; ++iteration) {
    if (iteration == kPauseAt) {
      /* The early thread has ended (it is joined only after the pause point). */
      struct timespec ten_ms = {0, 10 * 1000 * 1000};
      nanosleep(&ten_ms, NULL);
      if (pthread_create(&busy_thread, NULL, busy, NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
      while (atomic_load(&busy_spins) == 0)
        ;
      yk_app_pause_point(MPI_COMM_WORLD);
      atomic_store(&busy_stop, 1);
    }
    pthread_mutex_lock(&lock);
    job = iteration;
    done_count = 0;
    pthread_cond_broadcast(&job_posted);
    while (done_count < 2) pthread_cond_wait(&job_done, &lock);
    const double local = partial[0] + partial[1];
    pthread_mutex_unlock(&lock);
    double total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    fprintf(out, "iteration %d local %.17g\n", iteration, local);
    if (rank == 0) printf("iteration %d total %.17g\n", iteration, total);
  }
  pthread_mutex_lock(&lock);
  stop = 1;
  pthread_cond_broadcast(&job_posted);
  pthread_mutex_unlock(&lock);
  atomic_store(&sleeper_stop, 1);
  atomic_store(&poller_stop, 1);
  sem_post(&semaphore);
  pthread_kill(suspend_thread, WAKE_SIGNAL);
  void* results[9];
  pthread_t all[9] = {pool[0], pool[1],     busy_thread,    sleep_thread,         sem_thread,
                      early,   poll_thread, suspend_thread, fortified_poll_thread};
  for (int i = 0; i < 9; ++i)
    if (pthread_join(all[i], &results[i]) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  fprintf(out,
          "workers %ld %ld, busy %ld, sleeper interrupted %ld, sem_wait interrupted %ld, early %ld, poll interrupted "
          "%ld, sigsuspend returned early %ld, fortified poll interrupted %ld\n",
          (long)(intptr_t)results[0], (long)(intptr_t)results[1], (long)(intptr_t)results[2],
          (long)(intptr_t)results[3], (long)(intptr_t)results[4], (long)(intptr_t)results[5],
          (long)(intptr_t)results[6], (long)(intptr_t)results[7], (long)(intptr_t)results[8]);
  fprintf(out, "pool identities %s\n",
          pthread_equal(self_seen[0], pool[0]) && pthread_equal(self_seen[1], pool[1]) ? "kept" : "changed");
  fclose(out);
  if (rank == 0) printf("done\n");
  free(values);
  MPI_Finalize();
  return 0;
}
