#include "bench/scale/scale_options.hpp"

#include <stdexcept>
#include <string_view>

namespace yadokari::bench::scale {
namespace {

int positive(std::string_view flag, const char* value) {
  const std::string text(value);
  std::size_t used = 0;
  int number = 0;
  try {
    number = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || number <= 0)
    throw std::invalid_argument(std::string(flag) + " wants a positive integer, not '" + text + "'");
  return number;
}

TrafficPattern parse_pattern(const std::string& name) {
  if (name == "none") return TrafficPattern::none;
  if (name == "halo") return TrafficPattern::halo;
  if (name == "all-to-all") return TrafficPattern::all_to_all;
  if (name == "sparse") return TrafficPattern::sparse;
  throw std::invalid_argument("--traffic wants none, halo, all-to-all or sparse, not '" + name + "'");
}

}  // namespace

const char* pattern_name(TrafficPattern pattern) {
  switch (pattern) {
    case TrafficPattern::none:
      return "none";
    case TrafficPattern::halo:
      return "halo";
    case TrafficPattern::all_to_all:
      return "all-to-all";
    case TrafficPattern::sparse:
      return "sparse";
  }
  return "?";
}

ScaleOptions parse_scale_options(int argc, char** argv) {
  ScaleOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--no-node-loss") {
      options.lose_node = false;
      continue;
    }
    if (flag == "--direct") {
      options.direct = true;
      continue;
    }
    if (flag == "--node-dir") {
      options.node_dir = true;
      continue;
    }
    if (flag == "--plan-only") {
      options.plan_only = true;
      continue;
    }
    if (flag == "--compare-exhaustive") {
      options.compare_exhaustive = true;
      continue;
    }
    if (i + 1 >= argc) throw std::invalid_argument("unknown option or missing value: " + std::string(flag));
    const char* value = argv[++i];
    if (flag == "--ranks")
      options.ranks = positive(flag, value);
    else if (flag == "--ranks-per-node")
      options.ranks_per_node = positive(flag, value);
    else if (flag == "--rounds")
      options.rounds = positive(flag, value);
    else if (flag == "--cut-rounds")
      options.cut_rounds = positive(flag, value);
    else if (flag == "--image-bytes")
      options.image_bytes = static_cast<std::uint64_t>(positive(flag, value));
    else if (flag == "--traffic")
      options.traffic = parse_pattern(value);
    else if (flag == "--partners")
      options.sparse_partners = positive(flag, value);
    else if (flag == "--seed")
      options.seed = static_cast<std::uint64_t>(positive(flag, value));
    else if (flag == "--heartbeat-misses")
      options.heartbeat_misses = positive(flag, value);
    else if (flag == "--heartbeat-ms")
      options.heartbeat_ms = positive(flag, value);
    else if (flag == "--idle-seconds")
      options.idle_seconds = positive(flag, value);
    else if (flag == "--workers")
      options.workers = positive(flag, value);
    else if (flag == "--dir")
      options.dir = value;
    else
      throw std::invalid_argument("unknown option " + std::string(flag));
  }
  if (options.compare_exhaustive && !options.plan_only)
    throw std::invalid_argument("--compare-exhaustive goes with --plan-only");
  if (options.lose_node && options.nodes() < 2)
    throw std::invalid_argument("a node loss needs at least 2 nodes (--no-node-loss, or more ranks)");
  return options;
}

}  // namespace yadokari::bench::scale
