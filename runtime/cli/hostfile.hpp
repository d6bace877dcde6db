#pragma once
// `yadokari run --hostfile F`: the hosts of a job, read from a file.
#include <string>
#include <vector>

#include "runtime/launch/launcher.hpp"

namespace yadokari::cli {

// "host", "host slots=N" or "host:N" per line; '#' starts a comment.
// CliError(usage) naming the file and line for anything else.
std::vector<launch::HostSlots> read_hostfile(const std::string& path);

}  // namespace yadokari::cli
