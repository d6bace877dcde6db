// The restore of libraries loaded after start (loaded_libraries.hpp): each loaded again at its
// recorded address before anything is overwritten, the destinations of their areas, and the
// translation of the application's old handles.
#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "checkpoint/memory/src/dl_open_counts.hpp"
#include "checkpoint/memory/src/exe_layout.hpp"
#include "checkpoint/memory/src/library_placement.hpp"
#include "checkpoint/memory/src/library_tls.hpp"
#include "checkpoint/memory/src/loaded_libraries.hpp"
#include "checkpoint/memory/src/mapped_file.hpp"

namespace yadokari::memory {
namespace {

constexpr int kMaxPieces = 8;  // writable pieces of one library (minus RELRO and the GOT)

struct Placed {
  void* handle;  // our reference: the application's for a requested library
  Range data[kMaxPieces];
  int pieces;
};

LibTable g_incoming;  // .bss: the restore's stack is about to be overwritten
Placed g_placed[kMaxLibraries];
int g_placed_count;           // libraries of g_incoming placed (from the last one down)
bool g_done;                  // all placed: their areas may be written
std::atomic<bool> g_placing;  // inside the loop that loads them again (placing_library_at)

struct Translation {
  std::uint64_t old_handle;
  void* handle;
};
Translation g_translations[kMaxLibraries];
int g_translation_count;

unsigned long long ull(std::uint64_t v) { return static_cast<unsigned long long>(v); }

struct TlsQuery {
  std::uintptr_t base;
  const char* path;
  std::uintptr_t data;
  std::size_t size;
  std::size_t modid;
};

int find_tls(struct dl_phdr_info* info, std::size_t, void* arg) {
  auto* q = static_cast<TlsQuery*>(arg);
  if (info->dlpi_addr != q->base || !info->dlpi_name || std::strcmp(info->dlpi_name, q->path) != 0) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_TLS) q->size = info->dlpi_phdr[i].p_memsz;
  q->data = reinterpret_cast<std::uintptr_t>(info->dlpi_tls_data);
  q->modid = info->dlpi_tls_modid;
  return 1;
}

void undo() {
  for (int i = kMaxLibraries - g_placed_count; i < kMaxLibraries; ++i)
    if (g_placed[i].handle) dlclose(g_placed[i].handle);
  std::memset(g_placed, 0, sizeof g_placed);
  g_placed_count = 0;
  g_translation_count = 0;
}

bool fail(char* why, std::size_t why_len, const char* fmt, const char* path, std::uint64_t a = 0, std::uint64_t b = 0) {
  std::snprintf(why, why_len, fmt, path, ull(a), ull(b));
  undo();
  return false;
}

bool well_formed(const LibRecord& r) {
  return r.path[0] == '/' && std::memchr(r.path, 0, sizeof r.path) && r.lo < r.hi && r.lo % 4096 == 0 &&
         r.hi % 4096 == 0;
}

// One library at its address, or one line. Already loaded (code before the restore point loaded
// it again, e.g. Python's import of the MPI module): it must be where it was.
bool place(const LibRecord& r, Placed& p, char* why, std::size_t why_len) {
  {
    // Unmapped again before the placement: the file's own mapping would take the library's place.
    MappedFile f(r.path);
    if (!f.ok())
      return fail(why, why_len, "library %s, loaded by the application when the checkpoint was taken, cannot be opened",
                  r.path);
    if (XXH3_64bits(f.data(), f.size()) != r.hash)
      return fail(why, why_len, "library %s changed since the checkpoint", r.path);
  }
  void* handle = real_dlopen(r.path, RTLD_NOLOAD | RTLD_LAZY);
  if (handle) {
    link_map* map = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || map->l_addr != r.base) {
      dlclose(handle);
      return fail(why, why_len, "library %s is loaded at %#llx in this process, not at %#llx as at the checkpoint",
                  r.path, map ? map->l_addr : 0, r.base);
    }
  } else {
    dlerror();
    const int mode = r.handle ? r.mode : RTLD_LAZY;
    if (!place_library(r.path, mode, r.lo, r.hi, r.base, handle, why, why_len)) return undo(), false;
  }
  p.handle = handle;
  if (r.tls_kind != LibTls::none) {
    TlsQuery q{r.base, r.path, 0, 0, 0};
    dl_iterate_phdr(find_tls, &q);
    if (q.size != r.tls_size)
      return fail(why, why_len, "library %s has thread-local storage of another size than at the checkpoint", r.path);
    if (r.tls_kind == LibTls::static_block && static_tls_block(q.modid) != r.tls_addr)
      return fail(why, why_len, "library %s has its thread-local storage at %#llx in this process, not at %#llx",
                  r.path, static_tls_block(q.modid), r.tls_addr);
    if (r.tls_kind == LibTls::dynamic_in_arena && !repoint_dynamic_tls(q.modid, r.tls_addr))
      return fail(why, why_len, "library %s's thread-local storage cannot be given back to this thread", r.path);
  }
  ExeLayout layout;
  std::string error;
  if (!read_object_layout(r.path, r.base, layout, error))
    return fail(why, why_len, "library %s cannot be read as an ELF file", r.path);
  for (const Range& piece : subtract(layout.writable, layout.excluded)) {
    if (p.pieces == kMaxPieces)
      return fail(why, why_len, "library %s has more writable pieces than a restore handles", r.path);
    p.data[p.pieces++] = piece;
  }
  return true;
}

}  // namespace

