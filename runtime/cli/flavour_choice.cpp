#include "runtime/cli/flavour_choice.hpp"

#include "runtime/cli/cli_error.hpp"
#include "runtime/cli/python_mpi_module.hpp"

namespace yadokari::cli {

std::optional<launch::MpiFlavour> requested_flavour(const std::string& option) {
  if (option == "auto") return std::nullopt;
  if (auto flavour = launch::parse_flavour(option)) return flavour;
  throw CliError(exit_code::usage, "--mpi must be openmpi, mpich or auto, not '" + option + "'");
}

namespace {

// An interpreter's MPI is the one its MPI binding module links.
launch::MpiFlavour python_flavour(const std::filesystem::path& app, const std::string& shown_name) {
  const PythonMpiModule module = find_python_mpi_module(app);
  if (!module.path)
    throw CliError(exit_code::usage, shown_name + " is a Python interpreter and mpi4py's MPI module was not found (" +
                                         module.why_not + "): give --mpi openmpi or --mpi mpich");
  const launch::FlavourDetection detected = launch::detect_flavour(*module.path);
  if (detected.outcome != launch::FlavourDetection::Outcome::detected)
    throw CliError(exit_code::usage, shown_name + ": the MPI of mpi4py's module " + module.path->string() +
                                         " cannot be told from its libraries: give --mpi openmpi or --mpi mpich");
  return *detected.flavour;
}

}  // namespace

launch::MpiFlavour choose_flavour(const std::filesystem::path& app, const std::string& shown_name,
                                  std::optional<launch::MpiFlavour> wanted) {
  using Outcome = launch::FlavourDetection::Outcome;

  const launch::FlavourDetection detected = launch::detect_flavour(app);
  switch (detected.outcome) {
    case Outcome::detected:
      if (wanted && *wanted != *detected.flavour)
        throw CliError(exit_code::usage, shown_name + " is linked against " +
                                             std::string(launch::flavour_name(*detected.flavour)) + " but --mpi " +
                                             std::string(launch::flavour_name(*wanted)) + " was given");
      return *detected.flavour;
    case Outcome::ambiguous:
      throw CliError(exit_code::usage,
                     shown_name + " is linked against both Open MPI and MPICH (" + detected.evidence + ")");
    case Outcome::not_found:
      throw CliError(exit_code::not_found, "app not found: " + shown_name);
    case Outcome::not_elf:
      if (wanted) return *wanted;
      throw CliError(exit_code::usage, shown_name + " is not an ELF executable, so its MPI cannot be detected (" +
                                           "give --mpi openmpi or --mpi mpich)");
    case Outcome::not_mpi:
      if (wanted) return *wanted;
      if (is_python_interpreter(app)) return python_flavour(app, shown_name);
      throw CliError(exit_code::usage, shown_name +
                                           " is not an MPI program (no libmpi or libmpich among "
                                           "its dynamic dependencies)");
  }
  throw CliError(exit_code::failure, "unexpected flavour detection outcome");
}

}  // namespace yadokari::cli
