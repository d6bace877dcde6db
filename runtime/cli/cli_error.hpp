#pragma once
// Errors the CLI reports as one `yadokari: <message>` line on stderr, with their exit code.
#include <stdexcept>
#include <string>

#include "common/error.hpp"

namespace yadokari::cli {

namespace exit_code {
inline constexpr int failure = 1;  // runtime problem: no job, job not answering, setup failed
inline constexpr int usage = 2;    // bad options or input (incl. not an MPI program)
inline constexpr int not_executable = 126;  // as a shell reports it
inline constexpr int not_found = 127;       // app or launcher missing, as a shell reports it
}  // namespace exit_code

class CliError : public yadokari::Error {
 public:
  CliError(int exit_code, const std::string& message)
      : yadokari::Error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

}  // namespace yadokari::cli
