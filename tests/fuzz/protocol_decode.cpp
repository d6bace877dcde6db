// Fuzz target: a control message off the wire (protocol::decode, docs/formats/protocol.md).
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_target.hpp"
#include "protocol/codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace protocol = yadokari::protocol;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    protocol::decode_header(bytes);
  } catch (const protocol::ProtocolError&) {
  }
  try {
    const protocol::Message message = protocol::decode(bytes);
    // Whatever decodes must encode and decode to the same message type.
    const std::string again = protocol::encode(message);
    if (protocol::type_of(protocol::decode(again)) != protocol::type_of(message)) __builtin_trap();
  } catch (const protocol::ProtocolError&) {
  }
  return 0;
}
