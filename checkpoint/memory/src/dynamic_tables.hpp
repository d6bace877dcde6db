#pragma once
// The tables of a loaded object's dynamic section (symbols, strings, GNU hash, relocations), found
// from its program headers as dl_iterate_phdr gives them. Used to find libc's own dlsym/dlvsym
// (dl_handles.cpp), to read the executable's GOT entries (mmap_diversion.cpp), and by the shim to
// point relocations at another copy of the MPI library (pmpi-layer/src/swap/relocation_rebind.cpp).
#include <elf.h>
#include <link.h>

#include <cstddef>
#include <cstdint>

namespace yadokari::memory {

struct DynamicTables {
  const ElfW(Sym) * symtab = nullptr;
  const char* strtab = nullptr;
  const std::uint32_t* gnu_hash = nullptr;
  const ElfW(Rela) * plt_relocs = nullptr;  // DT_JMPREL
  std::size_t plt_relocs_bytes = 0;
  const ElfW(Rela) * relocs = nullptr;  // DT_RELA
  std::size_t relocs_bytes = 0;
};

// Null members for what the object does not have.
DynamicTables dynamic_tables(ElfW(Addr) base, const ElfW(Phdr) * phdr, int phnum);
// The same from the dynamic section itself (a link_map's l_ld).
DynamicTables dynamic_tables(ElfW(Addr) base, const ElfW(Dyn) * dyn);

}  // namespace yadokari::memory
