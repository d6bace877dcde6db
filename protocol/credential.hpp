#pragma once
// A job's credential (docs/formats/protocol.md, "Encryption"): what every process of a job holds
// to reach its coordinator. It is the job secret (presented when registering) followed by the
// coordinator's public CURVE key, "<secret>-<64 hex digits>" (the front end's secrets are 32 hex
// digits): one string carried wherever the secret always went (environment, an agent's credentials
// line, the job record), hex so that no shell or launcher on the way can mangle it.
#include <optional>
#include <string>
#include <string_view>

namespace yadokari::protocol {

struct Credential {
  std::string secret;           // compared by the coordinator (secrets_equal)
  std::string coordinator_key;  // the coordinator's public key, 32 raw bytes
};

std::string make_credential(std::string_view secret, std::string_view coordinator_public_key);

// nullopt when `text` is not a credential (e.g. a bare secret from an older front end).
std::optional<Credential> parse_credential(std::string_view text);

}  // namespace yadokari::protocol