bool place_libraries(const void* data, std::size_t len, char* why, std::size_t why_len) {
  if (len != sizeof g_incoming) return std::snprintf(why, why_len, "the image's library table is malformed"), false;
  std::memcpy(&g_incoming, data, sizeof g_incoming);
  if (std::memcmp(g_incoming.magic, kLibrariesMagic, sizeof g_incoming.magic) != 0 ||
      g_incoming.size != sizeof g_incoming || g_incoming.count > kMaxLibraries)
    return std::snprintf(why, why_len, "the image's library table is malformed"), false;
  for (std::uint32_t i = 0; i < g_incoming.count; ++i)
    if (!well_formed(g_incoming.libs[i]))
      return std::snprintf(why, why_len, "the image's library table is malformed"), false;
  // Dependencies first: the table puts every library before the ones it needs (library_table.cpp).
  // g_placed is filled from its end so that undo() releases in the reverse order of loading.
  {
    // The constructors run on a helper thread (library_placement.cpp), hence a global flag.
    struct Placing {
      Placing() { g_placing.store(true, std::memory_order_release); }
      ~Placing() { g_placing.store(false, std::memory_order_release); }
    } placing;
    for (std::uint32_t n = g_incoming.count; n-- > 0;) {
      Placed& p = g_placed[kMaxLibraries - 1 - g_placed_count];
      std::memset(&p, 0, sizeof p);
      if (!place(g_incoming.libs[n], p, why, why_len)) return false;
      ++g_placed_count;
      if (g_incoming.libs[n].handle) g_translations[g_translation_count++] = {g_incoming.libs[n].handle, p.handle};
    }
  }
  // Our references to dependencies go: what needed them holds them now, as in the first run.
  // The requested libraries keep ours, which stands for the application's.
  static DlopenRequest requests[kMaxLibraries];
  int nrequests = 0;
  for (int k = 0; k < g_placed_count; ++k) {
    const LibRecord& r = g_incoming.libs[g_incoming.count - 1 - static_cast<std::uint32_t>(k)];
    Placed& p = g_placed[kMaxLibraries - 1 - k];
    if (r.handle) {
      // Ours stands for one of the application's references; the others are taken again.
      if (r.opens > 1 && !reopen_to_count(p.handle, r.path, r.mode, r.opens))
        return fail(why, why_len,
                    "library %s was open %llu times at the checkpoint and cannot be opened as often again", r.path,
                    r.opens);
      std::snprintf(requests[nrequests].name, sizeof requests[nrequests].name, "%s", r.path);
      requests[nrequests++].mode = r.mode;
    } else {
      dlclose(p.handle);
      p.handle = nullptr;
    }
  }
  replace_dlopen_requests(requests, nrequests);
  g_done = true;
  return true;
}

void* library_destination(AreaKind kind, std::uint64_t addr, std::uint64_t len) {
  if (!g_done || addr + len < addr) return nullptr;
  for (int k = 0; k < g_placed_count; ++k) {
    const LibRecord& r = g_incoming.libs[g_incoming.count - 1 - static_cast<std::uint32_t>(k)];
    const Placed& p = g_placed[kMaxLibraries - 1 - k];
    if (kind == AreaKind::library_tls && r.tls_kind == LibTls::static_block && addr == r.tls_addr && len == r.tls_size)
      return reinterpret_cast<void*>(addr);
    if (kind == AreaKind::libraries)
      for (int i = 0; i < p.pieces; ++i)
        if (addr >= p.data[i].lo && addr + len <= p.data[i].hi) return reinterpret_cast<void*>(addr);
  }
  return nullptr;
}

bool placing_library_at(std::uint64_t address) {
  if (!g_placing.load(std::memory_order_acquire)) return false;
  for (std::uint32_t i = 0; i < g_incoming.count; ++i)
    if (address >= g_incoming.libs[i].lo && address < g_incoming.libs[i].hi) return true;
  return false;
}

void* translate_dl_handle(void* handle) {
  const auto value = reinterpret_cast<std::uint64_t>(handle);
  for (int i = 0; i < g_translation_count; ++i)
    if (g_translations[i].old_handle == value) return g_translations[i].handle;
  return handle;
}

}  // namespace yadokari::memory
