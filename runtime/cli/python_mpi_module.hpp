#pragma once
// A Python interpreter links no MPI; its MPI comes with the binding module it imports. So for
// `yadokari run -- python3 prog.py` the flavour is read from mpi4py's MPI extension module, found
// by asking that interpreter where the module is (with the caller's environment: PYTHONPATH, a
// virtual environment). Importing the mpi4py package does not initialise MPI; its MPI module is
// only located, not loaded.
#include <filesystem>
#include <optional>
#include <string>

namespace yadokari::cli {

// Whether `app` looks like a Python interpreter (its name starts with "python").
bool is_python_interpreter(const std::filesystem::path& app);

struct PythonMpiModule {
  std::optional<std::filesystem::path> path;  // mpi4py's MPI extension module, if found
  std::string why_not;                        // otherwise: what the interpreter said, one line
};

PythonMpiModule find_python_mpi_module(const std::filesystem::path& interpreter);

}  // namespace yadokari::cli
