#pragma once
// Reads the dynamic section of an ELF64 file: the libraries it needs and where it says to look
// for them. Only what flavour detection needs; every offset is bounds-checked.
#include <filesystem>
#include <string>
#include <vector>

namespace yadokari::launch {

struct ElfDynamic {
  enum class Status { ok, cannot_open, not_elf, unsupported };
  Status status = Status::ok;
  std::string error;  // for everything but ok

  std::string soname;
  std::vector<std::string> needed;   // DT_NEEDED, in order
  std::vector<std::string> rpath;    // DT_RPATH, split at ':'
  std::vector<std::string> runpath;  // DT_RUNPATH, split at ':'
};

// A statically linked file is `ok` with nothing needed.
ElfDynamic read_elf_dynamic(const std::filesystem::path& file);

}  // namespace yadokari::launch
