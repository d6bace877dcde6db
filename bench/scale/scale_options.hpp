#pragma once
// The scale harness's command line (bench/scale/README.md).
#include <cstdint>
#include <filesystem>
#include <string>

namespace yadokari::bench::scale {

enum class TrafficPattern { none, halo, all_to_all, sparse };

struct ScaleOptions {
  int ranks = 64;
  int ranks_per_node = 16;
  int rounds = 1;      // checkpoint epochs taken one after the other
  int cut_rounds = 1;  // CutTargets rounds per epoch (each one more means every rank reports again)
  std::uint64_t image_bytes = 64;
  TrafficPattern traffic = TrafficPattern::halo;
  int sparse_partners = 8;  // --traffic sparse: random partners per rank
  std::uint64_t seed = 0;   // --traffic sparse: which random partners (0: the partners of every earlier run)
  int workers = 0;          // processes holding the fake ranks and agents; 0: one per ~6,000 sockets
  // Heartbeats missed before a node is lost (the front end's default is 6 of 200 ms); more makes a
  // run on a busy machine immune to late heartbeats, at the price of a later detection.
  int heartbeat_misses = 6;
  int heartbeat_ms = 200;  // the agents' heartbeat interval (the front end's default)
  // Seconds of heartbeats alone before the rounds: the front end's cost of membership per second,
  // which the rounds' figures are also given without (a round's wall time here is the fake ranks').
  int idle_seconds = 2;
  // Every fake rank connects to the front end itself, instead of through its node's agent's relay
  // (the product's default, runtime/agent/rank_relay.hpp).
  bool direct = false;
  // Node-local images (--node-dir): each epoch's images replicated to a partner node; the fake
  // agents answer the coordinator's copy orders as the receiving agents would, at once.
  bool node_dir = false;
  bool lose_node = true;            // after the rounds: a node stops its heartbeats, then every policy plans
  bool plan_only = false;           // no sockets: only the planning after the node loss (plan_only.hpp)
  bool compare_exhaustive = false;  // --plan-only: also comm and auto with the exhaustive refinement
  std::filesystem::path dir;        // checkpoint directory; empty: a fresh one under TMPDIR, removed at the end

  int nodes() const { return (ranks + ranks_per_node - 1) / ranks_per_node; }
};

// Throws std::invalid_argument with a one-line message for a bad command line.
ScaleOptions parse_scale_options(int argc, char** argv);

const char* pattern_name(TrafficPattern pattern);

}  // namespace yadokari::bench::scale
