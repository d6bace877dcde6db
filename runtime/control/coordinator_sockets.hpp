#pragma once
// The coordinator's sockets, shared by coordinator.cpp and coordinator_checkpoint.cpp only.
#include <zmq.hpp>

#include "runtime/control/coordinator.hpp"

namespace yadokari::control {

struct Coordinator::Sockets {
  zmq::context_t context;
  zmq::socket_t ranks;   // ROUTER: one DEALER per rank
  zmq::socket_t status;  // REP: `yadokari status`, `yadokari checkpoint`
};

}  // namespace yadokari::control
