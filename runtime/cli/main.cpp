// yadokari: one binary, one subcommand per file (run_command, status_command, inspect_command).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "cli/cli_error.hpp"
#include "cli/inspect_command.hpp"
#include "cli/run_command.hpp"
#include "cli/status_command.hpp"

namespace {

using namespace yadokari::cli;

void add_run(CLI::App& app, RunOptions& options) {
  auto* run = app.add_subcommand("run", "Run an MPI program under yadokari");
  run->add_option("-n,--np", options.ranks, "Number of ranks")->required();
  run->add_option("--mpi", options.mpi, "MPI of the program: openmpi, mpich or auto (detect)")
      ->capture_default_str();
  run->add_option("--hosts", options.hosts, "Hosts and slots: h1:slots,h2:slots");
  run->add_option("--mpi-args", options.mpi_args, "Extra launcher arguments (shell-quoted)");
  run->add_option("command", options.command, "APP [ARGS...] (put -- before APP if it has options)")
      ->required();
  // Everything from APP on belongs to the application, even words that look like options.
  run->positionals_at_end();
}

void add_status(CLI::App& app, StatusOptions& options) {
  auto* status = app.add_subcommand("status", "Show what the ranks of a running job are doing");
  status->add_option("--job", options.job, "Job id (default: the only running job)");
  status->add_flag("--json", options.json, "Print JSON instead of a table");
}

void add_inspect(CLI::App& app, InspectOptions& options) {
  auto* inspect = app.add_subcommand("inspect", "Show the header and areas of a checkpoint image");
  inspect->add_option("image", options.image, "Image file (ckpt/<epoch>/rank-<L>.img)")->required();
  inspect->add_flag("--verify", options.verify, "Read every area and check its checksum");
  inspect->add_flag("--json", options.json, "Print JSON instead of a table");
}

int report(const std::string& message, int code) {
  std::fprintf(stderr, "yadokari: %s\n", message.c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"yadokari: fault-tolerant runtime for MPI programs", "yadokari"};
  app.set_version_flag("--version", "yadokari " YADOKARI_VERSION);
  app.require_subcommand(1);
  RunOptions run_options;
  StatusOptions status_options;
  add_run(app, run_options);
  add_status(app, status_options);
  InspectOptions inspect_options;
  add_inspect(app, inspect_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return report(e.what(), exit_code::usage);
  }

  try {
    if (app.got_subcommand("run")) return run_job(run_options);
    if (app.got_subcommand("inspect")) return inspect_image(inspect_options);
    return show_status(status_options);
  } catch (const CliError& e) {
    return report(e.what(), e.exit_code());
  } catch (const std::exception& e) {
    return report(e.what(), exit_code::failure);
  }
}
