#include "runtime/cli/python_mpi_module.hpp"

#include <chrono>
#include <vector>

#include "runtime/launch/bounded_command.hpp"

namespace yadokari::cli {

bool is_python_interpreter(const std::filesystem::path& app) { return app.filename().string().rfind("python", 0) == 0; }

PythonMpiModule find_python_mpi_module(const std::filesystem::path& interpreter) {
  // find_spec of a submodule imports the package (mpi4py/__init__.py, which does not start MPI) and
  // locates MPI without loading it.
  static const char* const kScript =
      "import importlib.util as u\n"
      "s = u.find_spec('mpi4py.MPI')\n"
      "print(s.origin if s and s.origin else '')\n";
  const launch::CommandResult result =
      launch::run_bounded({interpreter.string(), "-c", kScript}, std::chrono::seconds(20));
  PythonMpiModule found;
  if (!result.started) {
    found.why_not = "cannot run " + interpreter.string();
    return found;
  }
  if (result.timed_out) {
    found.why_not = interpreter.string() + " did not answer within 20 s";
    return found;
  }
  std::string out = result.out;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (result.exit_code == 0 && !out.empty() && out.find('\n') == std::string::npos) {
    found.path = out;
    return found;
  }
  if (result.exit_code == 0) {
    found.why_not = "it has no mpi4py";
    return found;
  }
  std::string err = result.err;
  while (!err.empty() && err.back() == '\n') err.pop_back();
  const std::size_t last = err.rfind('\n');
  found.why_not = err.empty() ? "it exited " + std::to_string(result.exit_code)
                              : (last == std::string::npos ? err : err.substr(last + 1));
  return found;
}

}  // namespace yadokari::cli
