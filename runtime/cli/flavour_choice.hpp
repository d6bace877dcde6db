#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "runtime/launch/mpi_flavour.hpp"

namespace yadokari::cli {

// --mpi openmpi|mpich|auto: nullopt for auto. Throws CliError for anything else.
std::optional<launch::MpiFlavour> requested_flavour(const std::string& option);

// The flavour to launch `app` with. An explicit --mpi is trusted when detection cannot say (a
// wrapper script, an interpreter loading MPI with dlopen) but not when it contradicts what the
// executable links. Throws CliError.
launch::MpiFlavour choose_flavour(const std::filesystem::path& app, const std::string& shown_name,
                                  std::optional<launch::MpiFlavour> wanted);

}  // namespace yadokari::cli
