#pragma once
// The front end's side of the control plane. Ranks connect to a ROUTER (control endpoint) and
// register with the job id and secret; CLI clients ask a REP socket (status endpoint) for a
// StatusReport, which the coordinator assembles by querying every registered rank.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "control/protocol.hpp"

namespace yadokari::control {

struct CoordinatorConfig {
  std::string job_id;
  std::string secret;
  std::string app;
  std::string flavour;
  std::int32_t world_size = 0;
  // Address both sockets bind to; ranks and CLI clients must be able to reach it.
  std::string bind_host = "127.0.0.1";
  // How long a CLI status request waits for the ranks' answers.
  std::chrono::milliseconds status_query_timeout{2000};
  // One line per event worth telling the user (refused registrations). Default: stderr.
  std::function<void(const std::string&)> log;
};

class Coordinator {
 public:
  explicit Coordinator(CoordinatorConfig config);
  ~Coordinator();
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  // Actual endpoints (ephemeral ports resolved), e.g. "tcp://127.0.0.1:40123".
  const std::string& control_endpoint() const;
  const std::string& status_endpoint() const;

  // Serves registrations and CLI status requests for up to `timeout`.
  void poll(std::chrono::milliseconds timeout);

  // Asks every registered rank for its status and waits up to `timeout` for the answers.
  StatusReport query_all(std::chrono::milliseconds timeout);

  std::vector<std::int32_t> registered_ranks() const;

  struct Sockets;

 private:
  struct RankEntry {
    std::string routing_id;
    RegisterRank registration;
  };

  void serve_rank_message(std::string routing_id, std::string peer, std::string_view bytes,
                          std::map<std::int32_t, RankStatus>* answers, std::uint64_t query_id);
  void serve_registration(const std::string& routing_id, const std::string& peer,
                          const RegisterRank& registration);
  void serve_status_request();
  void receive_rank_messages(std::map<std::int32_t, RankStatus>* answers, std::uint64_t query_id);

  CoordinatorConfig config_;
  std::unique_ptr<Sockets> sockets_;
  std::string control_endpoint_;
  std::string status_endpoint_;
  std::map<std::int32_t, RankEntry> ranks_;
  std::uint64_t last_query_id_ = 0;
};

}  // namespace yadokari::control
