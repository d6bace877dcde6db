// Fuzz target: a checkpoint directory's job.json (frontend::read_job_file, docs/formats/job-json.md).
#include "runtime/frontend/frontend_error.hpp"
#include "runtime/frontend/job_file.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "tests/fuzz/scratch_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace frontend = yadokari::frontend;
  const auto ckpt_dir = yadokari::fuzz::scratch_dir() / "ckpt";
  yadokari::fuzz::write_scratch_file(frontend::job_file_path(ckpt_dir), data, size);
  try {
    frontend::read_job_file(ckpt_dir);
  } catch (const frontend::FrontendError&) {
  }
  return 0;
}
