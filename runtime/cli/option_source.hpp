#pragma once
// Where an option's value comes from: the flag if given, else its YADOKARI_* variable. Shared by
// the checkpoint and the recovery options; `name` goes into error messages.
#include <charconv>
#include <functional>
#include <optional>
#include <string>
#include <system_error>

namespace yadokari::cli {

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

struct OptionSource {
  std::string value;
  std::string name;  // "--interval" or "YADOKARI_CKPT_INTERVAL"
};

inline std::optional<OptionSource> pick_option(const std::string& flag_value, const char* flag, const char* variable,
                                               const EnvLookup& env) {
  if (!flag_value.empty()) return OptionSource{flag_value, flag};
  if (auto value = env(variable); value && !value->empty()) return OptionSource{*value, variable};
  return std::nullopt;
}

template <class T>
std::optional<T> whole_number(const std::string& text) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace yadokari::cli
