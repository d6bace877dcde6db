// The rank's link to the front end (runtime/control): registration, status answers and the
// checkpoint protocol's messages.
#pragma once

#include "protocol/codec.hpp"

#include <string>

namespace yadokari::shim {

// Started and stopped by the composition root (link/lifecycle.hpp).

// Set before link::on_init(): receives the coordinator's checkpoint messages on the control
// thread (cut_protocol.cpp).
void set_control_listener(void (*listener)(const yadokari::protocol::Message&));

// Queues a message to the coordinator; dropped when there is no control plane.
void send_to_coordinator(const yadokari::protocol::Message& message);

// For a rank about to abort: queues its last message and closes the link, waiting (briefly,
// bounded) until the message has left. false when there is no link to send it on.
bool send_last_to_coordinator(const yadokari::protocol::Message& message);

// $YADOKARI_JOB_ID as read at MPI_Init ("" without one).
const std::string& job_id();

}  // namespace yadokari::shim
