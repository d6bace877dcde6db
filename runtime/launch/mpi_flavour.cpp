#include "runtime/launch/mpi_flavour.hpp"

#include <deque>
#include <map>
#include <set>

namespace yadokari::launch {
namespace fs = std::filesystem;

namespace {

// An MPI library is usually needed directly or one level down (a Fortran binding, a solver
// library); deeper chains are rare and the walk over system libraries is not free.
constexpr int kMaxDepth = 6;

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

}  // namespace

std::string_view flavour_name(MpiFlavour flavour) { return flavour == MpiFlavour::openmpi ? "openmpi" : "mpich"; }

std::optional<MpiFlavour> parse_flavour(std::string_view name) {
  if (name == "openmpi") return MpiFlavour::openmpi;
  if (name == "mpich") return MpiFlavour::mpich;
  return std::nullopt;
}

std::optional<MpiFlavour> flavour_of_library(std::string_view soname) {
  // MPICH and its ABI-compatible derivatives (libmpich*, libmpifort, libmpicxx; Intel MPI's
  // libmpi.so.12 is the MPICH ABI).
  if (starts_with(soname, "libmpich") || starts_with(soname, "libmpifort.so") || starts_with(soname, "libmpicxx.so") ||
      soname == "libmpi.so.12" || starts_with(soname, "libmpi.so.12."))
    return MpiFlavour::mpich;
  // Open MPI: libmpi.so.40 and its C++/Fortran bindings (libmpi_mpifh needs libmpi too).
  if (soname == "libmpi.so" || starts_with(soname, "libmpi.so.") || starts_with(soname, "libmpi_mpifh") ||
      starts_with(soname, "libmpi_usempi") || starts_with(soname, "libmpi_cxx.so"))
    return MpiFlavour::openmpi;
  return std::nullopt;
}

FlavourDetection detect_flavour(const fs::path& executable, const LibrarySearch& search) {
  using Outcome = FlavourDetection::Outcome;
  ElfDynamic top = read_elf_dynamic(executable);
  switch (top.status) {
    case ElfDynamic::Status::ok:
      break;
    case ElfDynamic::Status::cannot_open:
      return {Outcome::not_found, std::nullopt, top.error};
    case ElfDynamic::Status::not_elf:
    case ElfDynamic::Status::unsupported:
      return {Outcome::not_elf, std::nullopt, top.error};
  }

  struct Pending {
    fs::path path;
    ElfDynamic dynamic;
    int depth;
  };
  std::deque<Pending> queue;
  queue.push_back({executable, std::move(top), 0});
  std::set<std::string> seen_names;
  std::map<MpiFlavour, std::string> found;  // flavour -> evidence

  while (!queue.empty()) {
    Pending object = std::move(queue.front());
    queue.pop_front();
    for (const auto& name : object.dynamic.needed) {
      if (!seen_names.insert(name).second) continue;
      if (auto flavour = flavour_of_library(name)) {
        std::string evidence = name;
        if (object.depth > 0) evidence += " (needed by " + object.path.filename().string() + ")";
        found.emplace(*flavour, std::move(evidence));
        continue;  // no need to look inside the MPI library itself
      }
      if (object.depth + 1 > kMaxDepth) continue;
      if (auto library = search.resolve(name, object.dynamic, object.path))
        queue.push_back({library->path, std::move(library->dynamic), object.depth + 1});
    }
  }

  if (found.size() > 1)
    return {Outcome::ambiguous, std::nullopt, found[MpiFlavour::openmpi] + " and " + found[MpiFlavour::mpich]};
  if (found.empty()) return {Outcome::not_mpi, std::nullopt, ""};
  return {Outcome::detected, found.begin()->first, found.begin()->second};
}

FlavourDetection detect_flavour(const fs::path& executable) {
  return detect_flavour(executable, LibrarySearch::from_environment());
}

}  // namespace yadokari::launch
