// Node-local images (--node-dir) through real agents and the coordinator in one process: a copy
// from one node's storage to another's, verification, a damaged image, orders to nodes without a
// live agent, and forgetting old epochs. Each agent gets its own directory as its "node disk".
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <vector>

#include "runtime/agent/image_links.hpp"
#include "runtime/agent/node_images.hpp"
#include "tests/cli/agent_harness.hpp"
#include "checkpoint/image/image_writer.hpp"

using namespace yadokari;
using namespace agent_harness;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

struct Disks {
  fs::path root = fs::temp_directory_path() / ("yk-node-images-" + std::to_string(getpid()));
  Disks() { fs::remove_all(root); }
  ~Disks() { fs::remove_all(root); }
  fs::path of(const std::string& node) const { return root / node; }
};

// Gives the order and serves the coordinator until its answer comes.
protocol::ImageOrderDone run(Cluster& cluster, const std::string& node, const protocol::ImageOrder& order) {
  const auto id = cluster.coordinator.order_image(node, order);
  std::optional<protocol::ImageOrderDone> done;
  cluster.serve_until([&] { return (done = cluster.coordinator.take_image_order_result(id)).has_value(); });
  REQUIRE(done);
  return *done;
}

// A real image of rank 0, epoch 1, with `bytes` of incompressible data (several chunks).
image::WrittenImage write_image(const fs::path& path, std::size_t bytes) {
  fs::create_directories(path.parent_path());
  image::ImageHeader header;
  header.job_id = kJob;
  header.rank = 0;
  header.world_size = 1;
  header.epoch = 1;
  header.flavour = "openmpi";
  image::ImageWriter writer(path.string(), header);
  std::vector<unsigned char> data(bytes);
  std::uint64_t x = 88172645463325252ull;
  for (auto& byte : data) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    byte = static_cast<unsigned char>(x);
  }
  writer.add_area({image::AreaKind::heap_arena, "heap", 0x1000, image::kProtRead}, data.data(), data.size());
  return writer.finish();
}

// Serves the coordinator until the agents of n1 and n2 are in.
bool both_agents_said_hello(Cluster& cluster) {
  return cluster.serve_until([&] {
    return cluster.coordinator.nodes().size() == 2 && !cluster.coordinator.agent_hostname("n1").empty() &&
           !cluster.coordinator.agent_hostname("n2").empty();
  });
}

std::string contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("an agent copies an image to another node's storage, verified on arrival", "[agents]") {
  Disks disks;
  Cluster cluster;
  AgentThread n1(cluster.coordinator.control_endpoint(), "n1", cluster.credential(), 0, disks.of("n1"));
  AgentThread n2(cluster.coordinator.control_endpoint(), "n2", cluster.credential(), 0, disks.of("n2"));
  REQUIRE(both_agents_said_hello(cluster));
  const fs::path source = disks.of("n1") / kJob / "1" / "rank-0.img";
  const auto written = write_image(source, 1'000'000);  // about four chunks
  const protocol::ImageOrder copy{0, protocol::ImageOrderKind::copy, 1, 0, written.size, written.xxh64, "n2", {}, {}};

  const auto done = run(cluster, "n1", copy);
  CHECK(done.ok);
  CHECK(done.error.empty());
  const fs::path target = disks.of("n2") / kJob / "1" / "rank-0.img";
  REQUIRE(fs::exists(target));
  CHECK(contents(target) == contents(source));
  CHECK_FALSE(fs::exists(fs::path(target.string() + ".tmp")));
  // Node to node: not one chunk came through the coordinator.
  CHECK(cluster.coordinator.image_chunks_passed_on() == 0);

  const protocol::ImageOrder verify{0, protocol::ImageOrderKind::verify, 1, 0, written.size, written.xxh64, {}, {}, {}};
  CHECK(run(cluster, "n2", verify).ok);

  SECTION("a damaged image is neither verified nor copied") {
    {
      std::fstream file(source, std::ios::in | std::ios::out | std::ios::binary);
      file.seekp(static_cast<std::streamoff>(written.size / 2));
      file.put('\x5a');
    }
    const auto bad = run(cluster, "n1", verify);
    CHECK_FALSE(bad.ok);
    CHECK(bad.error == "node n1: " + source.string() + ": xxh64 of the file does not match");
    fs::remove(target);
    const auto not_copied = run(cluster, "n1", copy);
    CHECK_FALSE(not_copied.ok);
    CHECK(not_copied.error == bad.error);
    CHECK_FALSE(fs::exists(target));
  }
  SECTION("an image a node does not have") {
    protocol::ImageOrder other = verify;
    other.rank = 3;
    const auto missing = run(cluster, "n2", other);
    CHECK_FALSE(missing.ok);
    CHECK(missing.error == "node n2: " + (disks.of("n2") / kJob / "1" / "rank-3.img").string() + ": missing");
  }
  SECTION("orders to nodes without a live agent fail at once, saying which") {
    CHECK(run(cluster, "n7", verify).error == "node n7 has no live agent");
    protocol::ImageOrder to_nowhere = copy;
    to_nowhere.to_node = "n9";
    CHECK(run(cluster, "n1", to_nowhere).error == "node n9 has no live agent");
  }
}

