#include "runtime/frontend/live_move.hpp"

#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <system_error>

#include "common/process_status.hpp"

namespace yadokari::frontend {
namespace {

namespace fs = std::filesystem;

std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

// The launchers' programs that start ranks: a kept process's parent is killed only if it is one.
bool is_launch_process(pid_t pid) {
  static const std::set<std::string> kNames = {"orted",        "prted",          "hydra_pmi_proxy", "mpirun",
                                               "mpiexec",      "mpirun.openmpi", "mpiexec.mpich",   "mpiexec.hydra",
                                               "mpirun.mpich", "orterun"};
  return kNames.count(first_line("/proc/" + std::to_string(pid) + "/comm")) > 0;
}

}  // namespace

std::string why_not_live(bool shares_pid_namespace, bool node_local_images, bool under_slurm) {
  if (!shares_pid_namespace) return "the front end cannot see the ranks' processes on these hosts";
  if (node_local_images) return "the images are node-local (--node-dir)";
  if (under_slurm) return "Slurm ends every process of a job step with the step";
  return {};
}

std::optional<KeptRanks> keep_unmoved_ranks(control::Coordinator& coordinator, const fs::path& ckpt_dir,
                                            std::uint64_t epoch, int world_size,
                                            const std::vector<scheduler::Move>& moves,
                                            std::chrono::milliseconds timeout, std::string& why) {
  std::set<int> moved;
  for (const auto& move : moves) moved.insert(move.rank);
  if (static_cast<int>(moved.size()) >= world_size) {
    why = "every rank moves";
    return std::nullopt;
  }
  KeptRanks kept;
  kept.epoch = epoch;
  kept.dir = ckpt_dir / ("swap-" + std::to_string(epoch));
  std::error_code ec;
  fs::remove_all(kept.dir, ec);
  fs::create_directories(kept.dir, ec);
  if (ec) {
    why = "cannot create " + kept.dir.string() + ": " + ec.message();
    return std::nullopt;
  }
  std::set<std::int32_t> ranks;
  for (int r = 0; r < world_size; ++r)
    if (!moved.count(r)) ranks.insert(r);
  coordinator.swap_libraries(ranks, epoch, kept.dir.string());
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    for (const std::int32_t r : ranks) {
      const fs::path base = kept.dir / ("rank-" + std::to_string(r));
      if (fs::exists(base.string() + ".refused")) {
        why = "rank " + std::to_string(r) + " cannot swap its MPI library: " + first_line(base.string() + ".refused");
        return std::nullopt;
      }
      if (!kept.processes.count(r) && fs::exists(base.string() + ".pid"))
        kept.processes[r] = static_cast<pid_t>(std::stol("0" + first_line(base.string() + ".pid")));
    }
    if (kept.processes.size() == ranks.size()) return kept;
    if (std::chrono::steady_clock::now() >= deadline) {
      why = std::to_string(ranks.size() - kept.processes.size()) + " of the ranks that stay did not get ready to " +
            "swap their MPI library within " + std::to_string(timeout.count() / 1000) + " s";
      return std::nullopt;
    }
    coordinator.poll(std::chrono::milliseconds(20));
  }
}

void detach_kept_processes(const KeptRanks& kept) {
  for (const auto& [rank, pid] : kept.processes) {
    const auto status = posix::read_process_status(pid);
    const pid_t parent = status ? status->parent : 0;
    if (parent > 1 && parent != getpid() && is_launch_process(parent)) ::kill(parent, SIGKILL);
  }
}

void stop_kept_processes(const KeptRanks& kept) {
  for (const auto& [rank, pid] : kept.processes)
    if (pid > 0) ::kill(pid, SIGKILL);
}

std::string kept_rank_list(const KeptRanks& kept) {
  std::string list;
  for (const auto& [rank, pid] : kept.processes) list += (list.empty() ? "" : ",") + std::to_string(rank);
  return list;
}

}  // namespace yadokari::frontend
