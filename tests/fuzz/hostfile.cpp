// Fuzz target: `yadokari run --hostfile F` (cli::read_hostfile).
#include "runtime/cli/cli_error.hpp"
#include "runtime/cli/hostfile.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "tests/fuzz/scratch_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace cli = yadokari::cli;
  const auto path = yadokari::fuzz::scratch_dir() / "hostfile";
  yadokari::fuzz::write_scratch_file(path, data, size);
  try {
    for (const auto& host : cli::read_hostfile(path.string()))
      if (host.host.empty() || host.slots < 1) __builtin_trap();
  } catch (const cli::CliError&) {
  }
  return 0;
}
