#include "checkpoint/memory/src/exe_layout.hpp"

#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cstring>

#include "checkpoint/memory/src/mapped_file.hpp"

namespace yadokari::memory {
namespace {

constexpr std::uintptr_t kPageMask = 4095;

int first_object(struct dl_phdr_info* info, std::size_t, void* out) {
  *static_cast<std::uintptr_t*>(out) = info->dlpi_addr;
  return 1;  // the executable is always the first entry
}

int first_tls(struct dl_phdr_info* info, std::size_t, void* out) {
  auto* r = static_cast<std::uintptr_t*>(out);
  r[0] = reinterpret_cast<std::uintptr_t>(info->dlpi_tls_data);
  r[1] = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_TLS) r[1] = info->dlpi_phdr[i].p_memsz;
  return 1;
}

struct Elf {
  const MappedFile& f;
  const Elf64_Ehdr* eh = nullptr;
  const Elf64_Phdr* ph = nullptr;

  // File offset of a virtual address inside a PT_LOAD's file-backed part.
  bool offset_of(std::uint64_t vaddr, std::uint64_t len, std::size_t& off) const {
    for (int i = 0; i < eh->e_phnum; ++i) {
      const Elf64_Phdr& p = ph[i];
      if (p.p_type == PT_LOAD && vaddr >= p.p_vaddr && vaddr + len <= p.p_vaddr + p.p_filesz) {
        off = vaddr - p.p_vaddr + p.p_offset;
        return f.at(off, len) != nullptr;
      }
    }
    return false;
  }
};

void add_sections(const Elf& e, std::uintptr_t bias, ExeLayout& out) {
  const Elf64_Ehdr* eh = e.eh;
  if (!eh->e_shoff || !eh->e_shnum || eh->e_shstrndx >= eh->e_shnum) return;
  auto* sh = static_cast<const Elf64_Shdr*>(e.f.at(eh->e_shoff, sizeof(Elf64_Shdr) * eh->e_shnum));
  if (!sh) return;
  const Elf64_Shdr& strs = sh[eh->e_shstrndx];
  auto* names = static_cast<const char*>(e.f.at(strs.sh_offset, strs.sh_size));
  if (!names) return;
  for (int i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_name >= strs.sh_size || !sh[i].sh_addr || !sh[i].sh_size) continue;
    const char* n = names + sh[i].sh_name;
    if (std::strcmp(n, ".got") == 0 || std::strcmp(n, ".got.plt") == 0)
      out.excluded.push_back({bias + sh[i].sh_addr, bias + sh[i].sh_addr + sh[i].sh_size, n});
  }
}

void add_dynamic(const Elf& e, const Elf64_Phdr& dynph, std::uintptr_t bias, ExeLayout& out) {
  auto* dyn = static_cast<const Elf64_Dyn*>(e.f.at(dynph.p_offset, dynph.p_filesz));
  if (!dyn) return;
  std::uint64_t rela = 0, relasz = 0, relaent = sizeof(Elf64_Rela), symtab = 0, strtab = 0, strsz = 0, pltgot = 0,
                pltrelsz = 0;
  for (std::size_t i = 0; i < dynph.p_filesz / sizeof(Elf64_Dyn) && dyn[i].d_tag != DT_NULL; ++i) {
    switch (dyn[i].d_tag) {
      case DT_RELA:
        rela = dyn[i].d_un.d_ptr;
        break;
      case DT_RELASZ:
        relasz = dyn[i].d_un.d_val;
        break;
      case DT_RELAENT:
        relaent = dyn[i].d_un.d_val;
        break;
      case DT_SYMTAB:
        symtab = dyn[i].d_un.d_ptr;
        break;
      case DT_STRTAB:
        strtab = dyn[i].d_un.d_ptr;
        break;
      case DT_STRSZ:
        strsz = dyn[i].d_un.d_val;
        break;
      case DT_PLTGOT:
        pltgot = dyn[i].d_un.d_ptr;
        break;
      case DT_PLTRELSZ:
        pltrelsz = dyn[i].d_un.d_val;
        break;
      case DT_FLAGS:
        out.static_tls = (dyn[i].d_un.d_val & DF_STATIC_TLS) != 0;
        break;
      default:
        break;
    }
  }
  // The lazy-binding GOT, in case the section headers were stripped: 3 reserved slots + one
  // per PLT relocation.
  if (pltgot)
    out.excluded.push_back({bias + pltgot, bias + pltgot + 8 * (3 + pltrelsz / sizeof(Elf64_Rela)), "GOT (DT_PLTGOT)"});
  if (!rela || !relasz || !symtab || !strtab || relaent != sizeof(Elf64_Rela)) return;
  std::size_t rela_off = 0, str_off = 0, sym_off = 0;
  if (!e.offset_of(rela, relasz, rela_off) || !e.offset_of(strtab, strsz, str_off) ||
      !e.offset_of(symtab, sizeof(Elf64_Sym), sym_off))
    return;
  auto* rel = static_cast<const Elf64_Rela*>(e.f.at(rela_off, relasz));
  auto* str = static_cast<const char*>(e.f.at(str_off, strsz));
  for (std::size_t i = 0; i < relasz / sizeof(Elf64_Rela); ++i) {
    if (ELF64_R_TYPE(rel[i].r_info) != R_X86_64_COPY) continue;
    auto* sym = static_cast<const Elf64_Sym*>(
        e.f.at(sym_off + ELF64_R_SYM(rel[i].r_info) * sizeof(Elf64_Sym), sizeof(Elf64_Sym)));
    if (!sym) continue;
    std::string name = sym->st_name < strsz ? str + sym->st_name : "?";
    out.excluded.push_back({bias + rel[i].r_offset, bias + rel[i].r_offset + sym->st_size, name + " (copy reloc)"});
  }
}

}  // namespace

