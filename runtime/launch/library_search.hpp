#pragma once
// Finds the file the dynamic loader would load for a DT_NEEDED name, approximating ld.so:
// DT_RPATH (only without DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, the ld.so.conf
// directories (instead of parsing ld.so.cache), then the default directories.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "runtime/launch/elf_dynamic.hpp"

namespace yadokari::launch {

struct ResolvedLibrary {
  std::filesystem::path path;
  ElfDynamic dynamic;
};

struct LibrarySearch {
  std::vector<std::string> ld_library_path;
  std::vector<std::string> system_dirs;

  // LD_LIBRARY_PATH, /etc/ld.so.conf (with its includes), the multiarch and MPI defaults.
  static LibrarySearch from_environment();

  // `needer` is the object whose DT_NEEDED names `name`; its directory is $ORIGIN.
  // Candidates that are not loadable 64-bit ELF files are skipped, like ld.so does.
  std::optional<ResolvedLibrary> resolve(const std::string& name, const ElfDynamic& needer,
                                         const std::filesystem::path& needer_path) const;
};

// Directories listed by an ld.so.conf file, following `include` globs.
std::vector<std::string> read_ld_so_conf(const std::filesystem::path& conf, int depth = 0);

}  // namespace yadokari::launch
