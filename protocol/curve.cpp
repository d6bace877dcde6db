#include "protocol/curve.hpp"

#include <stdexcept>

namespace yadokari::protocol {
namespace {

constexpr std::size_t kKeyBytes = 32;
constexpr std::size_t kZ85Chars = 40;

std::string decoded(const char (&z85)[kZ85Chars + 1]) {
  std::string raw(kKeyBytes, '\0');
  if (!zmq_z85_decode(reinterpret_cast<std::uint8_t*>(raw.data()), z85))
    throw std::runtime_error("cannot decode a CURVE key");
  return raw;
}

}  // namespace

CurveKeypair make_curve_keypair() {
  if (!zmq_has("curve")) throw std::runtime_error("this libzmq has no CURVE encryption (built without libsodium)");
  char public_z85[kZ85Chars + 1] = {};
  char secret_z85[kZ85Chars + 1] = {};
  if (zmq_curve_keypair(public_z85, secret_z85) != 0) throw std::runtime_error("cannot make a CURVE keypair");
  return {decoded(public_z85), decoded(secret_z85)};
}

void serve_with_curve(zmq::socket_t& socket, const CurveKeypair& keys) {
  socket.set(zmq::sockopt::curve_server, true);
  socket.set(zmq::sockopt::curve_secretkey, zmq::const_buffer(keys.secret_key.data(), keys.secret_key.size()));
}

void connect_with_curve(zmq::socket_t& socket, std::string_view server_public_key) {
  const CurveKeypair mine = make_curve_keypair();
  socket.set(zmq::sockopt::curve_serverkey, zmq::const_buffer(server_public_key.data(), server_public_key.size()));
  socket.set(zmq::sockopt::curve_publickey, zmq::const_buffer(mine.public_key.data(), mine.public_key.size()));
  socket.set(zmq::sockopt::curve_secretkey, zmq::const_buffer(mine.secret_key.data(), mine.secret_key.size()));
}

}  // namespace yadokari::protocol
