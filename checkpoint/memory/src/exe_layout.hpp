#pragma once
// Where the executable's own mutable data is, read from /proc/self/exe (the file, so the
// answer does not depend on what ld.so did to the in-memory .dynamic):
//   writable  = its PT_LOAD segments with PF_W, at the load address
//   excluded  = what must stay as the fresh process made it (docs/architecture.md, pitfall 3):
//               PT_GNU_RELRO, .got, .got.plt (resolved by ld.so, part of it read-only) and every
//               object copy-relocated into the executable from a library (R_X86_64_COPY: stdout,
//               stderr, environ, std::cout, ompi_mpi_comm_world, ...), which the library owns.
// Callers are inside a LibraryScope: the vectors allocate from glibc.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace yadokari::memory {

struct Range {
  std::uintptr_t lo = 0, hi = 0;
};

struct NamedRange {
  std::uintptr_t lo = 0, hi = 0;
  std::string name;
};

struct ExeLayout {
  std::uintptr_t bias = 0;  // load address offset (0 for non-PIE)
  std::vector<Range> writable;
  std::vector<NamedRange> excluded;
  std::size_t tls_memsz = 0;  // PT_TLS size, 0 if none
  Range span;                 // every PT_LOAD, page-aligned: the address range the object occupies
  bool static_tls = false;    // DF_STATIC_TLS: its TLS block is in the static TLS area (initial-exec)
};

// false with `error` set if the executable cannot be read or is not x86-64 ELF.
bool read_exe_layout(ExeLayout& out, std::string& error);

// The same for the object in the ELF file `path` loaded at `bias` (a library loaded after start).
bool read_object_layout(const char* path, std::uintptr_t bias, ExeLayout& out, std::string& error);

// The DT_NEEDED names of the ELF file `path` (empty if it cannot be read).
std::vector<std::string> needed_libraries(const char* path);

// `from` minus every excluded range, sorted, empty pieces dropped.
std::vector<Range> subtract(const std::vector<Range>& from, const std::vector<NamedRange>& minus);

// The running executable's load bias (first dl_iterate_phdr entry).
std::uintptr_t exe_bias();

// The executable's TLS block in the calling thread: address and PT_TLS size (0, 0 if none).
void exe_tls_block(std::uintptr_t& addr, std::size_t& size);

}  // namespace yadokari::memory
