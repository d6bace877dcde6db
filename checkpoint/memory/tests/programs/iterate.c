/* Memory test program (C): iterates over heap structures (malloc/calloc/realloc/free,
 * strdup, aligned allocations, a linked list), globals in .data and .bss, a thread-local,
 * stack locals, rand(), and a getenv() pointer kept across iterations; prints one line per
 * iteration. yk_memtest_boundary() (the test driver, if preloaded) is the call boundary where a
 * checkpoint may happen. Uses a "library" object copy-relocated into its .bss (fake_lib.c),
 * which a restore must leave alone. Built with -fstack-protector-all: every frame live across a restart
 * checks the canary on return. Usage: iterate [iterations] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/memory/tests/programs/fake_lib.h"

#ifndef YK_VARIANT
#define YK_VARIANT "a"
#endif

extern int yk_memtest_boundary(void) __attribute__((weak));

struct node {
  struct node* next;
  double value;
  char* label;
};

static double g_scale = 1.0009765625; /* .data */
static const char* g_variant = YK_VARIANT;
static long g_events;             /* .bss */
static unsigned g_table[4096];    /* .bss */
static __thread long t_ticks = 7; /* executable TLS */

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

static int compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The checkpoint happens one frame deeper than main, with live locals in both frames. */
static int boundary(int iteration, uint64_t* sum) {
  char note[64];
  snprintf(note, sizeof note, "iteration-%d", iteration);
  *sum = mix(*sum, strlen(note));
  int r = yk_memtest_boundary ? yk_memtest_boundary() : 0;
  *sum = mix(*sum, (uint64_t)note[10]);
  return r;
}

/* The boundary is reached through a recursion of up to 300 frames of 1 KiB, so the stack
 * captured at a checkpoint ranges from a few KiB to 300+ KiB. */
static int descend(int depth, int iteration, uint64_t* sum) {
  volatile char pad[1024];
  pad[depth % 1024] = (char)depth;
  int r = depth == 0 ? boundary(iteration, sum) : descend(depth - 1, iteration, sum);
  *sum = mix(*sum, (uint64_t)pad[depth % 1024]);
  return r;
}

int main(int argc, char** argv) {
  int iterations = argc > 1 ? atoi(argv[1]) : 60;
  const char* tag = getenv("YK_TEST_TAG"); /* kept: must stay valid after a restart */
  const char* addrs = getenv("YK_TEST_ADDRS");
  int use_addrs = !addrs || strcmp(addrs, "0") != 0;

  struct node* list = NULL;
  size_t count = 0, cap = 2;
  double* values = malloc(cap * sizeof *values);
  char* text = calloc(1, 1);
  void* aligned = NULL;
  uint64_t sum = 0;
  srand(12345);
  srand48(777);

  for (int i = 0; i < iterations; ++i) {
    /* grow: a node per iteration, a label, and the values array by realloc */
    struct node* n = malloc(sizeof *n);
    n->value = (rand() % 1000) * g_scale + drand48();
    char label[32];
    snprintf(label, sizeof label, "n%d-%d", i, rand() % 97);
    n->label = strdup(label);
    n->next = list;
    list = n;
    if (count == cap) {
      cap *= 2;
      values = realloc(values, cap * sizeof *values);
    }
    values[count++] = n->value;

    /* shrink: every third iteration drop every other node */
    if (i % 3 == 2) {
      for (struct node* p = list; p && p->next; p = p->next) {
        struct node* dead = p->next;
        p->next = dead->next;
        free(dead->label);
        free(dead);
      }
    }
    /* a string that grows by realloc, reset now and then */
    size_t len = strlen(text);
    text = realloc(text, len + strlen(label) + 2);
    strcat(text, label);
    strcat(text, ";");
    if (len > 400) text[0] = 0;
    /* aligned blocks come and go */
    free(aligned);
    if (posix_memalign(&aligned, 256, 100 + (size_t)i * 8) != 0) return 1;
    memset(aligned, i, 100);

    g_events += i;
    g_table[(i * 37) % 4096] += (unsigned)i;
    t_ticks = t_ticks * 3 + i;
    qsort(values, count, sizeof *values, compare_doubles);

    sum = mix(sum, (uint64_t)g_events);
    for (struct node* p = list; p; p = p->next) sum = mix(sum, (uint64_t)(p->value * 1024) ^ strlen(p->label));
    for (size_t k = 0; k < count; ++k) sum = mix(sum, (uint64_t)(values[k] * 64));
    sum = mix(sum, g_table[(i * 37) % 4096] + strlen(text));
    if (use_addrs) sum = mix(sum, (uint64_t)(uintptr_t)n); /* the allocator's state must be carried too */

    size_t list_len = 0;
    for (struct node* p = list; p; p = p->next) ++list_len;
    const char* tag_now = getenv("YK_TEST_TAG"); /* after a restart: still the old value */
    printf("iter %3d sum %016llx list %zu values %zu text %zu tick %ld rand %d tag %s/%s variant %s\n", i,
           (unsigned long long)sum, list_len, count, strlen(text), t_ticks % 100000, rand() % 1000,
           tag ? tag : "(none)", tag_now ? tag_now : "(none)", g_variant);
    descend((i % 7) * 50, i, &sum);
    yk_fake_check(&yk_fake_world);
  }

  while (list) {
    struct node* next = list->next;
    free(list->label);
    free(list);
    list = next;
  }
  free(values);
  free(text);
  free(aligned);
  printf("done %016llx\n", (unsigned long long)sum);
  return 0;
}
