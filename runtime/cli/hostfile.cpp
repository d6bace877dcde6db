#include "runtime/cli/hostfile.hpp"

#include <fstream>
#include <sstream>

#include "runtime/cli/cli_error.hpp"
#include "runtime/cli/option_source.hpp"

namespace yadokari::cli {

std::vector<launch::HostSlots> read_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw CliError(exit_code::usage, "cannot read --hostfile " + path);
  std::vector<launch::HostSlots> hosts;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string host, extra, more;
    if (!(words >> host)) continue;
    words >> extra >> more;
    int slots = 1;
    bool good = more.empty();
    if (const auto colon = host.find(':'); colon != std::string::npos) {
      const auto count = whole_number<int>(host.substr(colon + 1));
      good = good && extra.empty() && count && *count >= 1;
      slots = count.value_or(0);
      host.erase(colon);
    } else if (!extra.empty()) {
      const auto count = extra.rfind("slots=", 0) == 0 ? whole_number<int>(extra.substr(6)) : std::nullopt;
      good = good && count && *count >= 1;
      slots = count.value_or(0);
    }
    if (!good || host.empty())
      throw CliError(exit_code::usage, path + ":" + std::to_string(number) +
                                           ": expected 'host', 'host slots=N' or 'host:N', not '" + line + "'");
    hosts.push_back(launch::HostSlots{host, slots});
  }
  if (hosts.empty()) throw CliError(exit_code::usage, "--hostfile " + path + " lists no host");
  return hosts;
}

}  // namespace yadokari::cli
