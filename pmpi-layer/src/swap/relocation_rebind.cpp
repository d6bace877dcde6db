// Links into the MPI library pointed at the next copy: see relocation_rebind.hpp.
#include "pmpi-layer/src/swap/relocation_rebind.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "checkpoint/memory/src/dynamic_tables.hpp"

namespace yadokari::shim::swap {
namespace {

// Libraries both the process and the MPI library may use that are not the MPI library: the C and
// C++ runtimes, and general-purpose libraries the shim links too. A link into one of them stays.
bool is_runtime_library(std::string_view path) {
  const std::string_view base = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  static constexpr std::string_view kRuntime[] = {
      "libc.so",     "libm.so",        "libpthread.so",        "libdl.so",     "librt.so",     "ld-linux",
      "linux-vdso",  "libgcc_s.so",    "libstdc++.so",         "libresolv.so", "libutil.so",   "libz.so",
      "libzstd.so",  "libzmq.so",      "libsodium.so",         "liblzma.so",   "libcrypto.so", "libssl.so",
      "libgfortran", "libquadmath.so", "libyadokari-namespace"};
  for (const std::string_view r : kRuntime)
    if (base.starts_with(r)) return true;
  return base.empty();
}

std::vector<link_map*> namespace_of(link_map* member) {
  while (member && member->l_prev) member = member->l_prev;
  std::vector<link_map*> out;
  for (; member; member = member->l_next) out.push_back(member);
  return out;
}

// Which loaded object an address lies in, by the objects' loaded segments: dladdr would do, but it
// also scans the object's symbols for the nearest one, for each of thousands of relocations (and
// dl_iterate_phdr shows only the caller's namespace).
class Owners {
 public:
  // `objects`: the link maps to tell apart (the base namespace's, whose first is the executable, and
  // a copy's).
  explicit Owners(const std::vector<link_map*>& objects) {
    for (const link_map* m : objects) add(m, m == objects.front() && (!m->l_name || !*m->l_name));
    std::sort(segments_.begin(), segments_.end(), [](const Segment& a, const Segment& b) { return a.start < b.start; });
  }
  const link_map* of(ElfW(Addr) address) const {
    auto it = std::upper_bound(segments_.begin(), segments_.end(), address,
                               [](ElfW(Addr) a, const Segment& s) { return a < s.start; });
    if (it != segments_.begin() && address < std::prev(it)->end) return std::prev(it)->object;
    Dl_info info{};
    link_map* map = nullptr;  // an object whose program headers were not found
    if (!dladdr1(reinterpret_cast<void*>(address), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP))
      return nullptr;
    return map;
  }

