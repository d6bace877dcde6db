#pragma once
// Errors of the job supervisor: what() is the one-line reason (`yadokari: <message>` once the CLI
// prints it). The kind says what sort of problem it is; the CLI turns it into its exit code
// (cli/cli_error.hpp), which the front end itself does not know.
#include <string>

#include "common/error.hpp"

namespace yadokari::frontend {

enum class ErrorKind {
  failure,    // a runtime problem: the job could not start, a node was lost for good, ...
  usage,      // the request itself is wrong (a host that is no node of the cluster, ...)
  not_found,  // a program to run (launcher, nsenter, remote shell) is not in PATH
};

class FrontendError : public yadokari::Error {
 public:
  FrontendError(ErrorKind kind, const std::string& message) : yadokari::Error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace yadokari::frontend
