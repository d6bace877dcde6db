#pragma once
#include <filesystem>

#include "runtime/launch/mpi_flavour.hpp"

namespace yadokari::frontend {

// <dir of this executable>/../lib/libyadokari-<flavour>.so, or the same file name in
// $YADOKARI_SHIM_DIR (docs/CONTRACTS.md). Throws FrontendError if the file is not there.
std::filesystem::path locate_shim(launch::MpiFlavour flavour);

}  // namespace yadokari::frontend