 private:
  struct Segment {
    ElfW(Addr) start, end;
    const link_map* object;
  };
  // A shared object's ELF header is at its load address (its first segment maps the file's start);
  // the executable's program headers are in the auxiliary vector.
  void add(const link_map* m, bool executable) {
    const ElfW(Phdr)* phdr = nullptr;
    std::size_t phnum = 0;
    if (executable) {
      phdr = reinterpret_cast<const ElfW(Phdr)*>(getauxval(AT_PHDR));
      phnum = getauxval(AT_PHNUM);
    } else if (m->l_addr != 0) {
      const auto* header = reinterpret_cast<const ElfW(Ehdr)*>(m->l_addr);
      if (std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0) return;
      phdr = reinterpret_cast<const ElfW(Phdr)*>(m->l_addr + header->e_phoff);
      phnum = header->e_phnum;
    }
    for (std::size_t i = 0; phdr && i < phnum; ++i)
      if (phdr[i].p_type == PT_LOAD) {
        const ElfW(Addr) start = m->l_addr + phdr[i].p_vaddr;
        segments_.push_back({start, start + phdr[i].p_memsz, m});
      }
  }
  std::vector<Segment> segments_;
};

// The symbol defined at `address` (its type and size), or null.
const ElfW(Sym) * definition(ElfW(Addr) address) {
  Dl_info info{};
  void* entry = nullptr;
  if (!dladdr1(reinterpret_cast<void*>(address), &info, &entry, RTLD_DL_SYMENT)) return nullptr;
  const auto* sym = static_cast<const ElfW(Sym)*>(entry);
  if (!sym || reinterpret_cast<ElfW(Addr)>(info.dli_saddr) != address) return nullptr;
  return sym;
}

bool is_function(const ElfW(Sym) * s) {
  return s && (ELF64_ST_TYPE(s->st_info) == STT_FUNC || ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC);
}

// GOT entries and pointers in data may sit on pages made read-only after relocation (RELRO); the
// page stays writable after the write (the process writes them again at the next swap).
bool make_writable(void* at, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(at) & ~(page - 1);
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(at) + bytes;
  return mprotect(reinterpret_cast<void*>(first), end - first, PROT_READ | PROT_WRITE) == 0;
}

struct Relocation {
  unsigned type;
  ElfW(Addr) * slot;
  const char* name;
  ElfW(Sxword) addend;
  unsigned char symbol_type;  // as the referring object records it (STT_FUNC, STT_OBJECT, or none)
};

// Every relocation of `object` that names a symbol, of the kinds that hold its address.
template <class F>
void for_each_symbol_relocation(const link_map* object, F f) {
  const memory::DynamicTables t = memory::dynamic_tables(object->l_addr, object->l_ld);
  if (!t.symtab || !t.strtab) return;
  const std::pair<const ElfW(Rela)*, std::size_t> tables[] = {{t.plt_relocs, t.plt_relocs_bytes},
                                                              {t.relocs, t.relocs_bytes}};
  for (const auto& [table, bytes] : tables)
    for (std::size_t i = 0; table && i < bytes / sizeof(ElfW(Rela)); ++i) {
      const ElfW(Rela)& r = table[i];
      const auto type = static_cast<unsigned>(ELF64_R_TYPE(r.r_info));
      const auto sym = ELF64_R_SYM(r.r_info);
      if (sym == 0) continue;
      if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT && type != R_X86_64_64 && type != R_X86_64_COPY)
        continue;
      f(Relocation{type, reinterpret_cast<ElfW(Addr)*>(object->l_addr + r.r_offset), t.strtab + t.symtab[sym].st_name,
                   r.r_addend, static_cast<unsigned char>(ELF64_ST_TYPE(t.symtab[sym].st_info))});
    }
}

// What a swap leaves for the next one and for the copy's later opens.
struct SwapState {
  std::unordered_set<const link_map*> current;  // the MPI library's objects the process now uses
  std::unordered_set<const link_map*> first;    // those of the copy linked at start-up
  link_map* copy_namespace = nullptr;           // any object of the newest copy's namespace
  // Library objects whose address the process keeps, by name: where they stay.
  std::unordered_map<std::string, ElfW(Addr)> kept_objects;
  bool started = false;
};
SwapState g_state;

std::unordered_set<const link_map*> mpi_objects_of(const std::vector<link_map*>& objects,
                                                   const std::unordered_set<std::string>& names) {
  std::unordered_set<const link_map*> out;
  for (const link_map* m : objects) {
    const std::string_view path = m->l_name ? m->l_name : "";
    if (is_runtime_library(path)) continue;
    const std::string_view base = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
    if (names.count(std::string(base))) out.insert(m);
  }
  return out;
}

std::unordered_set<std::string> file_names(const std::vector<link_map*>& objects) {
  std::unordered_set<std::string> out;
  for (const link_map* m : objects) {
    const std::string_view path = m->l_name ? m->l_name : "";
    if (is_runtime_library(path)) continue;
    out.emplace(path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1));
  }
  return out;
}

// Open MPI's components of the copy linked at start-up: finalized with it, never called again.
bool is_old_component(const link_map* m) {
  const std::string_view path = m->l_name ? m->l_name : "";
  return path.find("/mca_") != std::string_view::npos;
}

// Whether `m` (of the base namespace, whose first object is the executable) holds links into the
// MPI library that a swap must follow: the executable, the shim, other libraries of the
// application (Fortran bindings of the MPI included: they call the C library); not the MPI
// library's own objects, nor the runtime libraries (the executable's name is empty).
bool holds_links(const link_map* m, const link_map* executable) {
  if (m == executable) return true;
  return !g_state.first.count(m) && !g_state.current.count(m) && !is_old_component(m) &&
         !is_runtime_library(m->l_name ? m->l_name : "");
}

