#include "runtime/launch/scontrol.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "runtime/launch/bounded_command.hpp"

namespace yadokari::launch {
namespace {

// The first line of a command's complaint, for a one-line reason.
std::string first_line(const std::string& text) {
  const auto start = text.find_first_not_of(" \n");
  if (start == std::string::npos) return {};
  return text.substr(start, text.find('\n', start) - start);
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

}  // namespace

std::string slurm_conf_problem() {
  const char* conf = std::getenv("SLURM_CONF");
  if (!conf || !*conf) return {};
  const std::string prefix = std::string("SLURM_CONF=") + conf + " cannot be read: ";
  struct stat info {};
  if (stat(conf, &info) != 0) return prefix + std::strerror(errno);
  if (!S_ISREG(info.st_mode)) return prefix + "not a regular file";
  const int fd = open(conf, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return prefix + std::strerror(errno);
  close(fd);
  return {};
}

std::string run_scontrol(const std::vector<std::string>& args, std::chrono::milliseconds limit) {
  if (std::string problem = slurm_conf_problem(); !problem.empty()) throw ScontrolError(problem);
  std::vector<std::string> argv{"scontrol"};
  argv.insert(argv.end(), args.begin(), args.end());
  const CommandResult result = run_bounded(argv, limit);
  if (!result.started) throw ScontrolError("scontrol is not installed or not in PATH");
  const std::string why = first_line(result.err);
  const std::string because = why.empty() ? std::string() : ": " + why;
  if (result.timed_out)
    throw ScontrolError(joined(argv) + " did not answer within " +
                        std::to_string(std::max<long>(1, static_cast<long>(limit.count() / 1000))) + " s" + because);
  if (result.exit_code != 0) throw ScontrolError(joined(argv) + " failed" + because);
  return result.out;
}

}  // namespace yadokari::launch
