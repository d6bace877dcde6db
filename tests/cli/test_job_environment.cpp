#include <algorithm>
#include <catch2/catch.hpp>

#include "runtime/frontend/job_environment.hpp"

using namespace yadokari::frontend;

namespace {

const JobSettings kSettings{
    "/opt/y/lib/libyadokari-openmpi.so", "openmpi", "tcp://127.0.0.1:4000", "yk-1", "s3cret", {}};

bool has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

}  // namespace

TEST_CASE("the ranks get the contract's variables", "[environment]") {
  const auto env = make_job_environment({"PATH=/usr/bin", "HOME=/root"}, kSettings);
  CHECK(has(env.launcher_env, "PATH=/usr/bin"));
  CHECK(has(env.launcher_env, "HOME=/root"));
  CHECK(has(env.launcher_env, "YADOKARI_FLAVOUR=openmpi"));
  CHECK(has(env.launcher_env, "YADOKARI_CONTROL=tcp://127.0.0.1:4000"));
  CHECK(has(env.launcher_env, "YADOKARI_JOB_ID=yk-1"));
  CHECK(has(env.launcher_env, "YADOKARI_JOB_SECRET=s3cret"));
  CHECK(env.forwarded_names ==
        std::vector<std::string>{"YADOKARI_CONTROL", "YADOKARI_FLAVOUR", "YADOKARI_JOB_ID", "YADOKARI_JOB_SECRET"});
  CHECK(env.rank_ld_preload == "/opt/y/lib/libyadokari-openmpi.so");
}

TEST_CASE("the shim goes before an inherited LD_PRELOAD, which the launcher keeps", "[environment]") {
  const auto env = make_job_environment({"LD_PRELOAD=/usr/lib/libother.so"}, kSettings);
  CHECK(env.rank_ld_preload == "/opt/y/lib/libyadokari-openmpi.so:/usr/lib/libother.so");
  CHECK(has(env.launcher_env, "LD_PRELOAD=/usr/lib/libother.so"));
}

TEST_CASE("the user's YADOKARI_STATS is kept and forwarded, stale job variables are replaced", "[environment]") {
  const auto env = make_job_environment(
      {"YADOKARI_STATS=/data/stats", "YADOKARI_JOB_ID=old", "YADOKARI_CONTROL=tcp://old:1"}, kSettings);
  CHECK(has(env.launcher_env, "YADOKARI_STATS=/data/stats"));
  CHECK(has(env.launcher_env, "YADOKARI_JOB_ID=yk-1"));
  CHECK_FALSE(has(env.launcher_env, "YADOKARI_JOB_ID=old"));
  CHECK_FALSE(has(env.launcher_env, "YADOKARI_CONTROL=tcp://old:1"));
  CHECK(std::count(env.forwarded_names.begin(), env.forwarded_names.end(), "YADOKARI_STATS") == 1);
}

TEST_CASE("checkpoint variables come only from the front end", "[environment]") {
  JobSettings settings = kSettings;
  settings.extra = {{"YADOKARI_CKPT_DIR", "/ckpt"}, {"YADOKARI_RESTORE", "/ckpt/3"}};
  // A stray YADOKARI_RESTORE/RANK_MAP in the user's shell must not reach a fresh job.
  const auto env =
      make_job_environment({"YADOKARI_RESTORE=/old/1", "YADOKARI_RANK_MAP=1,0", "YADOKARI_CKPT_DIR=rel"}, settings);
  CHECK(has(env.launcher_env, "YADOKARI_CKPT_DIR=/ckpt"));
  CHECK(has(env.launcher_env, "YADOKARI_RESTORE=/ckpt/3"));
  CHECK_FALSE(has(env.launcher_env, "YADOKARI_RANK_MAP=1,0"));
  CHECK(std::count(env.forwarded_names.begin(), env.forwarded_names.end(), "YADOKARI_RESTORE") == 1);

  const auto fresh = make_job_environment({"YADOKARI_RESTORE=/old/1", "YADOKARI_CKPT_DIR=x"}, kSettings);
  for (const auto& entry : fresh.launcher_env) {
    CHECK(entry.rfind("YADOKARI_RESTORE=", 0) != 0);
    CHECK(entry.rfind("YADOKARI_CKPT_DIR=", 0) != 0);
  }
}

TEST_CASE("with checkpoints, UCX's mmap hooks are off for the ranks and that is forwarded", "[environment]") {
  JobSettings settings = kSettings;
  settings.extra = {{"YADOKARI_CKPT_DIR", "/ckpt"}};
  // Even over the user's own choice: with the hooks the application's mappings are not carried.
  const auto env = make_job_environment({"UCX_MEM_MMAP_HOOK_MODE=reloc"}, settings);
  CHECK(has(env.launcher_env, "UCX_MEM_MMAP_HOOK_MODE=none"));
  CHECK_FALSE(has(env.launcher_env, "UCX_MEM_MMAP_HOOK_MODE=reloc"));
  CHECK(std::count(env.forwarded_names.begin(), env.forwarded_names.end(), "UCX_MEM_MMAP_HOOK_MODE") == 1);
  CHECK(std::is_sorted(env.forwarded_names.begin(), env.forwarded_names.end()));

  // Without checkpoints the memory layer is off: UCX is left as the user has it.
  const auto plain = make_job_environment({"UCX_MEM_MMAP_HOOK_MODE=reloc"}, kSettings);
  CHECK(has(plain.launcher_env, "UCX_MEM_MMAP_HOOK_MODE=reloc"));
  CHECK(std::count(plain.forwarded_names.begin(), plain.forwarded_names.end(), "UCX_MEM_MMAP_HOOK_MODE") == 0);
}
