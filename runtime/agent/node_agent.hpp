#pragma once
// The node agent (`yadokari agent`): one per node of a job, started by the front end inside the
// node (namespace entry for simulated nodes). It says hello to the coordinator with the job's id
// and secret, sends a heartbeat every interval the coordinator asked for (its silence is how a
// lost node is detected), and kills the processes the coordinator names when a restart stops the
// job. With node-local storage (--node-dir) it also verifies, sends and receives the node's
// checkpoint images (node_images.hpp). It ends with its parent (the front end), on SIGTERM or on the
// coordinator's goodbye, and then kills whatever of the job is still in its node (job_processes.hpp).
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>

namespace yadokari::agent {

struct AgentOptions {
  std::string coordinator;         // the coordinator's control endpoint, tcp://host:port
  std::string node;                // this node's id in the job ("n2")
  std::string job_id;              // $YADOKARI_JOB_ID
  std::string credential;          // $YADOKARI_JOB_SECRET, protocol/credential.hpp (never on the command line)
  std::filesystem::path node_dir;  // node-local image storage; empty: this node keeps none
  // >= 0: end when this descriptor reaches end of file (an agent started over ssh reads its
  // credentials from stdin, which the front end keeps open while the job runs).
  int end_on_eof_fd = -1;
  // > 0: this node is not part of the job yet and joins it with this many slots (`yadokari join`).
  std::int32_t join_slots = 0;
  std::chrono::milliseconds hello_timeout{5000};
  // An agent whose connection to the coordinator has been down this long ends (exit 1): the front
  // end died or its host is gone, and an agent that joined on its own has nobody else to stop it.
  std::chrono::milliseconds coordinator_lost_after{10000};
  // Relay this node's ranks to the coordinator (rank_relay.hpp); tests that run several agents
  // of one job on one host turn it off for all but one.
  bool relay_ranks = true;
  // With node_dir: take other agents' image copies on a port of this agent's own (image_links.hpp);
  // off, copies to this node come through the coordinator (tests of that path).
  bool image_port = true;
  // Polled every turn besides SIGTERM (tests run agents on threads); empty = never.
  std::function<bool()> stop_requested;
};

// Returns the exit code: 0 after SIGTERM or the parent's end, 1 when the coordinator refuses the
// agent, does not answer, or is lost (a one-line message on stderr).
int run_node_agent(const AgentOptions& options);

}  // namespace yadokari::agent
