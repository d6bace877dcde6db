/* The poller of c_threads.c built as distributions build their packages (-O2 -D_FORTIFY_SOURCE=2,
 * tests/apps/CMakeLists.txt): glibc then calls __poll_chk instead of poll for an array whose size
 * the compiler knows and a count it does not (the count is read from memory here), and the park's
 * signal must not cut that wait short either. */
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>

void* fortified_poller(void* stop) {
  struct pollfd none[2] = {{.fd = -1}, {.fd = -1}}; /* no descriptor: only the timeout ends it */
  volatile nfds_t count = 2;
  long interrupted = 0;
  while (!atomic_load((atomic_int*)stop))
    if (poll(none, count, 1000) < 0 && errno == EINTR) ++interrupted;
  return (void*)(intptr_t)interrupted;
}
