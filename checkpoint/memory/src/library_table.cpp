// The capture of libraries loaded after start (loaded_libraries.hpp): which objects, their refusal
// check, their table and their contents.
#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstring>
#include <string>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "checkpoint/memory/src/dl_open_counts.hpp"
#include "checkpoint/memory/src/exe_layout.hpp"
#include "checkpoint/memory/src/identity.hpp"
#include "checkpoint/memory/src/layout.hpp"
#include "checkpoint/memory/src/library_tls.hpp"
#include "checkpoint/memory/src/loaded_libraries.hpp"
#include "checkpoint/memory/src/mapped_file.hpp"
#include "checkpoint/memory/src/refusal.hpp"

namespace yadokari::memory {
namespace {

constexpr std::uint32_t kRW = 3;  // PROT_READ | PROT_WRITE
LibTable g_table;                 // .bss: large, and must not sit on the stack being captured

struct CachedHash {
  std::uint64_t base;
  char path[kLibPathMax];
  std::uint64_t hash;
};
CachedHash g_hashes[kMaxLibraries * 2];  // a library's file is hashed once per load address
int g_hash_count;

// ld.so's _dl_get_tls_static_info (GLIBC_PRIVATE): the size of the static TLS area.
using StaticTlsInfo = void (*)(std::size_t*, std::size_t*);
StaticTlsInfo g_static_tls_info;

bool loaded_before_main(const link_map* map) {
  const ObjectList& premain = premain_objects();
  for (std::uint32_t i = 0; i < premain.count; ++i)
    if (premain.objects[i].base == map->l_addr &&
        std::strncmp(premain.objects[i].name, map->l_name, sizeof premain.objects[i].name - 1) == 0)
      return true;
  return false;
}

bool file_hash(const char* path, std::uint64_t base, std::uint64_t& out) {
  for (int i = 0; i < g_hash_count; ++i)
    if (g_hashes[i].base == base && std::strcmp(g_hashes[i].path, path) == 0) return out = g_hashes[i].hash, true;
  MappedFile f(path);
  if (!f.ok()) return false;
  out = XXH3_64bits(f.data(), f.size());
  if (g_hash_count < static_cast<int>(sizeof g_hashes / sizeof g_hashes[0])) {
    CachedHash& c = g_hashes[g_hash_count++];
    c.base = base;
    std::snprintf(c.path, sizeof c.path, "%s", path);
    c.hash = out;
  }
  return true;
}

// The loaded object an application request or a DT_NEEDED name refers to (matched by name
// without loading anything), or nullptr.
link_map* loaded(const char* name) {
  void* h = real_dlopen(name, RTLD_NOLOAD | RTLD_LAZY);
  if (!h) {
    dlerror();  // our lookup's failure is not the application's to read
    return nullptr;
  }
  link_map* map = nullptr;
  if (dlinfo(h, RTLD_DI_LINKMAP, &map) != 0) map = nullptr;
  dlclose(h);  // the reference RTLD_NOLOAD took
  return map;
}

struct Found {
  link_map* map;
  std::uint64_t handle;
  int mode;
};

struct TlsQuery {
  const link_map* map;
  std::uintptr_t data;
  std::size_t size;
  std::size_t modid;
};

int find_tls(struct dl_phdr_info* info, std::size_t, void* arg) {
  auto* q = static_cast<TlsQuery*>(arg);
  if (info->dlpi_addr != q->map->l_addr || !info->dlpi_name || std::strcmp(info->dlpi_name, q->map->l_name) != 0)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_TLS) q->size = info->dlpi_phdr[i].p_memsz;
  q->data = reinterpret_cast<std::uintptr_t>(info->dlpi_tls_data);
  q->modid = info->dlpi_tls_modid;
  return 1;
}

std::uintptr_t thread_pointer() {
  std::uintptr_t tp;
  asm("mov %%fs:0, %0" : "=r"(tp));
  return tp;
}

// A TLS block in the static TLS area (just below the thread pointer) is at a fixed offset that
// a restore can check; one glibc allocated on first use (__tls_get_addr) is reached only through
// the thread's DTV, which a fresh process rebuilds.
bool in_static_tls(std::uintptr_t addr, std::size_t size) {
  if (!g_static_tls_info) return false;
  std::size_t static_size = 0, align = 0;
  g_static_tls_info(&static_size, &align);
  const std::uintptr_t tp = thread_pointer();
  return addr >= tp - static_size && addr + size <= tp;
}

template <typename... Args>
void add_line(bool report, const char* fmt, Args... args) {
  if (!report) return;
  char line[kLibPathMax + 200];
  std::snprintf(line, sizeof line, fmt, args...);
  refusal_add(line);
}

// Reorders g_table so that every library comes before the ones it needs: the restore places the
// table from its end, so each library's dependencies are in place before ld.so loads it (else ld.so
// maps them wherever the placement left room, or nowhere). Load order is not enough: ld.so loads a
// module's dependencies breadth first, so a dependency of a dependency can come before the library
// that needs it (numpy: libblas.so.3 before liblapack.so.3, which needs it).
void order_dependencies_last() {
  const std::uint32_t n = g_table.count;
  static LibRecord sorted[kMaxLibraries];
  static int state[kMaxLibraries];  // 0 new, 1 in progress, 2 done
  std::uint32_t done = 0;
  std::memset(state, 0, sizeof state);
  // Post-order: dependencies first; a cycle (not possible between ELF objects' DT_NEEDED in
  // practice) just stops the descent.
  auto visit = [&](auto& self, std::uint32_t i) -> void {
    if (state[i]) return;
    state[i] = 1;
    for (const std::string& name : needed_libraries(g_table.libs[i].path)) {
      const link_map* dep = loaded(name.c_str());
      if (!dep || !dep->l_name) continue;
      for (std::uint32_t j = 0; j < n; ++j)
        if (j != i && std::strcmp(g_table.libs[j].path, dep->l_name) == 0) self(self, j);
    }
    state[i] = 2;
    sorted[done++] = g_table.libs[i];
  };
  for (std::uint32_t i = 0; i < n; ++i) visit(visit, i);
  for (std::uint32_t k = 0; k < n; ++k) g_table.libs[k] = sorted[n - 1 - k];
}

// Fills g_table; with `report`, every problem is a refusal line. False if there is one.
bool collect(bool report) {
  std::memset(&g_table, 0, sizeof g_table);
  std::memcpy(g_table.magic, kLibrariesMagic, sizeof g_table.magic);
  g_table.size = sizeof g_table;
  static DlopenRequest requests[kMaxDlopenRequests];
  static Found found[kMaxLibraries + 1];
  int nfound = 0;
  bool ok = true;
  auto add = [&](link_map* map, std::uint64_t handle, int mode) {
    if (!map || !map->l_name || !map->l_name[0] || loaded_before_main(map)) return;
    for (int i = 0; i < nfound; ++i)
      if (found[i].map == map) {
        if (handle && !found[i].handle) found[i].handle = handle, found[i].mode = mode;
        return;
      }
    if (nfound == kMaxLibraries) {
      if (ok)
        add_line(report, "the application loaded more than %d libraries after start (%s...), which is not carried",
                 kMaxLibraries, map->l_name);
      ok = false;
      return;
    }
    found[nfound++] = {map, handle, mode};
  };
  if (dlopen_requests_overflowed()) {
    add_line(report, "the application made more than %d dlopen requests, which is not carried", kMaxDlopenRequests);
    ok = false;
  }
  const int nreq = dlopen_requests(requests, kMaxDlopenRequests);
  for (int i = 0; i < nreq; ++i) {
    link_map* map = loaded(requests[i].name);
    add(map, reinterpret_cast<std::uint64_t>(map), requests[i].mode);  // the handle is the link_map
  }
  // The dependencies loaded with them (a dependency loaded before main is already in place).
  for (int i = 0; i < nfound; ++i)
    for (const std::string& name : needed_libraries(found[i].map->l_name)) add(loaded(name.c_str()), 0, 0);

  // In load order: the link maps' chain.
  for (link_map* m = _r_debug.r_map; m; m = m->l_next) {
    int i = 0;
    while (i < nfound && found[i].map != m) ++i;
    if (i == nfound) continue;
    LibRecord& r = g_table.libs[g_table.count++];
    std::snprintf(r.path, sizeof r.path, "%s", m->l_name);
    r.base = m->l_addr;
    r.handle = found[i].handle;
    r.mode = found[i].mode;
    r.opens = r.handle ? dl_open_count(m) : 0;
    if (r.handle && r.opens == 0) {
      add_line(
          report,
          "the open count of library %s cannot be read (glibc's link map is not as expected), which is not carried",
          r.path);
      ok = false;
    }
    if (m->l_name[0] != '/' || std::strlen(m->l_name) >= kLibPathMax) {
      add_line(report, "library %s was loaded by the application without an absolute path, which is not carried",
               m->l_name);
      ok = false;
      continue;
    }
    ExeLayout layout;
    std::string error;
    std::uint64_t hash = 0;
    if (!read_object_layout(r.path, r.base, layout, error) || !file_hash(r.path, r.base, hash)) {
      add_line(report, "library %s, loaded by the application after start, cannot be read, which is not carried",
               r.path);
      ok = false;
      continue;
    }
    r.lo = layout.span.lo;
    r.hi = layout.span.hi;
    r.hash = hash;
    TlsQuery q{m, 0, 0, 0};
    dl_iterate_phdr(find_tls, &q);
    // An initial-exec library's block: dl_iterate_phdr may not know it (its code reaches it
    // through %fs, not the DTV), glibc's __tls_get_addr does without allocating.
    if (q.size && layout.static_tls) q.data = static_tls_block(q.modid);
    if (q.size && q.data) {
      if (layout.static_tls && in_static_tls(q.data, q.size))
        r.tls_kind = LibTls::static_block;
      else if (in_arena(reinterpret_cast<const void*>(q.data)) &&
               in_arena(reinterpret_cast<const void*>(q.data + q.size - 1)))
        r.tls_kind = LibTls::dynamic_in_arena;
      else {
        add_line(report,
                 "library %s has thread-local storage that glibc allocated inside a library call, which is not "
                 "carried",
                 r.path);
        ok = false;
        continue;
      }
      r.tls_addr = q.data;
      r.tls_size = q.size;
    }
  }
  order_dependencies_last();
  return ok;
}

void check() { collect(true); }

__attribute__((constructor(101))) void init() {
  g_static_tls_info = reinterpret_cast<StaticTlsInfo>(dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info"));
  dlerror();
  register_refusal_check(check);
}

}  // namespace

const LibTable& application_loaded_libraries() { return g_table; }

bool capture_library_table(AreaSink& sink) {
  collect(false);  // the refusal check ran just before: nothing is missing now
  if (g_table.count == 0) return true;
  return sink.area(AreaKind::libraries, 0, sizeof g_table, 0, "libraries loaded after start", &g_table);
}

namespace {
// libgfortran's data is library state wherever libgfortran came from (a dlopen'ed Fortran library
// brings it after start): its unit table points into blocks of the old process's heap, so a
// restart places the library back with its fresh data, and fortran_units.cpp reconnects the units
// and re-seeds the generator there, as when libgfortran came with the program.
bool data_is_library_state(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return std::strncmp(slash ? slash + 1 : path, "libgfortran.so", 14) == 0;
}
}  // namespace

bool capture_library_contents(AreaSink& sink) {
  for (std::uint32_t i = 0; i < g_table.count; ++i) {
    const LibRecord& r = g_table.libs[i];
    ExeLayout layout;
    std::string error;
    if (!read_object_layout(r.path, r.base, layout, error)) return false;
    if (data_is_library_state(r.path)) continue;
    for (const Range& piece : subtract(layout.writable, layout.excluded))
      if (!sink.area(AreaKind::libraries, piece.lo, piece.hi - piece.lo, kRW, "library data",
                     reinterpret_cast<const void*>(piece.lo)))
        return false;
    if (r.tls_kind == LibTls::static_block && !sink.area(AreaKind::library_tls, r.tls_addr, r.tls_size, kRW,
                                                         "library TLS", reinterpret_cast<const void*>(r.tls_addr)))
      return false;
  }
  return true;
}

}  // namespace yadokari::memory
