#pragma once
// Starting the launcher and collecting its exit status.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace yadokari::cli {

// Starts argv[0] (a path) with exactly `env`, inheriting stdin/stdout/stderr, with default
// signal dispositions and an empty signal mask whatever the caller has blocked.
pid_t spawn_process(const std::vector<std::string>& argv, const std::vector<std::string>& env);

// The child's exit code if it has ended (128+N if killed by signal N), without blocking.
std::optional<int> try_reap(pid_t child);

}  // namespace yadokari::cli
