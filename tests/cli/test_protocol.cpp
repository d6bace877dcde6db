#include <catch2/catch.hpp>

#include "protocol/codec.hpp"
#include "protocol/credential.hpp"
#include "protocol/curve.hpp"

using namespace yadokari::protocol;

namespace {

RankStatus sample_status(std::int32_t rank) {
  RankStatus s;
  s.query_id = 7;
  s.logical_rank = rank;
  s.pid = 4242;
  s.hostname = "node1";
  s.mpi_calls_total = 1ull << 40;
  s.messages_sent = 3;
  s.bytes_sent = 300;
  s.messages_received = 4;
  s.bytes_received = 400;
  s.current_call = "MPI_Recv";
  s.seconds_since_init = 1.25;
  s.compute_seconds = 0.75;
  return s;
}

std::string with_u16_at(std::string bytes, std::size_t at, std::uint16_t value) {
  bytes[at] = static_cast<char>(value & 0xff);
  bytes[at + 1] = static_cast<char>(value >> 8);
  return bytes;
}

void require_same(const RankStatus& a, const RankStatus& b) {
  CHECK(a.query_id == b.query_id);
  CHECK(a.logical_rank == b.logical_rank);
  CHECK(a.pid == b.pid);
  CHECK(a.hostname == b.hostname);
  CHECK(a.mpi_calls_total == b.mpi_calls_total);
  CHECK(a.messages_sent == b.messages_sent);
  CHECK(a.bytes_sent == b.bytes_sent);
  CHECK(a.messages_received == b.messages_received);
  CHECK(a.bytes_received == b.bytes_received);
  CHECK(a.current_call == b.current_call);
  CHECK(a.seconds_since_init == b.seconds_since_init);
  CHECK(a.compute_seconds == b.compute_seconds);
}

}  // namespace

TEST_CASE("RegisterRank survives encode/decode", "[protocol]") {
  const RegisterRank sent{"yk-1234", "s3cret", 3, 4, 999, "host-a", "mpich"};
  const auto got = decode_as<RegisterRank>(encode(sent));
  CHECK(got.job_id == sent.job_id);
  CHECK(got.secret == sent.secret);
  CHECK(got.logical_rank == 3);
  CHECK(got.world_size == 4);
  CHECK(got.pid == 999);
  CHECK(got.hostname == "host-a");
  CHECK(got.flavour == "mpich");
}

TEST_CASE("RegisterAck, QueryStatus, StatusRequest and ErrorReply round-trip", "[protocol]") {
  const auto ack = decode_as<RegisterAck>(encode(RegisterAck{false, "wrong job secret"}));
  CHECK_FALSE(ack.accepted);
  CHECK(ack.reason == "wrong job secret");
  CHECK(decode_as<QueryStatus>(encode(QueryStatus{77})).query_id == 77);
  const auto request = decode_as<StatusRequest>(encode(StatusRequest{"yk-1", "abc"}));
  CHECK(request.job_id == "yk-1");
  CHECK(request.secret == "abc");
  CHECK(decode_as<ErrorReply>(encode(ErrorReply{"nope"})).reason == "nope");
}

TEST_CASE("RankStatus and StatusReport round-trip", "[protocol]") {
  require_same(decode_as<RankStatus>(encode(sample_status(2))), sample_status(2));

  StatusReport report{"yk-9",
                      "./ring",
                      "openmpi",
                      3,
                      {sample_status(0), sample_status(2)},
                      {1},
                      {NodeStatus{"n2", "yksim-n2", "lost", 0.75, 2, {}, "", 0}},
                      4,
                      1,
                      {"restart 1: detect 0.61 s"}};
  const auto got = decode_as<StatusReport>(encode(report));
  REQUIRE(got.nodes.size() == 1);
  CHECK(got.nodes[0].node == "n2");
  CHECK(got.nodes[0].state == "lost");
  CHECK(got.nodes[0].seconds_since_heard == 0.75);
  CHECK(got.nodes[0].slots == 2);
  CHECK(got.last_committed_epoch == 4);
  CHECK(got.restarts == 1);
  CHECK(got.timeline == std::vector<std::string>{"restart 1: detect 0.61 s"});
  CHECK(got.job_id == "yk-9");
  CHECK(got.app == "./ring");
  CHECK(got.flavour == "openmpi");
  CHECK(got.world_size == 3);
  REQUIRE(got.ranks.size() == 2);
  require_same(got.ranks[1], sample_status(2));
  CHECK(got.ranks_not_answering == std::vector<std::int32_t>{1});
}

