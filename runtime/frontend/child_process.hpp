#pragma once
// Starting the launcher and collecting its exit status.
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace yadokari::frontend {

// Starts argv[0] (a path) with exactly `env`, inheriting stdin/stdout/stderr, with default
// signal dispositions and an empty signal mask whatever the caller has blocked.
pid_t spawn_process(const std::vector<std::string>& argv, const std::vector<std::string>& env);

// The same, and the child gets `death_signal` when this process dies, however it dies (SIGKILL
// too: PR_SET_PDEATHSIG, kept across exec). For the launcher: a front end that is gone cannot
// supervise, checkpoint or restart the job, so the launcher is told to end it rather than run on
// headless (it forwards the signal to its daemons and ranks on every node).
pid_t spawn_tied_process(const std::vector<std::string>& argv, const std::vector<std::string>& env, int death_signal);

// The same, with stdin a pipe whose write end is returned in `stdin_fd` (close-on-exec): the
// caller writes to it and keeps it open as long as the child should live (a remote node agent
// takes its credentials from it and ends when it closes).
pid_t spawn_process_with_pipe(const std::vector<std::string>& argv, const std::vector<std::string>& env, int& stdin_fd);

// Writes all of `text` to a child's stdin pipe; false if the child has closed it (it has ended,
// e.g. a remote shell that could not reach its host). SIGPIPE is held back for the write: it
// would end the front end itself, which must go on to report the child's exit code.
bool write_to_child(int stdin_fd, std::string_view text);

// The child's exit code if it has ended (128+N if killed by signal N), without blocking.
std::optional<int> try_reap(pid_t child);

}  // namespace yadokari::frontend