std::uintptr_t exe_bias() {
  std::uintptr_t bias = 0;
  dl_iterate_phdr(first_object, &bias);
  return bias;
}

void exe_tls_block(std::uintptr_t& addr, std::size_t& size) {
  std::uintptr_t r[2] = {0, 0};
  dl_iterate_phdr(first_tls, r);
  addr = r[1] ? r[0] : 0;
  size = addr ? r[1] : 0;
}

bool read_exe_layout(ExeLayout& out, std::string& error) {
  return read_object_layout("/proc/self/exe", exe_bias(), out, error);
}

bool read_object_layout(const char* path, std::uintptr_t bias, ExeLayout& out, std::string& error) {
  out = ExeLayout{};
  MappedFile f(path);
  auto* eh = static_cast<const Elf64_Ehdr*>(f.at(0, sizeof(Elf64_Ehdr)));
  if (!eh || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_machine != EM_X86_64) {
    error = std::string("cannot read ") + path + " as an x86-64 ELF file";
    return false;
  }
  auto* ph = static_cast<const Elf64_Phdr*>(f.at(eh->e_phoff, sizeof(Elf64_Phdr) * eh->e_phnum));
  if (!ph) {
    error = std::string(path) + " has no program headers";
    return false;
  }
  Elf e{f, eh, ph};
  out.bias = bias;
  for (int i = 0; i < eh->e_phnum; ++i) {
    const Elf64_Phdr& p = ph[i];
    if (p.p_type == PT_LOAD && p.p_memsz) {
      const std::uintptr_t lo = out.bias + (p.p_vaddr & ~kPageMask);
      const std::uintptr_t hi = out.bias + ((p.p_vaddr + p.p_memsz + kPageMask) & ~kPageMask);
      out.span = out.span.hi ? Range{std::min(out.span.lo, lo), std::max(out.span.hi, hi)} : Range{lo, hi};
    }
    if (p.p_type == PT_LOAD && (p.p_flags & PF_W) && p.p_memsz)
      out.writable.push_back({out.bias + p.p_vaddr, out.bias + p.p_vaddr + p.p_memsz});
    else if (p.p_type == PT_GNU_RELRO && p.p_memsz)
      out.excluded.push_back({out.bias + p.p_vaddr, out.bias + p.p_vaddr + p.p_memsz, "RELRO"});
    else if (p.p_type == PT_TLS)
      out.tls_memsz = p.p_memsz;
    else if (p.p_type == PT_DYNAMIC)
      add_dynamic(e, p, out.bias, out);
  }
  add_sections(e, out.bias, out);
  return true;
}

std::vector<std::string> needed_libraries(const char* path) {
  std::vector<std::string> names;
  MappedFile f(path);
  auto* eh = static_cast<const Elf64_Ehdr*>(f.at(0, sizeof(Elf64_Ehdr)));
  if (!eh || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) return names;
  auto* ph = static_cast<const Elf64_Phdr*>(f.at(eh->e_phoff, sizeof(Elf64_Phdr) * eh->e_phnum));
  if (!ph) return names;
  Elf e{f, eh, ph};
  for (int i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type != PT_DYNAMIC) continue;
    auto* dyn = static_cast<const Elf64_Dyn*>(f.at(ph[i].p_offset, ph[i].p_filesz));
    if (!dyn) return names;
    const std::size_t n = ph[i].p_filesz / sizeof(Elf64_Dyn);
    std::uint64_t strtab = 0, strsz = 0;
    for (std::size_t j = 0; j < n && dyn[j].d_tag != DT_NULL; ++j) {
      if (dyn[j].d_tag == DT_STRTAB) strtab = dyn[j].d_un.d_ptr;
      if (dyn[j].d_tag == DT_STRSZ) strsz = dyn[j].d_un.d_val;
    }
    std::size_t str_off = 0;
    if (!strtab || !e.offset_of(strtab, strsz, str_off)) return names;
    auto* str = static_cast<const char*>(f.at(str_off, strsz));
    for (std::size_t j = 0; j < n && dyn[j].d_tag != DT_NULL; ++j)
      if (dyn[j].d_tag == DT_NEEDED && dyn[j].d_un.d_val < strsz)
        names.emplace_back(str + dyn[j].d_un.d_val, strnlen(str + dyn[j].d_un.d_val, strsz - dyn[j].d_un.d_val));
  }
  return names;
}

std::vector<Range> subtract(const std::vector<Range>& from, const std::vector<NamedRange>& minus) {
  std::vector<Range> cut;
  for (const auto& m : minus)
    if (m.hi > m.lo) cut.push_back({m.lo, m.hi});
  std::sort(cut.begin(), cut.end(), [](const Range& a, const Range& b) { return a.lo < b.lo; });
  std::vector<Range> out;
  for (Range r : from) {
    std::uintptr_t at = r.lo;
    for (const Range& c : cut) {
      if (c.hi <= at || c.lo >= r.hi) continue;
      if (c.lo > at) out.push_back({at, c.lo});
      at = std::max(at, c.hi);
    }
    if (at < r.hi) out.push_back({at, r.hi});
  }
  std::sort(out.begin(), out.end(), [](const Range& a, const Range& b) { return a.lo < b.lo; });
  return out;
}

}  // namespace yadokari::memory
