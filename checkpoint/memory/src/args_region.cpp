#include "checkpoint/memory/src/args_region.hpp"

#include <sys/mman.h>

#include <cstring>

#include "checkpoint/memory/src/layout.hpp"

namespace yadokari::memory {
namespace {

bool g_mapped;

bool map_region(std::size_t size) {
  void* p = mmap(reinterpret_cast<void*>(kArgsBase), size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED) return false;
  if (reinterpret_cast<std::uintptr_t>(p) != kArgsBase) {
    munmap(p, size);
    return false;
  }
  g_mapped = true;
  return true;
}

}  // namespace

ArgsRegion* copy_args(int argc, char** argv, char** envp) {
  std::size_t nenv = 0, bytes = 0;
  for (int i = 0; i < argc; ++i) bytes += std::strlen(argv[i]) + 1;
  for (; envp && envp[nenv]; ++nenv) bytes += std::strlen(envp[nenv]) + 1;
  std::size_t arrays = sizeof(ArgsRegion) + sizeof(char*) * (argc + 1 + nenv + 1);
  std::size_t size = (arrays + bytes + kPage - 1) & ~(kPage - 1);
  if (size > kArgsMax || !map_region(size)) return nullptr;
  auto* r = reinterpret_cast<ArgsRegion*>(kArgsBase);
  r->size = size;
  r->argc = argc;
  r->argv = reinterpret_cast<char**>(kArgsBase + sizeof(ArgsRegion));
  r->envp = r->argv + argc + 1;
  r->reserved = 0;
  char* s = reinterpret_cast<char*>(r->envp + nenv + 1);
  auto put = [&s](const char* from) {
    std::size_t l = std::strlen(from) + 1;
    std::memcpy(s, from, l);
    char* at = s;
    s += l;
    return at;
  };
  for (int i = 0; i < argc; ++i) r->argv[i] = put(argv[i]);
  r->argv[argc] = nullptr;
  for (std::size_t i = 0; i < nenv; ++i) r->envp[i] = put(envp[i]);
  r->envp[nenv] = nullptr;
  return r;
}

ArgsRegion* args_region() { return g_mapped ? reinterpret_cast<ArgsRegion*>(kArgsBase) : nullptr; }

bool args_remap(std::size_t size) {
  if (g_mapped) munmap(reinterpret_cast<void*>(kArgsBase), args_region()->size);
  g_mapped = false;
  return map_region(size);
}

char* args_getenv(const char* name) {
  ArgsRegion* r = args_region();
  if (!r) return nullptr;
  std::size_t l = std::strlen(name);
  for (char** e = r->envp; *e; ++e)
    if (std::strncmp(*e, name, l) == 0 && (*e)[l] == '=') return *e + l + 1;
  return nullptr;
}

}  // namespace yadokari::memory
