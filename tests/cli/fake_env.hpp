#pragma once
// An environment for the option resolvers that is only these variables.
#include <map>
#include <optional>
#include <string>

#include "runtime/cli/option_source.hpp"

inline yadokari::cli::EnvLookup fake_env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto found = vars.find(name);
    if (found == vars.end()) return std::nullopt;
    return found->second;
  };
}
