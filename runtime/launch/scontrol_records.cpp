#include "runtime/launch/scontrol_records.hpp"

#include "runtime/launch/scontrol.hpp"

namespace yadokari::launch {

std::string scontrol_field(std::string_view line, std::string_view key) {
  for (std::size_t at = 0; (at = line.find(key, at)) != std::string_view::npos; at += key.size()) {
    const bool starts_word = at == 0 || line[at - 1] == ' ';
    const std::size_t equals = at + key.size();
    if (!starts_word || equals >= line.size() || line[equals] != '=') continue;
    const std::size_t end = line.find_first_of(" \n", equals + 1);
    return std::string(line.substr(equals + 1, end == std::string_view::npos ? end : end - equals - 1));
  }
  return {};
}

std::vector<SlurmNodeState> read_slurm_nodes(std::string_view text) {
  std::vector<SlurmNodeState> nodes;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (line.find_first_not_of(' ') == std::string_view::npos) continue;
    SlurmNodeState node{scontrol_field(line, "NodeName"), scontrol_field(line, "State"), {}};
    if (const auto reason = line.find(" Reason="); reason != std::string_view::npos)
      node.reason = std::string(line.substr(reason + 8));
    if (node.node.empty() || node.state.empty())
      throw ScontrolError("cannot read scontrol's node line '" + std::string(line.substr(0, 80)) + "'");
    nodes.push_back(std::move(node));
  }
  return nodes;
}

}  // namespace yadokari::launch
