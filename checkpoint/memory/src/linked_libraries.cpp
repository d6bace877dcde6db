// Libraries linked with the application: see linked_libraries.hpp.
#include "checkpoint/memory/src/linked_libraries.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/auxv.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/memory/src/exe_layout.hpp"
#include "checkpoint/memory/src/identity.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "common/parameters.hpp"

namespace yadokari::memory {
namespace {

constexpr std::uint32_t kRW = 3;  // PROT_READ | PROT_WRITE

// Shared with everyone, or library state: the layer carries the application's part of them
// itself (stdio, rand, the environment, Fortran units...) or they must be the fresh process's
// (the OpenMP runtimes' pools, the unwinder's caches). Matched at the start of the file name.
constexpr std::string_view kRuntimes[] = {
    "ld-linux",    "libc.so",      "libm.so",      "libmvec.so",     "libdl.so",       "libpthread.so",
    "librt.so",    "libresolv.so", "libutil.so",   "libanl.so",      "libnsl.so",      "libnss_",
    "libcrypt.so", "libgcc_s.so",  "libstdc++.so", "libgfortran.so", "libquadmath.so", "libgomp.so",
    "libomp.so",   "libatomic.so", "libasan.so",   "libubsan.so",    "libtsan.so",     "liblsan.so"};
// The MPI libraries of Open MPI and MPICH (their Fortran and C++ bindings too): fresh after a
// restart with everything they need.
constexpr std::string_view kMpi[] = {"libmpi", "libpmpi", "libmpich", "libopen-pal", "libopen-rte"};

// The bytes of a piece when main started, a chunk of 4 KiB at a time: a chunk that was all zeros
// then (most of a large .bss, never touched) is not copied, so the copy costs what the library's
// initialised data is, not its size.
constexpr std::size_t kChunk = 4096;
const unsigned char kZeros[kChunk] = {};

struct Piece {
  Piece(std::uintptr_t from, std::uintptr_t to, bool is_tls) : lo(from), hi(to), tls(is_tls) {}

  std::uintptr_t lo, hi;
  bool tls;
  std::vector<std::size_t> chunk_at;  // per chunk: its offset in `copied`, or kZero
  std::vector<unsigned char> copied;
  static constexpr std::size_t kZero = ~std::size_t{0};

