#pragma once
// The environment of the launcher and of the ranks (docs/CONTRACTS.md, "Environment a rank
// receives from yadokari run"). Pure: takes the current environment as a list.
#include <string>
#include <utility>
#include <vector>
#include "common/parameters.hpp"

namespace yadokari::frontend {

struct JobSettings {
  std::string shim;  // absolute path of libyadokari-<flavour>.so
  std::string flavour;
  std::string control_endpoint;
  std::string job_id;
  std::string credential;  // YADOKARI_JOB_SECRET: the job secret and the coordinator key (protocol/credential.hpp)
  // More variables for the ranks (YADOKARI_CKPT_DIR, YADOKARI_RESTORE, ...), set over anything
  // inherited.
  std::vector<std::pair<std::string, std::string>> extra;
};

// Variables that only `yadokari run`/`restart` may set for the ranks: inherited values are
// dropped, so a stray YADOKARI_RESTORE in the user's shell can never make a fresh job restore.
inline constexpr const char* kFrontEndOnlyVariables[] = {yadokari::parameters::kCkptDir, yadokari::parameters::kRestore,
                                                         yadokari::parameters::kRestoreEpoch,
                                                         yadokari::parameters::kRankMap};

// Set to "none" for the ranks of a job with checkpoints (job_environment.cpp says why).
inline constexpr const char* kUcxMmapHookMode = "UCX_MEM_MMAP_HOOK_MODE";

struct JobEnvironment {
  std::vector<std::string> launcher_env;     // NAME=VALUE, for exec of the launcher
  std::vector<std::string> forwarded_names;  // every YADOKARI_* in launcher_env (and UCX's hook mode), sorted
  std::string rank_ld_preload;               // shim first, then any LD_PRELOAD we inherited
};

JobEnvironment make_job_environment(const std::vector<std::string>& current, const JobSettings& settings);

// environ as a list
std::vector<std::string> current_environment();

}  // namespace yadokari::frontend
