#include "runtime/sim/namespace_members.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "runtime/sim/holder.hpp"
#include "runtime/sim/sim_error.hpp"

namespace yadokari::sim {

std::vector<pid_t> processes_in_netns(const std::string& netns) {
  std::vector<pid_t> members;
  if (netns.empty()) return members;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::atoi(name.c_str()));
    if (namespace_of(pid, "net") == netns) members.push_back(pid);
  }
  return members;
}

int kill_netns_members(const std::string& netns) {
  if (netns.empty()) return 0;
  if (netns == namespace_of(getpid(), "net")) {
    throw SimError("refusing to kill the processes of our own network namespace " + netns);
  }
  std::set<pid_t> killed;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (;;) {
    const auto members = processes_in_netns(netns);
    if (members.empty()) break;
    for (const pid_t pid : members) {
      if (kill(pid, SIGKILL) == 0) killed.insert(pid);
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw SimError("processes in " + netns + " survived SIGKILL for 5 s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return static_cast<int>(killed.size());
}

}  // namespace yadokari::sim