  void note() {
    const auto* from = reinterpret_cast<const unsigned char*>(lo);
    for (std::size_t at = 0; at < hi - lo; at += kChunk) {
      const std::size_t n = std::min(kChunk, hi - lo - at);
      if (std::memcmp(from + at, kZeros, n) == 0) {
        chunk_at.push_back(kZero);
      } else {
        chunk_at.push_back(copied.size());
        copied.insert(copied.end(), from + at, from + at + n);
      }
    }
  }
  // The bytes of [at, at + n) when main started (inside one chunk).
  const unsigned char* at_main(std::size_t at) const {
    const std::size_t chunk = chunk_at[at / kChunk];
    return chunk == kZero ? kZeros + at % kChunk : copied.data() + chunk + at % kChunk;
  }
  // Back as main found it; a chunk that is the same already is not written (an untouched
  // page of .bss stays unallocated).
  void reset() const {
    auto* to = reinterpret_cast<unsigned char*>(lo);
    for (std::size_t at = 0; at < hi - lo; at += kChunk) {
      const std::size_t n = std::min(kChunk, hi - lo - at);
      if (std::memcmp(to + at, at_main(at), n) != 0) std::memcpy(to + at, at_main(at), n);
    }
  }
};

struct Linked {
  std::string path;
  std::uintptr_t base = 0;
  std::vector<Piece> pieces;
};

struct Loaded {
  std::string path;
  std::uintptr_t base = 0, tls = 0;
  std::size_t tls_size = 0;
  bool fresh = false;
};

std::vector<Linked>* g_linked;  // glibc's heap: never in an image
LinkedMask g_mask;
// A library that should be carried and is not (beyond the list's 256 objects, or its file could
// not be read): every checkpoint is refused with this line.
std::string* g_problem;

std::string_view file_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool starts_with_any(std::string_view name, const std::string_view* list, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (name.substr(0, list[i].size()) == list[i]) return true;
  return false;
}

// YADOKARI_FRESH_LIBRARIES: names (prefixes of file names) separated by ':' or ','.
bool named_fresh(std::string_view name) {
  const char* setting = std::getenv(parameters::kFreshLibraries);
  std::string_view rest = setting ? setting : "";
  while (!rest.empty()) {
    const std::size_t end = rest.find_first_of(":,");
    const std::string_view word = rest.substr(0, end);
    if (!word.empty() && name.substr(0, word.size()) == word) return true;
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return false;
}

int collect(struct dl_phdr_info* info, std::size_t, void* arg) {
  if (info->dlpi_addr && info->dlpi_addr == getauxval(AT_SYSINFO_EHDR)) return 0;  // vDSO, as identity.cpp
  Loaded l;
  l.path = info->dlpi_name ? info->dlpi_name : "";
  l.base = info->dlpi_addr;
  l.tls = reinterpret_cast<std::uintptr_t>(info->dlpi_tls_data);
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_TLS) l.tls_size = info->dlpi_phdr[i].p_memsz;
  static_cast<std::vector<Loaded>*>(arg)->push_back(std::move(l));
  return 0;
}

// Marks the MPI libraries, this layer's object and those named fresh, then whatever they need.
void mark_fresh(std::vector<Loaded>& loaded) {
  Dl_info self{};
  const bool have_self = dladdr(reinterpret_cast<void*>(&note_linked_libraries_at_main), &self) && self.dli_fbase;
  std::vector<std::size_t> todo;
  for (std::size_t i = 1; i < loaded.size(); ++i) {
    const std::string_view name = file_name(loaded[i].path);
    loaded[i].fresh = starts_with_any(name, kMpi, std::size(kMpi)) || named_fresh(name) ||
                      (have_self && loaded[i].base == reinterpret_cast<std::uintptr_t>(self.dli_fbase));
    if (loaded[i].fresh) todo.push_back(i);
  }
  while (!todo.empty()) {
    const std::size_t at = todo.back();
    todo.pop_back();
    for (const std::string& needed : needed_libraries(loaded[at].path.c_str()))
      for (std::size_t j = 1; j < loaded.size(); ++j)
        if (!loaded[j].fresh && file_name(loaded[j].path) == needed) {
          loaded[j].fresh = true;
          todo.push_back(j);
        }
  }
}

std::string one_line(const char* what, const std::string& path, const std::string& reason) {
  return std::string("the data of library ") + path + ", which the application links, " + what + reason;
}

void refuse_if_uncarried() {
  if (g_problem && !g_problem->empty()) refusal_add(g_problem->c_str());
}

__attribute__((constructor)) void register_check() { register_refusal_check(refuse_if_uncarried); }

// Each run of 8-byte words (the last one possibly shorter) that differs from the copy at main; a
// chunk that is the same as a whole is passed over at memcmp speed.
template <typename Emit>
bool changed_runs(const Piece& p, Emit&& emit) {
  const auto* now = reinterpret_cast<const unsigned char*>(p.lo);
  const std::size_t len = p.hi - p.lo;
  std::size_t run = len;  // start of the current run, len: none
  auto close_run = [&](std::size_t at) {
    if (run == len) return true;
    const bool ok = emit(p.lo + run, at - run);
    run = len;
    return ok;
  };
  for (std::size_t chunk = 0; chunk < len; chunk += kChunk) {
    const std::size_t chunk_end = std::min(chunk + kChunk, len);
    if (std::memcmp(now + chunk, p.at_main(chunk), chunk_end - chunk) == 0) {
      if (!close_run(chunk)) return false;
      continue;
    }
    for (std::size_t at = chunk; at < chunk_end; at += 8) {
      const std::size_t n = std::min<std::size_t>(8, chunk_end - at);
      if (std::memcmp(now + at, p.at_main(at), n) != 0) {
        if (run == len) run = at;
      } else if (!close_run(at)) {
        return false;
      }
    }
  }
  return close_run(len);
}

}  // namespace

void note_linked_libraries_at_main() {
  std::vector<Loaded> loaded;
  dl_iterate_phdr(collect, &loaded);
  mark_fresh(loaded);
  g_linked = new std::vector<Linked>;
  g_problem = new std::string;
  for (std::size_t i = 1; i < loaded.size(); ++i) {
    const Loaded& l = loaded[i];
    if (l.fresh || starts_with_any(file_name(l.path), kRuntimes, std::size(kRuntimes))) continue;
    if (i >= static_cast<std::size_t>(kMaxObjects)) {
      if (g_problem->empty())
        *g_problem = one_line("is not carried: ", l.path,
                              "more than " + std::to_string(kMaxObjects) + " objects were loaded before main");
      continue;
    }
    ExeLayout layout;
    std::string error;
    if (!read_object_layout(l.path.c_str(), l.base, layout, error)) {
      if (g_problem->empty()) *g_problem = one_line("cannot be carried: ", l.path, error);
      continue;
    }
    Linked linked{l.path, l.base, {}};
    for (const Range& r : subtract(layout.writable, layout.excluded)) linked.pieces.push_back(Piece{r.lo, r.hi, false});
    if (l.tls && l.tls_size) linked.pieces.push_back(Piece{l.tls, l.tls + l.tls_size, true});
    for (Piece& p : linked.pieces) p.note();
    g_mask[i / 64] |= std::uint64_t{1} << (i % 64);
    g_linked->push_back(std::move(linked));
  }
}

void linked_libraries_carried(LinkedMask& mask) { std::memcpy(mask, g_mask, sizeof mask); }

bool is_carried_linked_library(std::uintptr_t base) {
  if (!g_linked) return false;
  for (const Linked& l : *g_linked)
    if (l.base == base) return true;
  return false;
}

bool capture_linked_library_changes(AreaSink& sink) {
  if (!g_linked) return true;
  for (const Linked& l : *g_linked)
    for (const Piece& p : l.pieces) {
      const AreaKind kind = p.tls ? AreaKind::library_tls : AreaKind::libraries;
      const char* name = p.tls ? "linked library TLS" : "linked library data";
      if (!changed_runs(p, [&](std::uintptr_t addr, std::size_t len) {
            return sink.area(kind, addr, len, kRW, name, reinterpret_cast<const void*>(addr));
          }))
        return false;
    }
  return true;
}

bool check_linked_libraries(const LinkedMask& mask, char* why, std::size_t why_len) {
  if (std::memcmp(mask, g_mask, sizeof mask) == 0) return true;
  const ObjectList& objects = premain_objects();
  for (std::uint32_t i = 1; i < objects.count; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << (i % 64);
    const bool was = mask[i / 64] & bit;
    if (was == static_cast<bool>(g_mask[i / 64] & bit)) continue;
    std::snprintf(why, why_len,
                  "library %s: the checkpoint %s its data, this process would %s it (%s must name the same "
                  "libraries as when the checkpoint was taken)",
                  objects.objects[i].name, was ? "carried" : "did not carry", was ? "not carry" : "carry",
                  parameters::kFreshLibraries);
    return false;
  }
  std::snprintf(why, why_len, "the image carries other linked libraries than this process would");
  return false;
}

void reset_linked_libraries() {
  if (!g_linked) return;
  for (const Linked& l : *g_linked)
    for (const Piece& p : l.pieces) p.reset();
}

void* linked_library_destination(AreaKind kind, std::uint64_t addr, std::uint64_t len) {
  if (!g_linked || addr + len < addr) return nullptr;
  const bool tls = kind == AreaKind::library_tls;
  for (const Linked& l : *g_linked)
    for (const Piece& p : l.pieces)
      if (p.tls == tls && addr >= p.lo && addr + len <= p.hi) return reinterpret_cast<void*>(addr);
  return nullptr;
}

}  // namespace yadokari::memory
