// Definitions of the routing flags (routing.hpp) and process state (process.hpp).
#include <unistd.h>

#include "checkpoint/memory/src/process.hpp"
#include "checkpoint/memory/src/routing.hpp"

namespace yadokari::memory {

YK_TLS int t_depth;
YK_TLS bool t_app;
YK_TLS bool t_lib;
namespace {
YK_TLS signed char t_main_thread;  // 0 until asked, then 1 (main) or -1
}

bool on_main_thread() {
  if (!t_main_thread) t_main_thread = gettid() == getpid() ? 1 : -1;
  return t_main_thread > 0;
}

bool g_enabled;
std::atomic<bool> g_arena_on{false};
bool g_restore_pending;
std::atomic<bool> g_past_restore_point{false};

std::uintptr_t g_stack_lo;
void (*g_main_hook)(void);
RealFunctions g_real;

}  // namespace yadokari::memory
