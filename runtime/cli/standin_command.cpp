// The stand-in command: see standin_command.hpp; the stand-in itself is protocol/stand_in.cpp.
#include "runtime/cli/standin_command.hpp"

#include "protocol/stand_in.hpp"
#include "runtime/cli/cli_error.hpp"

namespace yadokari::cli {

int stand_in(const StandInOptions& options) {
  std::string why;
  const std::optional<int> rank = protocol::launch_logical_rank(why);
  if (!rank) throw CliError(exit_code::usage, "stand-in: " + why);
  const std::optional<int> status = protocol::stand_in(options.dir, *rank, options.timeout, why);
  if (!status) throw CliError(exit_code::failure, "stand-in: " + why);
  return *status;
}

}  // namespace yadokari::cli
