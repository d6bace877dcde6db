// The application's calls of mmap, munmap and mremap must reach this layer, which records the
// application's own mappings (mmap_interpose.cpp). UCX's memory hooks in their relocation mode
// (libucm, under MPICH here) rewrite the GOT entries of the loaded objects for these functions so
// that they go to UCX and from there to libc: the application's mappings would then silently not
// be recorded nor carried. `yadokari run` sets UCX_MEM_MMAP_HOOK_MODE=none, a relinked application
// started by a plain launcher may not. So a checkpoint is refused while a GOT entry for them in
// the executable or in a library whose data is the application's (linked with it, or loaded by it
// after start) holds neither this layer's function nor an address inside that object (a lazily
// bound entry still points at its PLT stub) (checkpoint/memory/README.md, "Refused, with the
// reason").
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "checkpoint/memory/src/dynamic_tables.hpp"
#include "checkpoint/memory/src/identity.hpp"
#include "checkpoint/memory/src/linked_libraries.hpp"
#include "checkpoint/memory/src/loaded_libraries.hpp"
#include "checkpoint/memory/src/refusal.hpp"

namespace yadokari::memory {
namespace {

constexpr const char* kWatched[] = {"mmap", "mmap64", "munmap", "mremap"};

struct Object {
  ElfW(Addr) base = 0;
  const ElfW(Phdr) * phdr = nullptr;
  int phnum = 0;
  const char* name = nullptr;  // nullptr: the executable
};

struct Objects {
  Object list[kMaxObjects + kMaxLibraries];
  int count = 0;
  bool past_executable = false;
};

bool application_library(const dl_phdr_info* info) {
  if (is_carried_linked_library(info->dlpi_addr)) return true;
  const LibTable& loaded = application_loaded_libraries();
  for (std::uint32_t i = 0; i < loaded.count; ++i)
    if (loaded.libs[i].base == info->dlpi_addr) return true;
  return false;
}

int collect(struct dl_phdr_info* info, std::size_t, void* arg) {
  auto* objects = static_cast<Objects*>(arg);
  const bool executable = !objects->past_executable;  // the executable comes first
  objects->past_executable = true;
  if (objects->count == static_cast<int>(std::size(objects->list)) || !(executable || application_library(info)))
    return 0;
  objects->list[objects->count++] = {info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum,
                                     executable ? nullptr : info->dlpi_name};
  return 0;
}

bool inside(const Object& object, std::uintptr_t address) {
  for (int i = 0; i < object.phnum; ++i) {
    const ElfW(Phdr)& ph = object.phdr[i];
    if (ph.p_type == PT_LOAD && address >= object.base + ph.p_vaddr && address < object.base + ph.p_vaddr + ph.p_memsz)
      return true;
  }
  return false;
}

// This layer's own definition of `name` (a lookup from the global scope could find libc's first
// when the shim is linked after it).
std::uintptr_t ours(const char* name) {
  Dl_info self{};
  if (!dladdr(reinterpret_cast<void*>(&ours), &self) || !self.dli_fname) return 0;
  void* handle = real_dlopen(self.dli_fname, RTLD_NOLOAD | RTLD_LAZY);
  if (!handle) return dlerror(), 0;
  const auto address = reinterpret_cast<std::uintptr_t>(dlsym(handle, name));
  dlclose(handle);
  return address;
}

void check_table(const Object& object, const ElfW(Rela) * table, std::size_t bytes, const ElfW(Sym) * symtab,
                 const char* strtab) {
  for (std::size_t i = 0; table && i < bytes / sizeof(ElfW(Rela)); ++i) {
    const auto type = ELF64_R_TYPE(table[i].r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    const char* name = strtab + symtab[ELF64_R_SYM(table[i].r_info)].st_name;
    bool watched = false;
    for (const char* w : kWatched) watched = watched || std::strcmp(name, w) == 0;
    if (!watched) continue;
    const auto value = *reinterpret_cast<const std::uintptr_t*>(object.base + table[i].r_offset);
    if (value == ours(name) || inside(object, value)) continue;
    Dl_info where{};
    const char* target = dladdr(reinterpret_cast<void*>(value), &where) && where.dli_fname ? where.dli_fname : "?";
    char line[1200];
    char caller[600];
    if (object.name)
      std::snprintf(caller, sizeof caller, "library %s's", object.name);
    else
      std::snprintf(caller, sizeof caller, "the executable's");
    std::snprintf(line, sizeof line,
                  "%s calls of %s go to %s, past the layer that records its mappings (UCX's memory "
                  "hooks do this: set UCX_MEM_MMAP_HOOK_MODE=none), which is not carried",
                  caller, name, target);
    refusal_add(line);
  }
}

void check() {
  static Objects objects;  // .bss: the capture's stack is about to be saved
  objects = Objects{};
  dl_iterate_phdr(collect, &objects);
  for (int i = 0; i < objects.count; ++i) {
    const Object& object = objects.list[i];
    const DynamicTables t = dynamic_tables(object.base, object.phdr, object.phnum);
    if (!t.symtab || !t.strtab) continue;
    check_table(object, t.plt_relocs, t.plt_relocs_bytes, t.symtab, t.strtab);
    check_table(object, t.relocs, t.relocs_bytes, t.symtab, t.strtab);
  }
}

__attribute__((constructor)) void register_check() { register_refusal_check(check); }

}  // namespace
}  // namespace yadokari::memory
