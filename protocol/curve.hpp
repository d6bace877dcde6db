#pragma once
// Encrypted control links (docs/formats/protocol.md, "Encryption"): ZeroMQ's CURVE mechanism on
// every socket between a job's coordinator and its ranks, agents and CLI clients. The coordinator
// makes a keypair when it starts; clients learn its public key from the job's credential
// (credential.hpp), so a client also knows it talks to its own job's coordinator. Clients use a
// fresh keypair each: they are authenticated by the job secret they present, as before.
#include <string>
#include <string_view>
#include <zmq.hpp>

namespace yadokari::protocol {

struct CurveKeypair {
  std::string public_key;  // 32 raw bytes
  std::string secret_key;  // 32 raw bytes
};

// Throws std::runtime_error if this libzmq has no CURVE (it was built without libsodium).
CurveKeypair make_curve_keypair();

// Before bind().
void serve_with_curve(zmq::socket_t& socket, const CurveKeypair& keys);

// Before connect(): talk only to the server holding `server_public_key` (32 raw bytes).
void connect_with_curve(zmq::socket_t& socket, std::string_view server_public_key);

}  // namespace yadokari::protocol
