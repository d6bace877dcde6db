// A node without ranks: its loss does not restart the job (frontend/spared_by_loss.hpp), and a first
// launch does not run anything there (hosts_the_ranks_fill, frontend/platform.hpp).
#include <catch2/catch.hpp>

#include "runtime/frontend/platform.hpp"
#include "runtime/frontend/spared_by_loss.hpp"

using yadokari::frontend::launch_spared_by_loss;
using yadokari::protocol::RegisterRank;

namespace {

RegisterRank rank_on(int rank, const std::string& host, int world = 4) {
  RegisterRank registration;
  registration.logical_rank = rank;
  registration.world_size = world;
  registration.hostname = host;
  return registration;
}

const std::vector<RegisterRank> kLaunch = {rank_on(0, "yk-n1"), rank_on(1, "yk-n1"), rank_on(2, "yk-n3"),
                                           rank_on(3, "yk-n3")};

}  // namespace

TEST_CASE("a node without ranks of the launch may go", "[lost-node]") {
  CHECK(launch_spared_by_loss(kLaunch, {"yk-n2"}));
  CHECK(launch_spared_by_loss(kLaunch, {"yk-n2", "yk-n4"}));
}

TEST_CASE("a node with a rank of the launch restarts the job", "[lost-node]") {
  CHECK_FALSE(launch_spared_by_loss(kLaunch, {"yk-n3"}));
  CHECK_FALSE(launch_spared_by_loss(kLaunch, {"yk-n2", "yk-n1"}));
  // Hostnames are compared whole: yk-n1 is not yk-n10.
  CHECK(launch_spared_by_loss(kLaunch, {"yk-n10"}));
}

TEST_CASE("where the ranks run is not known: the loss restarts the job", "[lost-node]") {
  // A rank has not registered yet (a restart still coming up): it may be on the lost node.
  const std::vector<RegisterRank> three(kLaunch.begin(), kLaunch.begin() + 3);
  CHECK_FALSE(launch_spared_by_loss(three, {"yk-n2"}));
  CHECK_FALSE(launch_spared_by_loss({}, {"yk-n2"}));
  // The node's agent never said which host it is.
  CHECK_FALSE(launch_spared_by_loss(kLaunch, {""}));
}

TEST_CASE("a first launch is given the hosts its ranks fill, in order", "[lost-node]") {
  using yadokari::launch::HostSlots;
  const std::vector<HostSlots> hosts = {{"h1", 2}, {"h2", 2}, {"h3", 2}};
  const auto names = [](const std::vector<HostSlots>& list) {
    std::string text;
    for (const auto& host : list) text += host.host + ":" + std::to_string(host.slots) + " ";
    return text;
  };
  CHECK(names(yadokari::frontend::hosts_the_ranks_fill(hosts, 4)) == "h1:2 h2:2 ");
  CHECK(names(yadokari::frontend::hosts_the_ranks_fill(hosts, 1)) == "h1:2 ");
  CHECK(names(yadokari::frontend::hosts_the_ranks_fill(hosts, 5)) == "h1:2 h2:2 h3:2 ");
  CHECK(names(yadokari::frontend::hosts_the_ranks_fill(hosts, 6)) == "h1:2 h2:2 h3:2 ");
  // More ranks than slots: every host, for the launcher to oversubscribe or refuse.
  CHECK(names(yadokari::frontend::hosts_the_ranks_fill(hosts, 9)) == "h1:2 h2:2 h3:2 ");
}
