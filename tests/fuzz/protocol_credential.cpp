// Fuzz target: a job credential from the environment or a job record (protocol::parse_credential,
// docs/formats/protocol.md, "Encryption"). It refuses with nullopt, never by throwing.
#include <string_view>

#include "tests/fuzz/fuzz_target.hpp"
#include "protocol/credential.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace protocol = yadokari::protocol;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto credential = protocol::parse_credential(text);
  if (!credential) return 0;
  // A credential parsed is one make_credential writes back byte for byte.
  if (credential->coordinator_key.size() != 32 ||
      protocol::make_credential(credential->secret, credential->coordinator_key) != text)
    __builtin_trap();
  return 0;
}
