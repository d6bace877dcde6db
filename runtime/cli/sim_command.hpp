#pragma once
// `yadokari sim up|list|add|kill|drain|down|exec|env`: a simulated cluster of namespace nodes on this host
// (runtime/sim/, runtime/README.md "yadokari sim").
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace yadokari::cli {

struct SimOptions {
  std::string name = "sim";
  int nodes = 0;
  int slots = 1;
  std::string link;
  double cpu_per_slot = 0.0;  // sim up --cpu-per-slot
  bool slurm = false;         // sim up --slurm
  bool json = false;
  std::string node;
  std::vector<std::string> command;
  std::string mpi;
  std::string job_dir;
  double timeout_s = 600;  // sim drain --timeout
  // The subcommands, to tell which one was given.
  CLI::App* up = nullptr;
  CLI::App* list = nullptr;
  CLI::App* kill = nullptr;
  CLI::App* add = nullptr;
  CLI::App* drain = nullptr;
  CLI::App* down = nullptr;
  CLI::App* exec = nullptr;
  CLI::App* env = nullptr;
};

// Registers `sim` and its subcommands on `app`; returns the `sim` command.
CLI::App* add_sim(CLI::App& app, SimOptions& options);

int run_sim(const SimOptions& options);

}  // namespace yadokari::cli
