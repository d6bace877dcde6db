// Prints common/parameters.hpp as the markdown table docs/CONTRACTS.md carries
// (check_parameters.sh compares them).
#include <cstdio>
#include <string>

#include "common/parameters.hpp"

namespace {
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}
}  // namespace

int main() {
  std::puts("| variable | value | default | read by | meaning |");
  std::puts("|---|---|---|---|---|");
  for (const auto& p : yadokari::parameters::kAll) {
    const std::string fallback = p.default_value.empty() ? "" : "`" + cell(p.default_value) + "`";
    std::printf("| `%s` | %s | %s | %s | %s |\n", std::string(p.name).c_str(), cell(p.type).c_str(), fallback.c_str(),
                cell(p.read_by).c_str(), cell(p.meaning).c_str());
  }
}
