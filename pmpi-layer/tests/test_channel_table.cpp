#include "pmpi-layer/src/core/channel_table.hpp"
#include "pmpi-layer/src/telemetry/heaviest_partners.hpp"

#include <catch2/catch.hpp>

TEST_CASE("channels count messages and bytes per peer", "[channels]") {
  yadokari::shim::CommChannels c(0, {0, 1, 2});
  c.on_send(1, 100);
  c.on_send(1, 50);
  c.on_receive(2, 8);
  CHECK(c.channel(1).messages_sent.get() == 2);
  CHECK(c.channel(1).bytes_sent.get() == 150);
  CHECK(c.channel(2).messages_received.get() == 1);
  CHECK(c.channel(2).bytes_received.get() == 8);
  CHECK(c.channel(0).messages_sent.get() == 0);
}

TEST_CASE("MPI_PROC_NULL and out-of-range peers are ignored", "[channels]") {
  yadokari::shim::CommChannels c(0, {0, 1});
  c.on_send(-2, 10);  // MPI_PROC_NULL
  c.on_send(2, 10);
  c.on_receive(-1, 10);
  CHECK(c.channel(0).messages_sent.get() == 0);
  CHECK(c.channel(1).messages_sent.get() == 0);
}

TEST_CASE("traffic of sub-communicators adds up by logical rank", "[channels]") {
  // A row communicator holding world ranks 2 and 3 (its ranks 0 and 1).
  yadokari::shim::CommChannels world(0, {0, 1, 2, 3});
  yadokari::shim::CommChannels row(1, {2, 3});
  world.on_send(3, 10);
  row.on_send(1, 5);     // to world rank 3
  row.on_receive(0, 7);  // from world rank 2
  auto r = yadokari::shim::make_traffic_row(4);
  yadokari::shim::accumulate(world, r);
  yadokari::shim::accumulate(row, r);
  CHECK(r.bytes_sent == std::vector<std::uint64_t>{0, 0, 0, 15});
  CHECK(r.messages_sent[3] == 2);
  CHECK(r.bytes_received[2] == 7);
}

TEST_CASE("freed communicators keep their traffic in the matrix", "[channels]") {
  yadokari::shim::RetiredChannels retired;
  retired.resize(4);
  yadokari::shim::CommChannels row(5, {2, 3});
  row.on_send(1, 64);
  row.on_receive(0, 32);
  retired.retire(row);
  CHECK(retired.communicators() == 1);
  auto r = yadokari::shim::make_traffic_row(4);
  yadokari::shim::accumulate(retired.as_world_view(), r);
  CHECK(r.bytes_sent == std::vector<std::uint64_t>{0, 0, 0, 64});
  CHECK(r.bytes_received == std::vector<std::uint64_t>{0, 0, 32, 0});
}

TEST_CASE("the traffic row sent to the front end keeps the heaviest partners, by rank", "[channels]") {
  using yadokari::protocol::TrafficPartner;
  yadokari::shim::TrafficRow row = yadokari::shim::make_traffic_row(6);
  row.bytes_sent = {0, 500, 100, 500, 0, 900};
  row.messages_sent = {0, 5, 1, 7, 3, 9};
  // Rank 4 got messages without bytes; ties on bytes go to more messages (3 before 1).
  CHECK(yadokari::shim::heaviest_partners(row, 3) ==
        std::vector<TrafficPartner>{{1, 500, 5}, {3, 500, 7}, {5, 900, 9}});
  CHECK(yadokari::shim::heaviest_partners(row, 2) == std::vector<TrafficPartner>{{3, 500, 7}, {5, 900, 9}});
  CHECK(yadokari::shim::heaviest_partners(row, 16) ==
        std::vector<TrafficPartner>{{1, 500, 5}, {2, 100, 1}, {3, 500, 7}, {4, 0, 3}, {5, 900, 9}});
  CHECK(yadokari::shim::heaviest_partners(yadokari::shim::make_traffic_row(4), 16).empty());
}
