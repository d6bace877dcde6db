// Fuzz target: a job record in the state directory (control::running_jobs, which `yadokari
// status` and friends use). Records it cannot parse are skipped, so nothing may escape at all.
#include "runtime/control/job_registry.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "tests/fuzz/scratch_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace control = yadokari::control;
  const auto state_dir = yadokari::fuzz::scratch_dir() / "state";
  yadokari::fuzz::write_scratch_file(state_dir / "jobs" / "fuzz.json", data, size);
  try {
    control::running_jobs(state_dir);
  } catch (const control::RegistryError&) {
  }
  return 0;
}