TEST_CASE("ImageWritten carries the traffic row, compute seconds and node", "[protocol]") {
  ImageWritten sent;
  sent.epoch = 3;
  sent.logical_rank = 2;
  sent.ok = true;
  sent.path = "/ckpt/3/rank-2.img";
  sent.size = 4096;
  sent.xxh64 = 0xfeedULL;
  sent.drain_seconds = 0.5;
  sent.write_seconds = 0.25;
  sent.drained_messages = 1;
  sent.traffic = {{0, 10, 1}, {3, 20, 2}};
  sent.compute_seconds = 12.375;
  sent.hostname = "yksim-n2";
  sent.parent_epoch = 2;
  sent.layout = "dmtcp";
  const auto got = decode_as<ImageWritten>(encode(sent));
  CHECK(got.epoch == 3);
  CHECK(got.logical_rank == 2);
  CHECK(got.ok);
  CHECK(got.path == sent.path);
  CHECK(got.size == 4096);
  CHECK(got.xxh64 == 0xfeedULL);
  CHECK(got.drained_messages == 1);
  CHECK(got.traffic == sent.traffic);
  CHECK(got.compute_seconds == 12.375);
  CHECK(got.hostname == "yksim-n2");
  CHECK(got.parent_epoch == 2);
  CHECK(got.layout == "dmtcp");
  // Unmeasured by default (an image written without a sampler).
  CHECK(decode_as<ImageWritten>(encode(ImageWritten{})).compute_seconds < 0);
}

TEST_CASE("a peer of the previous protocol version is refused, saying both versions", "[protocol]") {
  // Version 13 migrate requests lack the `live` flag that version 14 appends: they must not be
  // half-understood.
  const std::string bytes = with_u16_at(encode(MigrateRequest{}), 2, 13);
  CHECK(kProtocolVersion == 14);
  CHECK_THROWS_WITH(decode(bytes), "control message has protocol version 13, this build speaks version 14");
}

TEST_CASE("a live move's messages round-trip", "[protocol]") {
  MigrateRequest asked{"yk-1", "s", {2, 3}, "n4", true};
  const auto got = decode_as<MigrateRequest>(encode(asked));
  CHECK(got.ranks == std::vector<std::int32_t>{2, 3});
  CHECK(got.to == "n4");
  CHECK(got.live);
  const auto swap = decode_as<SwapLibrary>(encode(SwapLibrary{7, "/ckpt/swap-7"}));
  CHECK(swap.epoch == 7);
  CHECK(swap.dir == "/ckpt/swap-7");
}

TEST_CASE("a node's ranks and drain state round-trip in a status report", "[protocol]") {
  StatusReport sent;
  sent.nodes.push_back(NodeStatus{"n2", "yksim-n2", "alive", 0.25, 2, {2, 3}, "moving", 7});
  sent.nodes.push_back(NodeStatus{"n3", "yksim-n3", "alive", 0.5, 2, {}, "stuck: no room", 8});
  const auto got = decode_as<StatusReport>(encode(sent));
  REQUIRE(got.nodes.size() == 2);
  CHECK(got.nodes[0].ranks == std::vector<std::int32_t>{2, 3});
  CHECK(got.nodes[0].drain == "moving");
  CHECK(got.nodes[0].drain_id == 7);
  CHECK(got.nodes[1].ranks.empty());
  CHECK(got.nodes[1].drain == "stuck: no room");
}