// At the first swap: the objects of the first copy whose address the base namespace holds — the
// executable's copy relocations of them, and the data references of every other object to them.
// `first_library`: a handle of the first copy's MPI library, whose own definitions tell its copy
// relocations from the C library's (stdout, environ).
void find_kept_objects(const std::vector<link_map*>& base, void* first_library, const Owners& owners) {
  // A data reference to a data object of the first copy: kept where it is.
  const auto keep_referenced_object = [&](const Relocation& r) {
    const ElfW(Addr) target = *r.slot - static_cast<ElfW(Addr)>(r.addend);
    if (!g_state.first.count(owners.of(target))) return;
    const ElfW(Sym)* def = definition(target);
    if (def && ELF64_ST_TYPE(def->st_info) == STT_OBJECT) g_state.kept_objects.emplace(r.name, target);
  };
  for (const link_map* m : base) {
    if (holds_links(m, base.front())) {
      for_each_symbol_relocation(m, [&](const Relocation& r) {
        if (r.type == R_X86_64_COPY) {
          void* original = dlsym(first_library, r.name);
          if (original && g_state.first.count(owners.of(reinterpret_cast<ElfW(Addr)>(original))))
            g_state.kept_objects.emplace(r.name, reinterpret_cast<ElfW(Addr)>(r.slot));
          return;
        }
        if (r.type != R_X86_64_JUMP_SLOT) keep_referenced_object(r);
      });
    } else if (g_state.first.count(m)) {
      // Open MPI's predefined objects that only the library names (ompi_mpi_*): their addresses
      // reach the process as handles all the same — MPI_Op_f2c of a Fortran MPI_SUM, held by a
      // Fortran call that the cut interrupted — and the first copy's finalize tears them down (a
      // predefined op loses its functions). Kept like the others: the copy takes those addresses.
      for_each_symbol_relocation(m, [&](const Relocation& r) {
        if ((r.type == R_X86_64_GLOB_DAT || r.type == R_X86_64_64) &&
            std::string_view(r.name).rfind("ompi_mpi_", 0) == 0)
          keep_referenced_object(r);
      });
    }
  }
}

// The base namespace's calls into the current copy, pointed at the next one.
bool rebind_calls(void* copy_library, const std::vector<link_map*>& base, const Owners& owners,
                  const std::unordered_set<const link_map*>& next, std::string& why) {
  for (const link_map* m : base) {
    if (!holds_links(m, base.front())) continue;
    bool ok = true;
    for_each_symbol_relocation(m, [&](const Relocation& r) {
      if (!ok || r.type == R_X86_64_COPY) return;
      ElfW(Addr) target = *r.slot - static_cast<ElfW(Addr)>(r.addend);
      const link_map* to = owners.of(target);
      if (r.type == R_X86_64_JUMP_SLOT && to == m) {  // not bound yet (lazy binding): where it would go
        target = reinterpret_cast<ElfW(Addr)>(dlsym(RTLD_DEFAULT, r.name));
        to = target ? owners.of(target) : nullptr;
      }
      if (!g_state.current.count(to) && !g_state.first.count(to)) return;
      // The referring object's record of the symbol says whether it is a function; the definition's
      // (a scan of the copy's symbols) only where it says nothing.
      if (r.symbol_type == STT_OBJECT || r.symbol_type == STT_TLS) return;
      if (r.symbol_type != STT_FUNC && r.symbol_type != STT_GNU_IFUNC && !is_function(definition(target))) return;
      void* replacement = dlsym(copy_library, r.name);
      if (!replacement || !next.count(owners.of(reinterpret_cast<ElfW(Addr)>(replacement)))) {
        why = std::string("the new copy of the MPI library has no ") + r.name;
        ok = false;
        return;
      }
      if (!make_writable(r.slot, sizeof *r.slot)) {
        why = std::string("cannot write the link to ") + r.name + ": " + std::strerror(errno);
        ok = false;
        return;
      }
      *r.slot = reinterpret_cast<ElfW(Addr)>(replacement) + static_cast<ElfW(Addr)>(r.addend);
    });
    if (!ok) return false;
  }
  return true;
}

