#include "library_placement.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "exe_layout.hpp"
#include "loaded_libraries.hpp"
#include "mapping_live.hpp"

namespace yadokari::memory {
namespace {

unsigned long long ull(std::uintptr_t v) { return static_cast<unsigned long long>(v); }

// The process's mappings, sorted (as /proc/self/maps lists them) and named (the file, or "" for
// anonymous memory); `stack_lo` the main stack's start.
bool read_maps(std::vector<NamedRange>& out, std::uintptr_t& stack_lo) {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::string text;
  char buf[8192];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  close(fd);
  stack_lo = 0;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    unsigned long long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx", &lo, &hi) != 2) continue;
    std::size_t name = line.find('/');
    if (name == std::string::npos) name = line.find('[');
    out.push_back({static_cast<std::uintptr_t>(lo), static_cast<std::uintptr_t>(hi),
                   name == std::string::npos ? "" : line.substr(name)});
    if (line.find("[stack]") != std::string::npos) stack_lo = static_cast<std::uintptr_t>(lo);
  }
  return !out.empty();
}

struct Placeholders {
  std::vector<Range> held;
  ~Placeholders() {
    for (const Range& r : held) map_real().munmap(reinterpret_cast<void*>(r.lo), r.hi - r.lo);
  }
  void hold(std::uintptr_t lo, std::uintptr_t hi) {
    void* want = reinterpret_cast<void*>(lo);
    void* p = map_real().mmap(want, hi - lo, PROT_NONE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == want)
      held.push_back({lo, hi});
    else if (p != MAP_FAILED)
      map_real().munmap(p, hi - lo);
  }
};

}  // namespace

bool place_library(const char* path, int mode, std::uintptr_t lo, std::uintptr_t hi, std::uintptr_t base, void*& handle,
                   char* why, std::size_t why_len) {
  handle = nullptr;
  std::vector<NamedRange> maps;
  std::uintptr_t stack_lo = 0;
  if (!read_maps(maps, stack_lo)) {
    std::snprintf(why, why_len, "cannot read /proc/self/maps to place library %s", path);
    return false;
  }
  // The top of the area mmap hands out: the end of the highest mapping below the main stack (ld.so's
  // with randomisation off). Nothing above it is filled: that is the stack's room to grow.
  std::uintptr_t ceiling = 0;
  for (const NamedRange& m : maps) {
    if (m.lo < hi && m.hi > lo) {
      std::snprintf(
          why, why_len,
          "library %s cannot be loaded at %#llx again: the address range is in use in this process (%#llx-%#llx "
          "%s)",
          path, ull(base), ull(m.lo), ull(m.hi), m.name.empty() ? "anonymous memory" : m.name.c_str());
      return false;
    }
    if (m.hi <= stack_lo && m.hi > ceiling) ceiling = m.hi;
  }
  {
    Placeholders placeholders;
    std::uintptr_t prev = 0;
    for (const NamedRange& m : maps) {
      const std::uintptr_t gap_lo = prev > hi ? prev : hi;
      const std::uintptr_t gap_hi = m.lo < ceiling ? m.lo : ceiling;
      if (gap_lo < gap_hi) placeholders.hold(gap_lo, gap_hi);
      prev = m.hi;
    }
    handle = real_dlopen(path, (mode & (RTLD_LAZY | RTLD_NOW)) ? mode : mode | RTLD_LAZY);
  }  // the placeholders go away here
  if (!handle) {
    const char* error = dlerror();
    std::snprintf(why, why_len, "library %s cannot be loaded again: %s", path, error ? error : "dlopen failed");
    return false;
  }
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || map->l_addr != base) {
    std::snprintf(why, why_len, "library %s could not be placed back at %#llx (it was loaded at %#llx)", path,
                  ull(base), ull(map ? map->l_addr : 0));
    dlclose(handle);
    handle = nullptr;
    return false;
  }
  return true;
}

}  // namespace yadokari::memory
