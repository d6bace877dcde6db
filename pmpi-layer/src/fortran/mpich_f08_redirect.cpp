// MPICH's `use mpi_f08` bindings (libmpichfort) call the C PMPI_* functions directly for every
// function without a choice buffer (MPI_Init, MPI_Comm_split, MPI_Waitall, MPI_Barrier...); only
// the ones with a buffer (the `_f08ts_` entry points) call MPI_*. Through PMPI_* an application's
// call would bypass the shim: its virtual handles, the cut's gate, the drain and the object records.
// So when the shim is loaded, every GOT slot of libmpichfort that imports PMPI_X is pointed at
// MPI_X as the program itself would reach it (the shim's wrapper or fail-loudly stub): the f08
// layer then reaches the same entry points as MPICH's mpif.h/`use mpi` layer, with Fortran
// integers that are MPICH's (virtual) C handles. Done in a constructor, never lazily
// (docs/architecture.md, pitfall 8); a fresh process after a restart does it again, since the
// library's memory is never in an image. If it cannot be done the job stops with one line instead
// of running with calls the shim does not see.
#include "pmpi-layer/src/shim/api.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

constexpr const char kLibrary[] = "libmpichfort.so";

struct Tables {
  const ElfW(Sym) * symbols = nullptr;
  const char* strings = nullptr;
  const ElfW(Rela) * plt = nullptr;  // DT_JMPREL: JUMP_SLOT relocations
  std::size_t plt_bytes = 0;
  const ElfW(Rela) * other = nullptr;  // DT_RELA: GLOB_DAT relocations (calls through the GOT)
  std::size_t other_bytes = 0;
};

struct Outcome {
  bool found = false;
  int redirected = 0;
  const char* error = nullptr;  // why a slot could not be redirected
  const char* symbol = "";
};

// glibc relocates the dynamic section's addresses in place on x86-64; tolerate offsets too.
template <class T>
const T* at(const dl_phdr_info* info, ElfW(Addr) value) {
  return reinterpret_cast<const T*>(value >= info->dlpi_addr ? value : info->dlpi_addr + value);
}

Tables read_tables(const dl_phdr_info* info) {
  Tables t;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    const auto* dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    for (; dyn->d_tag != DT_NULL; ++dyn) {
      switch (dyn->d_tag) {
        case DT_SYMTAB:
          t.symbols = at<ElfW(Sym)>(info, dyn->d_un.d_ptr);
          break;
        case DT_STRTAB:
          t.strings = at<char>(info, dyn->d_un.d_ptr);
          break;
        case DT_JMPREL:
          t.plt = at<ElfW(Rela)>(info, dyn->d_un.d_ptr);
          break;
        case DT_PLTRELSZ:
          t.plt_bytes = dyn->d_un.d_val;
          break;
        case DT_RELA:
          t.other = at<ElfW(Rela)>(info, dyn->d_un.d_ptr);
          break;
        case DT_RELASZ:
          t.other_bytes = dyn->d_un.d_val;
          break;
        default:
          break;
      }
    }
  }
  return t;
}

// The slot may lie in the RELRO part of the GOT, read-only once relocated.
bool write_slot(void** slot, void* value) {
  const long page = sysconf(_SC_PAGESIZE);
  auto* start =
      reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(slot) & ~static_cast<std::uintptr_t>(page - 1));
  if (mprotect(start, static_cast<std::size_t>(page), PROT_READ | PROT_WRITE) != 0) return false;
  __atomic_store_n(slot, value, __ATOMIC_RELEASE);
  return true;
}

// Where a slot must stay read-only afterwards: inside PT_GNU_RELRO.
bool in_relro(const dl_phdr_info* info, const void* slot) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_GNU_RELRO) continue;
    const ElfW(Addr) begin = info->dlpi_addr + ph.p_vaddr;
    const auto a = reinterpret_cast<ElfW(Addr)>(slot);
    if (a >= begin && a < begin + ph.p_memsz) return true;
  }
  return false;
}

void protect_relro(const dl_phdr_info* info) {
  const long page = sysconf(_SC_PAGESIZE);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_GNU_RELRO) continue;
    const ElfW(Addr) begin = (info->dlpi_addr + ph.p_vaddr) & ~static_cast<ElfW(Addr)>(page - 1);
    const ElfW(Addr) end = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
    mprotect(reinterpret_cast<void*>(begin), end - begin, PROT_READ);
  }
}

Dl_info shim_object() {
  Dl_info self{};
  dladdr(reinterpret_cast<void*>(&yadokari_unsupported_call), &self);
  return self;
}

void redirect_relocations(const dl_phdr_info* info, const Tables& t, const ElfW(Rela) * rel, std::size_t bytes,
                          Outcome& out) {
  static const Dl_info self = shim_object();
  bool relro = false;
  for (std::size_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
    const auto type = ELF64_R_TYPE(rel[i].r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    const char* name = t.strings + t.symbols[ELF64_R_SYM(rel[i].r_info)].st_name;
    if (std::strncmp(name, "PMPI_", 5) != 0) continue;
    char public_name[128];
    if (std::strlen(name) >= sizeof public_name) continue;
    std::strcpy(public_name, name + 1);  // PMPI_X -> MPI_X
    // What the program's own MPI_X calls reach: the shim's, whether preloaded or linked first.
    void* target = dlsym(RTLD_DEFAULT, public_name);
    Dl_info where{};
    if (target == nullptr || dladdr(target, &where) == 0 || where.dli_fbase != self.dli_fbase) {
      // Not the shim's: the library's own MPI_X is as good as PMPI_X (a name the shim leaves alone).
      continue;
    }
    auto** slot = reinterpret_cast<void**>(info->dlpi_addr + rel[i].r_offset);
    relro = relro || in_relro(info, slot);
    if (!write_slot(slot, target)) {
      out.error = "mprotect failed";
      out.symbol = name;
      return;
    }
    ++out.redirected;
  }
  if (relro) protect_relro(info);
}

int visit(dl_phdr_info* info, std::size_t, void* data) {
  auto& out = *static_cast<Outcome*>(data);
  const char* base = std::strrchr(info->dlpi_name, '/');
  base = base ? base + 1 : info->dlpi_name;
  if (std::strncmp(base, kLibrary, sizeof kLibrary - 1) != 0) return 0;
  out.found = true;
  const Tables t = read_tables(info);
  if (t.symbols == nullptr || t.strings == nullptr || (t.plt == nullptr && t.other == nullptr)) {
    out.error = "its dynamic section has no relocation tables";
    return 1;
  }
  redirect_relocations(info, t, t.plt, t.plt_bytes, out);
  if (out.error == nullptr) redirect_relocations(info, t, t.other, t.other_bytes, out);
  return 1;
}

__attribute__((constructor)) void redirect_mpich_f08() {
  Outcome out;
  dl_iterate_phdr(visit, &out);
  if (!out.found) return;  // a C program: no Fortran layer to route
  if (out.error != nullptr || out.redirected == 0) {
    yadokari::shim::print_line(
        "yadokari: cannot route MPICH's Fortran bindings (%s) through the shim: %s%s%s; the job cannot continue",
        kLibrary, out.error ? out.error : "it imports no PMPI_* function the shim provides", out.error ? " at " : "",
        out.symbol);
    std::_Exit(70);
  }
}

}  // namespace
