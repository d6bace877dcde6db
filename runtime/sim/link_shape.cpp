#include "runtime/sim/link_shape.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>
#include <utility>

#include "runtime/sim/sim_error.hpp"

namespace yadokari::sim {
namespace {

std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

}  // namespace

std::uint64_t parse_tc_rate_bytes(const std::string& rate) {
  std::size_t digits = 0;
  while (digits < rate.size() && (std::isdigit(static_cast<unsigned char>(rate[digits])) || rate[digits] == '.'))
    ++digits;
  const std::string unit = lower(rate.substr(digits));
  // {unit, bytes per second per unit}
  static const std::array<std::pair<const char*, double>, 11> kUnits{{{"", 1},
                                                                      {"bit", 1.0 / 8},
                                                                      {"kbit", 1e3 / 8},
                                                                      {"mbit", 1e6 / 8},
                                                                      {"gbit", 1e9 / 8},
                                                                      {"tbit", 1e12 / 8},
                                                                      {"bps", 1},
                                                                      {"kbps", 1e3},
                                                                      {"mbps", 1e6},
                                                                      {"gbps", 1e9},
                                                                      {"tbps", 1e12}}};
  double number = 0;
  bool parsed = digits > 0;
  if (parsed) {
    try {
      std::size_t used = 0;
      number = std::stod(rate.substr(0, digits), &used);
      parsed = used == digits && number > 0;
    } catch (const std::exception&) {
      parsed = false;
    }
  }
  const auto match = std::find_if(kUnits.begin(), kUnits.end(), [&](const auto& u) { return unit == u.first; });
  if (!parsed || match == kUnits.end())
    throw SimError("--link: '" + rate + "' is not a rate (e.g. 15mbit, 1gbit, 2mbps)", 2);
  const double bytes = number * match->second;
  if (bytes < 1) throw SimError("--link: '" + rate + "' is below one byte per second", 2);
  return static_cast<std::uint64_t>(bytes);
}

std::vector<std::string> link_qdisc_args(const std::string& link) {
  const std::vector<std::string> words = words_of(link);
  if (words.size() == 2 && words[0] == "rate") {
    const std::uint64_t bytes_per_second = parse_tc_rate_bytes(words[1]);
    const std::uint64_t burst = std::max<std::uint64_t>(bytes_per_second / 100, 64 * 1024);
    return {"tbf", "rate", words[1], "burst", std::to_string(burst), "latency", "50ms"};
  }
  std::vector<std::string> args{"netem"};
  args.insert(args.end(), words.begin(), words.end());
  return args;
}

}  // namespace yadokari::sim
