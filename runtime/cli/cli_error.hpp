#pragma once
// Errors the CLI reports as one `yadokari: <message>` line on stderr, with their exit code: its own
// (CliError: bad options or input), and the job supervisor's (frontend::FrontendError), whose kind
// is mapped to an exit code here.
#include <stdexcept>
#include <string>

#include "common/error.hpp"
#include "runtime/frontend/frontend_error.hpp"

namespace yadokari::cli {

namespace exit_code {
inline constexpr int failure = 1;           // runtime problem: no job, job not answering, setup failed
inline constexpr int usage = 2;             // bad options or input (incl. not an MPI program)
inline constexpr int not_executable = 126;  // as a shell reports it
inline constexpr int not_found = 127;       // app or launcher missing, as a shell reports it
}  // namespace exit_code

class CliError : public yadokari::Error {
 public:
  CliError(int exit_code, const std::string& message) : yadokari::Error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// The exit code of a FrontendError of this kind.
constexpr int exit_code_of(frontend::ErrorKind kind) {
  switch (kind) {
    case frontend::ErrorKind::usage:
      return exit_code::usage;
    case frontend::ErrorKind::not_found:
      return exit_code::not_found;
    case frontend::ErrorKind::failure:
      break;
  }
  return exit_code::failure;
}

}  // namespace yadokari::cli