TEST_CASE("an agent's image port and the copy orders that name it round-trip", "[protocol]") {
  const auto hello = decode_as<AgentHello>(encode(AgentHello{"j", "s", "n2", "h", 7, 0, 40123, std::string(32, 'k')}));
  CHECK(hello.image_port == 40123);
  CHECK(hello.image_key == std::string(32, 'k'));
  ImageOrder order{9, ImageOrderKind::copy, 2, 1, 100, 5, "n3", "tcp://10.0.0.3:40123", std::string(32, 'q')};
  const auto got = decode_as<ImageOrder>(encode(order));
  CHECK(got.to_endpoint == "tcp://10.0.0.3:40123");
  CHECK(got.to_key == std::string(32, 'q'));
  ImageChunk chunk;
  chunk.secret = "the-job-secret";
  CHECK(decode_as<ImageChunk>(encode(chunk)).secret == "the-job-secret");
  // An epoch's orders to a node, and an agent's answers, travel in one message each.
  const auto orders = decode_as<ImageOrders>(encode(ImageOrders{{order, order}}));
  REQUIRE(orders.orders.size() == 2);
  CHECK(orders.orders[1].to_endpoint == "tcp://10.0.0.3:40123");
  const auto done = decode_as<ImageOrdersDone>(encode(ImageOrdersDone{{{9, true, {}}, {10, false, "node n3: why"}}}));
  REQUIRE(done.done.size() == 2);
  CHECK(done.done[1].order_id == 10);
  CHECK_FALSE(done.done[1].ok);
  CHECK(done.done[1].error == "node n3: why");
}

TEST_CASE("a rank's refusal to restore round-trips with its reason", "[protocol]") {
  const auto got = decode_as<RankRestored>(encode(RankRestored{3, 0.0, "image.img: library x: why"}));
  CHECK(got.logical_rank == 3);
  CHECK(got.refused == "image.img: library x: why");
  CHECK(decode_as<RankRestored>(encode(RankRestored{1, 0.5, {}})).refused.empty());
}

TEST_CASE("a migrate request round-trips with its ranks and target node", "[protocol]") {
  const auto got = decode_as<MigrateRequest>(encode(MigrateRequest{"job-1", "secret", {2, 3}, "n4"}));
  CHECK(got.job_id == "job-1");
  CHECK(got.secret == "secret");
  CHECK(got.ranks == std::vector<std::int32_t>{2, 3});
  CHECK(got.to == "n4");
  CHECK(message_type_name(MessageType::migrate_request) == "MigrateRequest");
}

TEST_CASE("decode refuses a forged vector count without allocating for it", "[protocol]") {
  // ImageWritten ends with [traffic count][compute_seconds][hostname length][pause_seconds]
  // [parent_epoch][layout length]: a traffic count of 2^32 partners (80 GiB) in a message of a few bytes
  // (tests/fuzz/corpus).
  std::string bytes = encode(ImageWritten{});
  const std::size_t count_at = bytes.size() - 8 - 8 - 8 - 8 - 8 - 8;
  bytes.replace(count_at, 8, std::string("\x00\x00\x00\x00\x01\x00\x00\x00", 8));
  CHECK_THROWS_AS(decode(bytes), ProtocolError);
}

TEST_CASE("decode refuses a boolean that is neither 0 nor 1", "[protocol]") {
  ImageWritten written;
  written.ok = true;
  std::string bytes = encode(written);
  // [header][endianness byte][epoch u64][logical_rank i32][ok]
  const std::size_t ok_at = 6 + 1 + 8 + 4;
  REQUIRE(bytes[ok_at] == 1);
  bytes[ok_at] = 2;
  CHECK_THROWS_WITH(decode(bytes), "malformed control message ImageWritten: boolean of value 2 in a control message");
  bytes[ok_at] = 0;
  CHECK_FALSE(decode_as<ImageWritten>(bytes).ok);
}

