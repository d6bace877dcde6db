// rand()/random() and drand48() keep their state inside libc, which a restart makes fresh
// (docs/architecture.md, pitfall 10). The application's calls are answered here from state in
// this library's .bss, carried across a restart with yk_mem_carry(), using glibc's own reentrant
// generators (random_r, drand48_r), so the sequence is exactly glibc's. Calls made inside library
// calls or by library threads go to libc: they do not disturb the application's sequence.
#include <dlfcn.h>
#include <pthread.h>

#include <cstdint>
#include <cstdlib>

#include "checkpoint/memory/memory.h"
#include "checkpoint/memory/src/routing.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

struct RandomState {
  struct random_data random;
  std::int32_t table[32];       // 128 bytes: glibc's default TYPE_3 state
  struct drand48_data drand48;  // all zero = glibc's unseeded state
  std::uint32_t initialised;
  unsigned short seed48_old[3];
};

RandomState g_state;
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

struct Locked {
  Locked() {
    pthread_mutex_lock(&g_lock);
    // glibc's unseeded random() is "as if initstate(1, randtbl, 128)".
    if (!g_state.initialised) {
      initstate_r(1, reinterpret_cast<char*>(g_state.table), sizeof g_state.table, &g_state.random);
      g_state.initialised = 1;
    }
  }
  ~Locked() { pthread_mutex_unlock(&g_lock); }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;
};

bool ours() { return t_depth == 0 && !t_lib; }

template <typename F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

struct Real {
  int (*rand)();
  long (*random)();
  void (*srand)(unsigned);
  void (*srandom)(unsigned);
  char* (*initstate)(unsigned, char*, std::size_t);
  char* (*setstate)(char*);
  double (*drand48)();
  long (*lrand48)();
  long (*mrand48)();
  void (*srand48)(long);
  unsigned short* (*seed48)(unsigned short*);
  void (*lcong48)(unsigned short*);
} g_real_random;

__attribute__((constructor(101))) void resolve() {
  yk_mem_carry(&g_state, sizeof g_state, "libc random state");
  Real& r = g_real_random;
  r.rand = next<decltype(r.rand)>("rand");
  r.random = next<decltype(r.random)>("random");
  r.srand = next<decltype(r.srand)>("srand");
  r.srandom = next<decltype(r.srandom)>("srandom");
  r.initstate = next<decltype(r.initstate)>("initstate");
  r.setstate = next<decltype(r.setstate)>("setstate");
  r.drand48 = next<decltype(r.drand48)>("drand48");
  r.lrand48 = next<decltype(r.lrand48)>("lrand48");
  r.mrand48 = next<decltype(r.mrand48)>("mrand48");
  r.srand48 = next<decltype(r.srand48)>("srand48");
  r.seed48 = next<decltype(r.seed48)>("seed48");
  r.lcong48 = next<decltype(r.lcong48)>("lcong48");
}

std::int32_t next_random() {
  std::int32_t v = 0;
  Locked l;
  random_r(&g_state.random, &v);
  return v;
}

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

YK_C_API int rand() { return ours() ? next_random() : g_real_random.rand(); }
YK_C_API long random() { return ours() ? next_random() : g_real_random.random(); }

YK_C_API void srand(unsigned seed) {
  if (!ours()) return g_real_random.srand(seed);
  Locked l;
  srandom_r(seed, &g_state.random);
}

YK_C_API void srandom(unsigned seed) { srand(seed); }

// As glibc: the previous state buffer (including its leading word), or nullptr on error.
YK_C_API char* initstate(unsigned seed, char* buf, std::size_t n) {
  if (!ours()) return g_real_random.initstate(seed, buf, n);
  Locked l;
  char* old = reinterpret_cast<char*>(g_state.random.state - 1);
  return initstate_r(seed, buf, n, &g_state.random) < 0 ? nullptr : old;
}

YK_C_API char* setstate(char* buf) {
  if (!ours()) return g_real_random.setstate(buf);
  Locked l;
  char* old = reinterpret_cast<char*>(g_state.random.state - 1);
  return setstate_r(buf, &g_state.random) < 0 ? nullptr : old;
}

YK_C_API double drand48() {
  if (!ours()) return g_real_random.drand48();
  Locked l;
  double v = 0;
  drand48_r(&g_state.drand48, &v);
  return v;
}

YK_C_API long lrand48() {
  if (!ours()) return g_real_random.lrand48();
  Locked l;
  long v = 0;
  lrand48_r(&g_state.drand48, &v);
  return v;
}

YK_C_API long mrand48() {
  if (!ours()) return g_real_random.mrand48();
  Locked l;
  long v = 0;
  mrand48_r(&g_state.drand48, &v);
  return v;
}

YK_C_API void srand48(long seed) {
  if (!ours()) return g_real_random.srand48(seed);
  Locked l;
  srand48_r(seed, &g_state.drand48);
}

YK_C_API unsigned short* seed48(unsigned short seed[3]) {
  if (!ours()) return g_real_random.seed48(seed);
  Locked l;
  // glibc returns a static copy of the previous seed; ours is carried with the rest.
  for (int i = 0; i < 3; ++i) g_state.seed48_old[i] = g_state.drand48.__x[i];
  seed48_r(seed, &g_state.drand48);
  return g_state.seed48_old;
}

YK_C_API void lcong48(unsigned short param[7]) {
  if (!ours()) return g_real_random.lcong48(param);
  Locked l;
  lcong48_r(param, &g_state.drand48);
}
