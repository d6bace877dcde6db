// The library cxx_plugin.cpp loads with dlopen after MPI_Init: it throws PluginError through its
// own frames (a std::function call and a recursion) and keeps state in a static std::map and a
// static object whose destructor prints when the library is unloaded (registered once: a restart
// must not register it twice), and a function-local static built at its first use (iteration 2),
// whose destructor is registered then, by the library's code after its dlopen: it must run too,
// before the other (the reverse order of registration).
#include <cstdio>
#include <functional>
#include <map>
#include <string>

#include "tests/apps/cxx_plugin.hpp"

namespace {

int g_rank = -1;
std::map<int, double> g_seen;  // grows every call: its nodes are in the application's arena

struct Farewell {
  ~Farewell() {
    if (g_rank == 0) std::printf("plugin unloaded after %zu steps\n", g_seen.size());
  }
} g_farewell;

// Built at its first use; counts the calls from then on.
struct LateCounter {
  int calls = 0;
  ~LateCounter() {
    if (g_rank == 0) std::printf("plugin's late counter destroyed after %d calls\n", calls);
  }
};

LateCounter& late_counter() {
  static LateCounter counter;
  return counter;
}

double deep(int depth, int iteration, double value) {
  if (depth == 0) {
    if (iteration % 4 == 1) throw PluginError("iteration " + std::to_string(iteration) + " refused", iteration * 10);
    return value * 1.25 + static_cast<double>(g_seen.size());
  }
  return deep(depth - 1, iteration, value) + 1.0;
}

}  // namespace

extern "C" void yk_cxx_plugin_set_rank(int rank) { g_rank = rank; }

extern "C" double yk_cxx_plugin_step(int iteration, double value) {
  std::function<double()> call = [&] { return deep(3, iteration, value); };
  g_seen[iteration] = value;
  if (iteration >= 2) ++late_counter().calls;
  return call();
}