TEST_CASE("decode_header checks the header only", "[protocol]") {
  CHECK(decode_header(encode(StatusRequest{"a", "b"})) == MessageType::status_request);
  std::string truncated = encode(StatusRequest{"a", "b"}).substr(0, 6);
  CHECK(decode_header(truncated) == MessageType::status_request);
  CHECK_THROWS_AS(decode(truncated), ProtocolError);
}

TEST_CASE("decode_as names both types on a mismatch", "[protocol]") {
  CHECK_THROWS_WITH(decode_as<RegisterAck>(encode(QueryStatus{1})),
                    "expected control message RegisterAck, got QueryStatus");
}

TEST_CASE("peer-supplied names and texts must be printable and bounded, or the message is refused", "[protocol]") {
  RegisterRank forged;
  forged.job_id = "yk-1";
  forged.hostname = "n1\nyadokari: checkpoint epoch 9 committed";  // would forge a log line
  CHECK_THROWS_WITH(decode(encode(forged)), "malformed control message RegisterRank: hostname is not a printable name");
  forged.hostname = std::string(1 << 20, 'h');
  CHECK_THROWS_WITH(decode(encode(forged)),
                    "malformed control message RegisterRank: hostname is longer than 255 bytes");

  AgentHello hello;
  hello.job_id = "yk-1";
  hello.node = "n1\x1b[2J";  // an escape sequence for the reader's terminal
  CHECK_THROWS_WITH(decode(encode(hello)), "malformed control message AgentHello: node is not a printable name");

  ImageWritten written;
  written.error = "disk full\r\nyadokari: forged";
  CHECK_THROWS_WITH(decode(encode(written)),
                    "malformed control message ImageWritten: error contains a control character");
  written.error = "cannot write /ckpt/1/rank-0.img: No space left on device";  // a real one passes
  written.hostname = "node-1.example";
  CHECK(std::get<ImageWritten>(decode(encode(written))).error == written.error);
  // A refused checkpoint names each problem on its own line: newlines pass, other controls do not.
  written.error =
      "descriptor 7 is a socket, which is not carried\n"
      "library /opt/lib/libplugin.so was loaded by the application after start (dlopen), which is not carried";
  CHECK(std::get<ImageWritten>(decode(encode(written))).error == written.error);
  written.error = "descriptor 7 is a socket, which is not carried\n\x1b[2J";
  CHECK_THROWS_WITH(decode(encode(written)),
                    "malformed control message ImageWritten: error contains a control character");
  written.error = "one line\n" + std::string(5000, 'x');
  CHECK_THROWS_WITH(decode(encode(written)), "malformed control message ImageWritten: error is longer than 4096 bytes");
}

TEST_CASE("a credential carries the secret and the coordinator's key, in hex", "[protocol][curve]") {
  const CurveKeypair keys = make_curve_keypair();
  REQUIRE(keys.public_key.size() == 32);
  const std::string text = make_credential("0123abcd", keys.public_key);
  CHECK(text.size() == 8 + 1 + 64);
  CHECK(text.find_first_not_of("0123456789abcdef-") == std::string::npos);
  const auto parsed = parse_credential(text);
  REQUIRE(parsed);
  CHECK(parsed->secret == "0123abcd");
  CHECK(parsed->coordinator_key == keys.public_key);
  CHECK(make_curve_keypair().public_key != keys.public_key);
}

TEST_CASE("what is not a credential is refused", "[protocol][curve]") {
  const std::string key_hex(64, 'a');
  CHECK_FALSE(parse_credential(""));
  CHECK_FALSE(parse_credential("0123456789abcdef0123456789abcdef"));  // a bare secret
  CHECK_FALSE(parse_credential("-" + key_hex));                       // no secret
  CHECK_FALSE(parse_credential("s+" + key_hex));                      // no separator
  CHECK_FALSE(parse_credential("s-" + key_hex.substr(1) + "g"));      // not hex
  CHECK_FALSE(parse_credential("s-" + key_hex.substr(2)));            // key too short
  CHECK(parse_credential("s-" + key_hex));
}
