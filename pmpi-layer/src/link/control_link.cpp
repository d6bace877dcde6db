#include "pmpi-layer/src/link/control_link.hpp"

#include "pmpi-layer/src/cut/image_progress.hpp"
#include "pmpi-layer/src/link/lifecycle.hpp"
#include "pmpi-layer/src/link/rank_client.hpp"
#include "pmpi-layer/src/telemetry/call_counters.hpp"
#include "pmpi-layer/src/telemetry/compute_sampler.hpp"
#include "pmpi-layer/src/telemetry/rank_totals.hpp"
#include "pmpi-layer/src/objects/world.hpp"

#include <mpi.h>

#include <cstdlib>
#include <memory>
#include "common/parameters.hpp"

namespace yadokari::shim {
namespace {

std::unique_ptr<yadokari::link::RankControlClient> g_client;
void (*g_listener)(const yadokari::protocol::Message&) = nullptr;
std::string g_job_id;

yadokari::protocol::RankStatus snapshot() {
  yadokari::protocol::RankStatus s;
  const RankTotals t = rank_totals();
  s.mpi_calls_total = t.calls;
  s.messages_sent = t.messages_sent;
  s.bytes_sent = t.bytes_sent;
  s.messages_received = t.messages_received;
  s.bytes_received = t.bytes_received;
  s.current_call = function_name(g_current_call.load(std::memory_order_relaxed));
  s.seconds_since_init = seconds_since_init();
  s.compute_seconds = compute_seconds();
  s.writing_epoch = image_progress::writing_epoch();
  s.writing_bytes = image_progress::writing_bytes();
  return s;
}

}  // namespace

void link::on_init() {
  yadokari::link::RankIdentity id;
  id.logical_rank = identity().logical_rank;
  id.world_size = identity().world_size;
  id.flavour = kFlavour;
  id.init_seconds = identity().library_init_seconds;
  if (const char* job = std::getenv(yadokari::parameters::kJobId)) g_job_id = job;
  yadokari::link::RankControlClient::Listener listener;
  if (g_listener) listener = [](const yadokari::protocol::Message& m) { g_listener(m); };
  g_client = yadokari::link::RankControlClient::start_from_env(id, snapshot, std::move(listener));
}

bool link::up() { return g_client != nullptr; }

void set_control_listener(void (*listener)(const yadokari::protocol::Message&)) { g_listener = listener; }

void send_to_coordinator(const yadokari::protocol::Message& message) {
  if (g_client) g_client->send(message);
}

bool send_last_to_coordinator(const yadokari::protocol::Message& message) {
  if (!g_client) return false;
  g_client->send(message);
  g_client.reset();  // the client sends what is queued and lingers for it (rank_client.cpp)
  return true;
}

const std::string& job_id() { return g_job_id; }

void link::on_finalize() { g_client.reset(); }

}  // namespace yadokari::shim
