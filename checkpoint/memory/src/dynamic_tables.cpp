// The tables of a loaded object's dynamic section: see dynamic_tables.hpp.
#include "checkpoint/memory/src/dynamic_tables.hpp"

namespace yadokari::memory {

DynamicTables dynamic_tables(ElfW(Addr) base, const ElfW(Phdr) * phdr, int phnum) {
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < phnum; ++i)
    if (phdr[i].p_type == PT_DYNAMIC) dyn = reinterpret_cast<const ElfW(Dyn)*>(base + phdr[i].p_vaddr);
  return dynamic_tables(base, dyn);
}

DynamicTables dynamic_tables(ElfW(Addr) base, const ElfW(Dyn) * dyn) {
  DynamicTables t;
  // ld.so has relocated these entries in place (a writable dynamic section); an unrelocated one is
  // an offset, smaller than the base.
  auto at = [&](ElfW(Addr) v) { return v < base ? v + base : v; };
  for (; dyn && dyn->d_tag != DT_NULL; ++dyn) {
    switch (dyn->d_tag) {
      case DT_SYMTAB:
        t.symtab = reinterpret_cast<const ElfW(Sym)*>(at(dyn->d_un.d_ptr));
        break;
      case DT_STRTAB:
        t.strtab = reinterpret_cast<const char*>(at(dyn->d_un.d_ptr));
        break;
      case DT_GNU_HASH:
        t.gnu_hash = reinterpret_cast<const std::uint32_t*>(at(dyn->d_un.d_ptr));
        break;
      case DT_JMPREL:
        t.plt_relocs = reinterpret_cast<const ElfW(Rela)*>(at(dyn->d_un.d_ptr));
        break;
      case DT_PLTRELSZ:
        t.plt_relocs_bytes = dyn->d_un.d_val;
        break;
      case DT_RELA:
        t.relocs = reinterpret_cast<const ElfW(Rela)*>(at(dyn->d_un.d_ptr));
        break;
      case DT_RELASZ:
        t.relocs_bytes = dyn->d_un.d_val;
        break;
      default:
        break;
    }
  }
  return t;
}

}  // namespace yadokari::memory
