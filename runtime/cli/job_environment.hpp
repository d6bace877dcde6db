#pragma once
// The environment of the launcher and of the ranks (docs/CONTRACTS.md, "Environment a rank
// receives from yadokari run"). Pure: takes the current environment as a list.
#include <string>
#include <vector>

namespace yadokari::cli {

struct JobSettings {
  std::string shim;  // absolute path of libyadokari-<flavour>.so
  std::string flavour;
  std::string control_endpoint;
  std::string job_id;
  std::string secret;
};

struct JobEnvironment {
  std::vector<std::string> launcher_env;     // NAME=VALUE, for exec of the launcher
  std::vector<std::string> forwarded_names;  // every YADOKARI_* in launcher_env, sorted
  std::string rank_ld_preload;               // shim first, then any LD_PRELOAD we inherited
};

JobEnvironment make_job_environment(const std::vector<std::string>& current,
                                    const JobSettings& settings);

// environ as a list
std::vector<std::string> current_environment();

}  // namespace yadokari::cli
