#pragma once
// Running the external tools the simulated cluster is built with (ip, tc, nsenter).
#include <sys/types.h>

#include <string>
#include <vector>

namespace yadokari::sim {

struct CommandResult {
  int exit_code = 0;   // 128+N if killed by signal N, 127 if it could not be started
  std::string output;  // stdout and stderr together, trailing newlines removed
};

// Runs argv (argv[0] looked up in PATH) with stdin from /dev/null and no other inherited
// descriptor, and waits for it.
CommandResult run_command(const std::vector<std::string>& argv);

// Runs argv; throws SimError("<argv joined>: <output>") unless it exits 0.
void run_checked(const std::vector<std::string>& argv);

// argv prefixed with `nsenter -t PID -n` (only the network namespace): ip/tc inside a node.
std::vector<std::string> in_netns(pid_t holder, std::vector<std::string> argv);

// True if `name` is an executable file in one of PATH's directories.
bool in_path(const std::string& name);

// Throws SimError (exit 127) naming the package when a tool is missing from PATH.
void require_tool(const std::string& name, const std::string& package);

std::string join_words(const std::vector<std::string>& words);

}  // namespace yadokari::sim
