// The application's library handles after a restore (loaded_libraries.hpp): a handle is the
// link_map ld.so allocated for the library, and the library loaded again at its address gets a
// new one elsewhere. The old value the application kept is translated to the new one by the
// calls that take a handle: dlsym and dlvsym (assembly stubs, dlsym_stub_x86_64.S, because glibc
// needs its caller's address), dlclose and dlinfo (which do not look at their caller).
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstring>

#include "common/export.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/dynamic_tables.hpp"
#include "checkpoint/memory/src/loaded_libraries.hpp"

extern "C" {
void* (*yk_real_dlsym)(void*, const char*);                // glibc's dlsym and dlvsym, the stubs' jump targets
void* (*yk_real_dlvsym)(void*, const char*, const char*);  // (both resolved before the first call is let through)
void* yk_translate_dl_handle(void* handle);
}

namespace yadokari::memory {
namespace {

struct Real {
  int (*dlclose)(void*);
  int (*dlinfo)(void*, int, void*);
} g_real_dl;

// libc's own definition of a symbol, looked up in its dynamic symbol table (GNU hash): dlsym and
// dlvsym are interposed here, so neither can find the other. Every version of the name is the same
// code in glibc >= 2.34, so the first match does.
struct LibcSymbol {
  const char* name;
  void* address;
};

std::uint32_t gnu_hash(const char* s) {
  std::uint32_t h = 5381;
  for (; *s; ++s) h = h * 33 + static_cast<unsigned char>(*s);
  return h;
}

int find_in_libc(struct dl_phdr_info* info, std::size_t, void* arg) {
  const char* slash = info->dlpi_name ? std::strrchr(info->dlpi_name, '/') : nullptr;
  if (!slash || std::strcmp(slash + 1, "libc.so.6") != 0) return 0;
  auto* want = static_cast<LibcSymbol*>(arg);
  const DynamicTables t = dynamic_tables(info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum);
  const ElfW(Sym)* symtab = t.symtab;
  const char* strtab = t.strtab;
  const std::uint32_t* table = t.gnu_hash;
  if (!symtab || !strtab || !table) return 1;
  const std::uint32_t nbuckets = table[0], symoffset = table[1], bloom_words = table[2];
  const auto* buckets =
      reinterpret_cast<const std::uint32_t*>(reinterpret_cast<const ElfW(Addr)*>(table + 4) + bloom_words);
  const std::uint32_t* chain = buckets + nbuckets;
  const std::uint32_t h = gnu_hash(want->name);
  for (std::uint32_t i = buckets[h % nbuckets]; i >= symoffset; ++i) {
    const std::uint32_t h2 = chain[i - symoffset];
    if ((h | 1) == (h2 | 1) && std::strcmp(strtab + symtab[i].st_name, want->name) == 0 && symtab[i].st_value) {
      want->address = reinterpret_cast<void*>(info->dlpi_addr + symtab[i].st_value);
      break;
    }
    if (h2 & 1) break;
  }
  return 1;
}

void* libc_symbol(const char* name) {
  LibcSymbol want{name, nullptr};
  dl_iterate_phdr(find_in_libc, &want);
  return want.address;
}

// The stubs run before any constructor may have (other constructors call dlsym): resolved on the
// first call.
void resolve_dlsym() {
  if (yk_real_dlsym) return;
  auto dlvsym_real = reinterpret_cast<void* (*)(void*, const char*, const char*)>(libc_symbol("dlvsym"));
  auto dlsym_real = reinterpret_cast<void* (*)(void*, const char*)>(libc_symbol("dlsym"));
  if (!dlsym_real || !dlvsym_real) fatal("cannot resolve libc's dlsym and dlvsym");
  yk_real_dlvsym = dlvsym_real;
  yk_real_dlsym = dlsym_real;
}

__attribute__((constructor(101))) void resolve() {
  resolve_dlsym();
  if (g_real_dl.dlinfo) return;
  g_real_dl.dlclose = reinterpret_cast<int (*)(void*)>(yk_real_dlsym(RTLD_NEXT, "dlclose"));
  g_real_dl.dlinfo = reinterpret_cast<int (*)(void*, int, void*)>(yk_real_dlsym(RTLD_NEXT, "dlinfo"));
  if (!g_real_dl.dlclose || !g_real_dl.dlinfo) fatal("cannot resolve libc's dlclose/dlinfo");
}

const Real& real() {
  if (!g_real_dl.dlinfo) resolve();
  return g_real_dl;
}

}  // namespace
}  // namespace yadokari::memory

using namespace yadokari::memory;

// Called by the stub: must leave errno and dlerror's state alone (it only reads a table).
extern "C" void* yk_translate_dl_handle(void* handle) {
  resolve_dlsym();
  return translate_dl_handle(handle);
}

YK_C_API int dlclose(void* handle) noexcept { return real().dlclose(translate_dl_handle(handle)); }

YK_C_API int dlinfo(void* __restrict handle, int request, void* __restrict arg) noexcept {
  return real().dlinfo(translate_dl_handle(handle), request, arg);
}
