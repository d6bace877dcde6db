#pragma once
// The one exception type of runtime/sim: a one-line message (no "yadokari: " prefix) and the
// exit code the CLI should end with (1 runtime problem, 2 bad input, 127 a tool is missing).
#include <stdexcept>
#include <string>

#include "common/error.hpp"

namespace yadokari::sim {

class SimError : public yadokari::Error {
 public:
  explicit SimError(const std::string& message, int exit_code = 1) : yadokari::Error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

}  // namespace yadokari::sim
