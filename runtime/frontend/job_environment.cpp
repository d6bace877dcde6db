#include "frontend/job_environment.hpp"

#include <unistd.h>

#include <algorithm>
#include <map>

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
  vars["YADOKARI_FLAVOUR"] = settings.flavour;
  vars["YADOKARI_CONTROL"] = settings.control_endpoint;
  vars["YADOKARI_JOB_ID"] = settings.job_id;
  vars["YADOKARI_JOB_SECRET"] = settings.credential;

  for (const auto& [name, value] : vars) {
    env.launcher_env.push_back(name + "=" + value);
    if (name.rfind("YADOKARI_", 0) == 0) env.forwarded_names.push_back(name);
  }
  return env;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** entry = environ; *entry; ++entry) env.emplace_back(*entry);
  return env;
}

}  // namespace yadokari::frontend
