/* The plugin c_plugin.c loads with dlopen after MPI_Init (tests/apps/README.md). Its state lives in
 * every place a library keeps state: .data, .bss, a heap block it allocated (in the application's
 * arena: it was loaded by the application), a static thread-local variable (initial-exec: the
 * static TLS area) and a dependency of its own (plugin_dep.c). */
#include <stdlib.h>

long yk_plugin_dep_scale(long x);

static long total = 11;                                                      /* .data */
static long calls;                                                           /* .bss */
static long* history;                                                        /* a heap block */
static __thread long tls_sum __attribute__((tls_model("initial-exec"))) = 5; /* static TLS */

long yk_plugin_step(long x) {
  if (!history) history = calloc(64, sizeof *history);
  history[calls % 64] = x;
  ++calls;
  tls_sum += x % 97;
  total = (total * 31 + yk_plugin_dep_scale(x)) % 1000000007L;
  return total;
}

/* Looked up with dlsym only after the restart. */
long yk_plugin_digest(void) {
  long d = calls * 1000003L + tls_sum;
  for (int i = 0; i < 64 && history; ++i) d = (d * 131 + history[i]) % 1000000007L;
  return d;
}
