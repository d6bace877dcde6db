#include "runtime/frontend/job_stopper.hpp"

#include <dirent.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <map>
#include <thread>

#include "common/process_status.hpp"
#include "runtime/frontend/child_process.hpp"
#include "runtime/launch/launcher_leftovers.hpp"

namespace yadokari::frontend {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kStep = std::chrono::milliseconds(20);

// Alive and not a zombie: a rank whose parent died may wait as a zombie for a reaper that, in a
// container, might never come; it runs no code any more.
bool running(pid_t pid) { return posix::process_running(pid); }

// The launcher and everything it started on this host (Hydra proxies, Open MPI's ranks and
// helpers), from the parent links in /proc: a proxy killed with its launcher leaves no rank
// behind, even one that had not registered yet.
std::vector<pid_t> process_tree(pid_t root) {
  std::map<pid_t, std::vector<pid_t>> children;
  if (DIR* proc = opendir("/proc")) {
    while (dirent* e = readdir(proc)) {
      const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
      if (pid <= 0) continue;
      // A process that exits while the tree is read is left out: it has no children to stop.
      if (const auto status = posix::read_process_status(pid)) children[status->parent].push_back(pid);
    }
    closedir(proc);
  }
  std::vector<pid_t> tree{root};
  for (std::size_t i = 0; i < tree.size(); ++i)
    for (const pid_t child : children[tree[i]]) tree.push_back(child);
  return tree;
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

void freeze_launcher(pid_t launcher, const std::set<pid_t>& spared) {
  if (launcher <= 0) return;
  for (const pid_t pid : process_tree(launcher))
    if (!spared.count(pid) && running(pid)) kill(pid, SIGSTOP);
}

void stop_whole_job(pid_t launcher, const std::vector<pid_t>& rank_pids, const std::set<pid_t>& spared) {
  // Like a failure, and quietly: a launcher that is told to terminate (or sees its ranks die)
  // prints a banner into the job's output and may still forward output the ranks wrote after
  // the commit. Killed outright it does neither. Its local descendants are killed with it; the
  // daemons/proxies on other hosts lose their parent and take their ranks down.
  const std::vector<pid_t> launcher_tree = launcher > 0 ? process_tree(launcher) : std::vector<pid_t>{};
  std::vector<pid_t> victims;
  for (const pid_t pid : launcher_tree)
    if (!spared.count(pid)) victims.push_back(pid);
  for (const pid_t pid : rank_pids)
    if (!spared.count(pid)) victims.push_back(pid);
  for (const pid_t pid : victims)
    if (pid > 0 && running(pid)) kill(pid, SIGKILL);
  if (launcher > 0) reaped_within(launcher, std::chrono::seconds(10));
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  for (const pid_t pid : victims)
    while (pid > 0 && pid != launcher && running(pid) && Clock::now() < deadline) std::this_thread::sleep_for(kStep);
  // What the killed launcher could not clean up itself (Open MPI's session directory with the
  // ranks' shared-memory segments; named after mpirun's or an orted's pid, so the launcher's
  // tree, not the ranks); the next incarnation gets its own.
  std::vector<pid_t> dead;
  for (const pid_t pid : launcher_tree)
    if (pid > 0 && !running(pid)) dead.push_back(pid);
  launch::remove_open_mpi_session_dirs(dead);
}

}  // namespace yadokari::frontend
