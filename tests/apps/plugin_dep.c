/* A dependency of plugin.c, loaded with it by the application's dlopen (not before main): its
 * data is carried and it is placed back before the plugin after a restart. Its thread-local
 * variable has the default (dynamic) TLS model: glibc allocates its block on first use, in the
 * application's arena. */
static long dep_calls;            /* .bss */
static long dep_scale = 3;        /* .data */
static __thread long dep_tls = 2; /* dynamic TLS */

long yk_plugin_dep_scale(long x) {
  ++dep_calls;
  dep_tls = dep_tls * 5 % 10007;
  dep_scale = dep_scale * 7 % 1000003;
  return x * dep_scale + dep_calls + dep_tls;
}
