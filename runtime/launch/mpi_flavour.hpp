#pragma once
// Which MPI an executable is built against, from its dynamic dependencies (the executable's
// DT_NEEDED and, recursively, those of the libraries it needs). The shim must match that ABI.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/launch/library_search.hpp"

namespace yadokari::launch {

enum class MpiFlavour { openmpi, mpich };

std::string_view flavour_name(MpiFlavour flavour);  // "openmpi", "mpich"
std::optional<MpiFlavour> parse_flavour(std::string_view name);

// The flavour a library belongs to, judged by its name (e.g. "libmpi_mpifh.so.40" -> openmpi).
std::optional<MpiFlavour> flavour_of_library(std::string_view soname);

struct FlavourDetection {
  enum class Outcome { detected, not_found, not_elf, not_mpi, ambiguous };
  Outcome outcome = Outcome::not_mpi;
  std::optional<MpiFlavour> flavour;  // set when detected
  // detected: the MPI library, and the library that needs it if not the executable itself;
  // ambiguous: the libraries of both flavours; not_found / not_elf: the reason.
  std::string evidence;
};

FlavourDetection detect_flavour(const std::filesystem::path& executable, const LibrarySearch& search);
FlavourDetection detect_flavour(const std::filesystem::path& executable);

}  // namespace yadokari::launch
