#include "cli/job_stopper.hpp"

#include <signal.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "cli/child_process.hpp"

namespace yadokari::cli {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kStep = std::chrono::milliseconds(20);

// Alive and not a zombie: a rank whose parent died may wait as a zombie for a reaper that, in a
// container, might never come; it runs no code any more.
bool running(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() || text[close + 2] != 'Z';
}

bool reaped_within(pid_t launcher, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  do {
    if (try_reap(launcher)) return true;
    std::this_thread::sleep_for(kStep);
  } while (Clock::now() < deadline);
  return false;
}

}  // namespace

void stop_whole_job(pid_t launcher, const std::vector<pid_t>& local_rank_pids) {
  // Like a failure, and quietly: a launcher that is told to terminate (or sees its ranks die)
  // prints a banner into the job's output and may still forward output the ranks wrote after
  // the commit. Killed outright it does neither; its remote daemons/proxies lose their parent
  // and take their ranks down, the local ranks are killed here.
  kill(launcher, SIGKILL);
  for (const pid_t pid : local_rank_pids)
    if (pid > 0 && running(pid)) kill(pid, SIGKILL);
  reaped_within(launcher, std::chrono::seconds(10));
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  for (const pid_t pid : local_rank_pids)
    while (pid > 0 && running(pid) && Clock::now() < deadline) std::this_thread::sleep_for(kStep);
}

}  // namespace yadokari::cli
