/* Where allocations go (run with the test driver preloaded): the application's own to the arena,
 * those made inside a library call or by a thread a library created to glibc, and blocks go back
 * to the allocator they came from. Prints one line per check; the test compares the lines. */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void yk_mem_enter_library(void) __attribute__((weak));
extern void yk_mem_leave_library(void) __attribute__((weak));

static const uintptr_t kArenaBase = 0x110000000000, kArenaEnd = 0x110000000000 + (256ull << 30);
static const uintptr_t kArgsBase = 0x100000000000, kArgsEnd = 0x100000000000 + (64ull << 20);

static const char* where(const void* p) {
  uintptr_t a = (uintptr_t)p;
  if (a >= kArenaBase && a < kArenaEnd) return "arena";
  if (a >= kArgsBase && a < kArgsEnd) return "args";
  return "elsewhere";
}

static void* g_before_main;

__attribute__((constructor)) static void before_main(void) { g_before_main = malloc(100); }

static void* thread_malloc(void* out) {
  void* p = malloc(1000);
  *(const char**)out = where(p);
  free(p);
  return NULL;
}

static const char* in_thread(void) {
  const char* answer = NULL;
  pthread_t t;
  if (pthread_create(&t, NULL, thread_malloc, &answer) != 0) abort();
  pthread_join(t, NULL);
  return answer;
}

static void* library_thread(void* arg) {
  /* a library's thread frees an application block and allocates for itself */
  free(arg);
  void* p = malloc(10);
  const char* w = where(p);
  free(p);
  return (void*)w;
}

int main(void) {
  printf("main's argv and environment copy: %s\n", where(getenv("PATH")));
  printf("constructor of the executable: %s\n", where(g_before_main));
  void* p = malloc(24);
  printf("malloc in main: %s\n", where(p));
  char* s = strdup("copied by libc");
  printf("strdup in main: %s\n", where(s));
  void* aligned = aligned_alloc(4096, 4096);
  printf("aligned_alloc in main: %s aligned %d\n", where(aligned), ((uintptr_t)aligned & 4095) == 0);
  printf("thread created by main: %s\n", in_thread());

  yk_mem_enter_library();
  void* lib = malloc(24);
  printf("malloc inside a library call: %s\n", where(lib));
  printf("getenv inside a library call: %s\n", where(getenv("PATH")));
  pthread_t t;
  void* result = NULL;
  if (pthread_create(&t, NULL, library_thread, p) != 0) abort();
  yk_mem_leave_library();
  pthread_join(t, &result);
  printf("thread created inside a library call: %s\n", (const char*)result);

  lib = realloc(lib, 5000);
  printf("library block grown by main: %s\n", where(lib));
  char* text = realloc(s, 100000);
  printf("arena block grown by main: %s\n", where(text));
  printf("usable size >= request: %d\n", malloc_usable_size(text) >= 100000);
  free(lib);
  free(text);
  free(aligned);
  free(g_before_main);
  return 0;
}