TEST_CASE("a copy of more chunks than an agent takes in one turn arrives whole", "[agents]") {
  Disks disks;
  Cluster cluster;
  AgentThread n1(cluster.coordinator.control_endpoint(), "n1", cluster.credential(), 0, disks.of("n1"));
  AgentThread n2(cluster.coordinator.control_endpoint(), "n2", cluster.credential(), 0, disks.of("n2"));
  REQUIRE(both_agents_said_hello(cluster));
  const fs::path source = disks.of("n1") / kJob / "1" / "rank-0.img";
  const auto written = write_image(source, 6'000'000);  // 23 chunks: two turns of the receiver at least
  const auto done =
      run(cluster, "n1",
          protocol::ImageOrder{0, protocol::ImageOrderKind::copy, 1, 0, written.size, written.xxh64, "n2", {}, {}});
  CHECK(done.ok);
  CHECK(contents(disks.of("n2") / kJob / "1" / "rank-0.img") == contents(source));
  CHECK(cluster.coordinator.image_chunks_passed_on() == 0);
}

TEST_CASE("a copy to an agent without an image port goes through the coordinator", "[agents]") {
  Disks disks;
  Cluster cluster;
  AgentThread n1(cluster.coordinator.control_endpoint(), "n1", cluster.credential(), 0, disks.of("n1"));
  AgentThread n2(cluster.coordinator.control_endpoint(), "n2", cluster.credential(), 0, disks.of("n2"), 60s, true, kJob,
                 false);
  REQUIRE(both_agents_said_hello(cluster));
  const fs::path source = disks.of("n1") / kJob / "1" / "rank-0.img";
  const auto written = write_image(source, 1'000'000);
  const auto done =
      run(cluster, "n1",
          protocol::ImageOrder{0, protocol::ImageOrderKind::copy, 1, 0, written.size, written.xxh64, "n2", {}, {}});
  CHECK(done.ok);
  CHECK(contents(disks.of("n2") / kJob / "1" / "rank-0.img") == contents(source));
  CHECK(cluster.coordinator.image_chunks_passed_on() == 4);  // 1,000,000 bytes and a header in 256 KiB chunks
}

TEST_CASE("an image port takes only chunks with the job's secret, for its own node", "[agents]") {
  zmq::context_t context;
  agent::ImagePort port(context);
  REQUIRE(port.port() > 0);
  zmq::socket_t sender(context, zmq::socket_type::dealer);
  sender.set(zmq::sockopt::linger, 0);
  protocol::connect_with_curve(sender, port.public_key());
  sender.connect(protocol::image_port_endpoint("127.0.0.1", port.port()));
  protocol::ImageChunk chunk;
  chunk.order_id = 3;
  chunk.to_node = "n2";
  chunk.bytes = "data";
  const auto deliver = [&](const protocol::ImageChunk& c) {
    sender.send(zmq::buffer(protocol::encode(c)), zmq::send_flags::none);
    std::string refused;
    std::optional<protocol::ImageChunk> got;
    for (int i = 0; i < 500 && !got && refused.empty(); ++i) {
      zmq::pollitem_t item{port.socket().handle(), 0, ZMQ_POLLIN, 0};
      zmq::poll(&item, 1, std::chrono::milliseconds(10));
      got = port.take(kSecret, "n2", refused);
    }
    return std::make_pair(got, refused);
  };
  chunk.secret = "not-the-secret";
  auto [wrong_secret, why] = deliver(chunk);
  CHECK_FALSE(wrong_secret);
  CHECK(why == "an image chunk from 127.0.0.1 without the job's secret");
  chunk.secret = kSecret;
  chunk.to_node = "n9";
  auto [wrong_node, why_node] = deliver(chunk);
  CHECK_FALSE(wrong_node);
  CHECK(why_node == "an image chunk from 127.0.0.1 for node n9");
  chunk.to_node = "n2";
  auto [good, nothing] = deliver(chunk);
  REQUIRE(good);
  CHECK(nothing.empty());
  CHECK(good->bytes == "data");
  CHECK(good->order_id == 3);
}

TEST_CASE("a node's storage keeps only the epochs it is told to", "[agents]") {
  Disks disks;
  agent::NodeImages images(disks.of("n1"), kJob, "n1");
  for (const char* epoch : {"1", "2", "3", "notes"}) fs::create_directories(disks.of("n1") / kJob / epoch);
  images.keep_only({2, 3});
  CHECK_FALSE(fs::exists(disks.of("n1") / kJob / "1"));
  CHECK(fs::exists(disks.of("n1") / kJob / "2"));
  CHECK(fs::exists(disks.of("n1") / kJob / "3"));
  CHECK(fs::exists(disks.of("n1") / kJob / "notes"));  // not an epoch: not ours to remove
}

TEST_CASE("a copy whose chunks do not follow each other is refused and leaves nothing", "[agents]") {
  Disks disks;
  agent::NodeImages images(disks.of("n2"), kJob, "n2");
  protocol::ImageChunk chunk;
  chunk.order_id = 7;
  chunk.epoch = 1;
  chunk.rank = 0;
  chunk.size = 20;
  chunk.bytes = "0123456789";
  CHECK_FALSE(images.receive(chunk));
  chunk.offset = 15;  // 10 expected
  const auto done = images.receive(chunk);
  REQUIRE(done);
  CHECK_FALSE(done->ok);
  CHECK(done->error == "node n2: " + images.image_path(1, 0).string() + ": copy arrived out of order");
  CHECK(fs::is_empty(disks.of("n2") / kJob / "1"));
}
