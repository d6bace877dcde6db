#include "runtime/cli/status_format.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace yadokari::cli {

std::string status_table(const protocol::StatusReport& report) {
  std::string out =
      fmt::format("job {}  app {}  {}  {} ranks\n", report.job_id, report.app, report.flavour, report.world_size);
  std::size_t host_width = 4, call_width = 8;
  for (const auto& rank : report.ranks) {
    host_width = std::max(host_width, rank.hostname.size());
    call_width = std::max(call_width, rank.current_call.size());
  }
  const auto row = [&](auto rank, auto host, auto pid, auto call, auto calls, auto msgs_sent, auto bytes_sent,
                       auto msgs_received, auto bytes_received, auto since, auto compute) {
    return fmt::format("{:>4}  {:<{}}  {:>8}  {:<{}}  {:>12}  {:>10}  {:>14}  {:>10}  {:>14}  {:>9}  {:>9}\n", rank,
                       host, host_width, pid, call, call_width, calls, msgs_sent, bytes_sent, msgs_received,
                       bytes_received, since, compute);
  };
  out += row("rank", "host", "pid", "MPI call", "calls", "msgs sent", "bytes sent", "msgs recv", "bytes recv",
             "since init", "computing");
  // "computing": time outside MPI since this process's MPI_Init (- = not measured).
  for (const auto& r : report.ranks)
    out += row(r.logical_rank, r.hostname, r.pid, r.current_call.empty() ? "-" : r.current_call, r.mpi_calls_total,
               r.messages_sent, r.bytes_sent, r.messages_received, r.bytes_received,
               fmt::format("{:.1f}s", r.seconds_since_init),
               r.compute_seconds >= 0 ? fmt::format("{:.1f}s", r.compute_seconds) : std::string("-"));
  if (!report.ranks_not_answering.empty())
    out += fmt::format("not answering: {}\n", fmt::join(report.ranks_not_answering, ", "));
  if (report.last_committed_epoch > 0) out += fmt::format("last committed epoch: {}\n", report.last_committed_epoch);
  // Images written in the background while the ranks run on (checkpoint/memory/README.md).
  for (const auto& r : report.ranks)
    if (r.writing_epoch != 0)
      out += fmt::format("rank {}: writing the image of epoch {} in the background, {:.1f} MB so far\n", r.logical_rank,
                         r.writing_epoch, static_cast<double>(r.writing_bytes) / 1e6);
  if (!report.nodes.empty()) {
    out += fmt::format("{:<6}  {:<20}  {:<8}  {:>5}  {:>10}  {}\n", "node", "host", "state", "slots", "last heard",
                       "ranks");
    for (const auto& n : report.nodes)
      out += fmt::format("{:<6}  {:<20}  {:<8}  {:>5}  {:>10}  {}\n", n.node, n.hostname.empty() ? "-" : n.hostname,
                         n.state, n.slots, fmt::format("{:.2f}s ago", n.seconds_since_heard),
                         n.ranks.empty() ? std::string("-") : fmt::format("{}", fmt::join(n.ranks, ",")));
    // A node announced as leaving (docs/flows/migrate.md, "Draining a node").
    for (const auto& n : report.nodes)
      if (!n.drain.empty()) out += fmt::format("node {} is draining: {}\n", n.node, n.drain);
    out += fmt::format("ranks relayed by their node's agent: {} of {}\n", report.relayed_ranks, report.world_size);
    out += fmt::format("image chunks passed on by the front end: {}\n", report.image_chunks_passed_on);
  }
  out += fmt::format("automatic restarts: {}\n", report.restarts);
  for (const auto& line : report.timeline) out += line + "\n";
  return out;
}

nlohmann::json status_json(const protocol::StatusReport& report) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& r : report.ranks)
    ranks.push_back({{"rank", r.logical_rank},
                     {"host", r.hostname},
                     {"pid", r.pid},
                     {"current_call", r.current_call},
                     {"mpi_calls", r.mpi_calls_total},
                     {"messages_sent", r.messages_sent},
                     {"bytes_sent", r.bytes_sent},
                     {"messages_received", r.messages_received},
                     {"bytes_received", r.bytes_received},
                     {"seconds_since_init", r.seconds_since_init},
                     {"compute_seconds", r.compute_seconds >= 0 ? nlohmann::json(r.compute_seconds) : nlohmann::json()},
                     {"writing_epoch", r.writing_epoch != 0 ? nlohmann::json(r.writing_epoch) : nlohmann::json()},
                     {"writing_bytes", r.writing_bytes}});
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : report.nodes)
    nodes.push_back({{"node", n.node},
                     {"host", n.hostname},
                     {"state", n.state},
                     {"slots", n.slots},
                     {"seconds_since_heard", n.seconds_since_heard},
                     {"ranks", n.ranks},
                     {"drain", n.drain.empty() ? nlohmann::json() : nlohmann::json(n.drain)}});
  return {{"job_id", report.job_id},
          {"app", report.app},
          {"flavour", report.flavour},
          {"world_size", report.world_size},
          {"ranks", ranks},
          {"not_answering", report.ranks_not_answering},
          {"last_committed_epoch", report.last_committed_epoch},
          {"nodes", nodes},
          {"relayed_ranks", report.relayed_ranks},
          {"image_chunks_passed_on", report.image_chunks_passed_on},
          {"restarts", report.restarts},
          {"timeline", report.timeline}};
}

}  // namespace yadokari::cli