// The copy's fresh contents of each kept object, copied where the process keeps it.
bool fill_kept_objects(void* copy_library, const Owners& owners, const std::unordered_set<const link_map*>& next,
                       std::string& why) {
  for (const auto& [name, kept] : g_state.kept_objects) {
    void* fresh = dlsym(copy_library, name.c_str());
    if (!fresh || !next.count(owners.of(reinterpret_cast<ElfW(Addr)>(fresh)))) {
      why = "the new copy of the MPI library has no " + name;
      return false;
    }
    const ElfW(Sym)* def = definition(reinterpret_cast<ElfW(Addr)>(fresh));
    if (!def || ELF64_ST_TYPE(def->st_info) != STT_OBJECT) {
      why = "in the new copy of the MPI library, " + name + " is not a data object";
      return false;
    }
    if (!make_writable(reinterpret_cast<void*>(kept), def->st_size)) {
      why = "cannot write " + name + ": " + std::strerror(errno);
      return false;
    }
    std::memcpy(reinterpret_cast<void*>(kept), fresh, def->st_size);
  }
  return true;
}

}  // namespace

void bind_copy_namespace_data() {
  if (!g_state.copy_namespace) return;
  const std::vector<link_map*> objects = namespace_of(g_state.copy_namespace);
  const std::unordered_set<const link_map*> in_copy(objects.begin(), objects.end());
  const Owners owners(objects);
  for (const link_map* m : objects)
    for_each_symbol_relocation(m, [&](const Relocation& r) {
      if (r.type != R_X86_64_GLOB_DAT && r.type != R_X86_64_64) return;
      const auto kept = g_state.kept_objects.find(r.name);
      if (kept == g_state.kept_objects.end()) return;
      const ElfW(Addr) target = *r.slot - static_cast<ElfW(Addr)>(r.addend);
      if (target == kept->second || !in_copy.count(owners.of(target))) return;
      if (!make_writable(r.slot, sizeof *r.slot)) return;
      *r.slot = kept->second + static_cast<ElfW(Addr)>(r.addend);
    });
}

bool bind_to_copy(void* copy_library, std::string& why) {
  link_map* copy_map = nullptr;
  if (dlinfo(copy_library, RTLD_DI_LINKMAP, &copy_map) != 0 || !copy_map) {
    why = "cannot read the new copy's link map";
    return false;
  }
  link_map* executable = nullptr;
  void* self = dlopen(nullptr, RTLD_NOW | RTLD_NOLOAD);
  if (!self || dlinfo(self, RTLD_DI_LINKMAP, &executable) != 0 || !executable) {
    why = "cannot read the process's link map";
    return false;
  }
  const std::vector<link_map*> base = namespace_of(executable);
  const std::vector<link_map*> copy_objects = namespace_of(copy_map);
  const std::unordered_set<std::string> names = file_names(copy_objects);
  const std::unordered_set<const link_map*> next = mpi_objects_of(copy_objects, names);
  // Every object a link may point into: the base namespace, the copy in use (after a first swap)
  // and the next one.
  std::vector<link_map*> all = base;
  if (g_state.copy_namespace)
    for (link_map* m : namespace_of(g_state.copy_namespace)) all.push_back(m);
  all.insert(all.end(), copy_objects.begin(), copy_objects.end());
  const Owners owners(all);
  if (!g_state.started) {
    g_state.first = mpi_objects_of(base, names);
    g_state.current = g_state.first;
    Dl_info linked{};
    void* first_library = nullptr;
    if (dladdr(dlsym(RTLD_DEFAULT, "PMPI_Init"), &linked) && linked.dli_fname)
      first_library = dlopen(linked.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (!first_library) {
      why = "cannot find the MPI library the process was linked with";
      return false;
    }
    find_kept_objects(base, first_library, owners);
    g_state.started = true;
  }
  if (!rebind_calls(copy_library, base, owners, next, why)) return false;
  if (!fill_kept_objects(copy_library, owners, next, why)) return false;
  g_state.copy_namespace = copy_map;
  bind_copy_namespace_data();
  g_state.current = next;
  return true;
}

}  // namespace yadokari::shim::swap
