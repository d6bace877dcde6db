#include "runtime/frontend/job_environment.hpp"

#include <unistd.h>

#include <algorithm>
#include <map>
#include "common/parameters.hpp"

namespace yadokari::frontend {

JobEnvironment make_job_environment(const std::vector<std::string>& current, const JobSettings& settings) {
  std::map<std::string, std::string> vars;
  for (const auto& entry : current) {
    const auto eq = entry.find('=');
    if (eq != std::string::npos) vars.insert({entry.substr(0, eq), entry.substr(eq + 1)});
  }
  JobEnvironment env;
  env.rank_ld_preload = settings.shim;
  if (auto inherited = vars.find("LD_PRELOAD"); inherited != vars.end() && !inherited->second.empty())
    env.rank_ld_preload += ":" + inherited->second;

  // Ours win over anything inherited (e.g. from an outer yadokari run); the user's own
  // YADOKARI_* settings (YADOKARI_STATS, ...) pass through.
  for (const char* name : kFrontEndOnlyVariables) vars.erase(name);
  for (const auto& [name, value] : settings.extra) vars[name] = value;
  vars[yadokari::parameters::kFlavour] = settings.flavour;
  vars[yadokari::parameters::kControl] = settings.control_endpoint;
  vars[yadokari::parameters::kJobId] = settings.job_id;
  vars[yadokari::parameters::kJobSecret] = settings.credential;
  // With checkpoints on, the memory layer interposes the application's mmap/munmap/mremap. UCX's
  // memory hooks (MPICH over UCX; Open MPI's pml ucx) would rewrite the executable's GOT entries for
  // them at load time and call libc directly: the application's mappings would be silently not
  // carried (checkpoint/memory/README.md, "The application's mappings"). Not left to the user.
  const bool memory_layer_on = std::any_of(settings.extra.begin(), settings.extra.end(), [](const auto& variable) {
    return variable.first == yadokari::parameters::kCkptDir || variable.first == yadokari::parameters::kRestore;
  });
  std::vector<std::string> forwarded_too;
  if (memory_layer_on) {
    vars[kUcxMmapHookMode] = "none";
    forwarded_too.push_back(kUcxMmapHookMode);
  }

  for (const auto& [name, value] : vars) {
    env.launcher_env.push_back(name + "=" + value);
    if (name.rfind("YADOKARI_", 0) == 0) env.forwarded_names.push_back(name);
  }
  env.forwarded_names.insert(env.forwarded_names.end(), forwarded_too.begin(), forwarded_too.end());
  std::sort(env.forwarded_names.begin(), env.forwarded_names.end());
  return env;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** entry = environ; *entry; ++entry) env.emplace_back(*entry);
  return env;
}

}  // namespace yadokari::frontend
