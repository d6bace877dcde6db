/* A library refusals.c loads with dlopen by its bare name, found through the program's RUNPATH.
 * Its reduction counts its calls in a thread-local variable (the default, dynamic TLS model of a
 * shared library): glibc allocates the variable's block on first use, and refusals.c uses it
 * first inside a library call, where the block comes from the library's heap and not from the
 * application's arena: a restart could not give it back. */
static __thread int calls;

int yk_refusal_plugin_answer(void) { return 42; }

void yk_refusal_plugin_sum(void* in, void* inout, int* len, void* type) {
  (void)type;
  ++calls;
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((const int*)in)[i];
}
