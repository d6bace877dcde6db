// The executable's calls of mmap, munmap and mremap must reach this layer, which records the
// application's own mappings (mmap_interpose.cpp). UCX's memory hooks in their relocation mode
// (libucm, under MPICH here) rewrite the GOT entries of the loaded objects for these functions so
// that they go to UCX and from there to libc: the application's mappings would then silently not
// be recorded nor carried. `yadokari run` sets UCX_MEM_MMAP_HOOK_MODE=none, a relinked application
// started by a plain launcher may not. So a checkpoint is refused while one of the executable's
// GOT entries for them holds neither this layer's function nor an address inside the executable
// (a lazily bound entry still points at its PLT stub) (checkpoint/memory/README.md, "Refused, with
// the reason").
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "checkpoint/memory/src/dynamic_tables.hpp"
#include "checkpoint/memory/src/loaded_libraries.hpp"
#include "checkpoint/memory/src/refusal.hpp"

namespace yadokari::memory {
namespace {

constexpr const char* kWatched[] = {"mmap", "mmap64", "munmap", "mremap"};

struct Exe {
  ElfW(Addr) base = 0;
  const ElfW(Phdr) * phdr = nullptr;
  int phnum = 0;
  bool found = false;
};

int first_object(struct dl_phdr_info* info, std::size_t, void* arg) {
  auto* exe = static_cast<Exe*>(arg);
  *exe = {info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum, true};
  return 1;  // the executable comes first
}

bool inside(const Exe& exe, std::uintptr_t address) {
  for (int i = 0; i < exe.phnum; ++i) {
    const ElfW(Phdr)& ph = exe.phdr[i];
    if (ph.p_type == PT_LOAD && address >= exe.base + ph.p_vaddr && address < exe.base + ph.p_vaddr + ph.p_memsz)
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

void check_table(const Exe& exe, const ElfW(Rela) * table, std::size_t bytes, const ElfW(Sym) * symtab,
                 const char* strtab) {
  for (std::size_t i = 0; table && i < bytes / sizeof(ElfW(Rela)); ++i) {
    const auto type = ELF64_R_TYPE(table[i].r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    const char* name = strtab + symtab[ELF64_R_SYM(table[i].r_info)].st_name;
    bool watched = false;
    for (const char* w : kWatched) watched = watched || std::strcmp(name, w) == 0;
    if (!watched) continue;
    const auto value = *reinterpret_cast<const std::uintptr_t*>(exe.base + table[i].r_offset);
    if (value == ours(name) || inside(exe, value)) continue;
    Dl_info where{};
    const char* object = dladdr(reinterpret_cast<void*>(value), &where) && where.dli_fname ? where.dli_fname : "?";
    char line[700];
    std::snprintf(line, sizeof line,
                  "the executable's calls of %s go to %s, past the layer that records its mappings (UCX's memory "
                  "hooks do this: set UCX_MEM_MMAP_HOOK_MODE=none), which is not carried",
                  name, object);
    refusal_add(line);
  }
}

void check() {
  Exe exe;
  dl_iterate_phdr(first_object, &exe);
  if (!exe.found) return;
  const DynamicTables t = dynamic_tables(exe.base, exe.phdr, exe.phnum);
  if (!t.symtab || !t.strtab) return;
  check_table(exe, t.plt_relocs, t.plt_relocs_bytes, t.symtab, t.strtab);
  check_table(exe, t.relocs, t.relocs_bytes, t.symtab, t.strtab);
}

__attribute__((constructor)) void register_check() { register_refusal_check(check); }

}  // namespace
}  // namespace yadokari::memory
