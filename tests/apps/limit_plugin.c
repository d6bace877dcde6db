/* A small library table_limits.c loads under many names (copies of this file): no dependency of its
 * own, no thread-local storage (a static TLS block per copy would exhaust glibc's surplus). */
int yk_limit_plugin_value = 1;

int yk_limit_plugin_get(void) { return yk_limit_plugin_value; }
