#include "protocol/credential.hpp"

#include <cstddef>

namespace yadokari::protocol {
namespace {

constexpr std::size_t kKeyBytes = 32;

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool all_hex(std::string_view text) {
  for (char c : text)
    if (digit_value(c) < 0) return false;
  return true;
}

}  // namespace

std::string make_credential(std::string_view secret, std::string_view coordinator_public_key) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text(secret);
  text.push_back('-');
  for (unsigned char byte : coordinator_public_key) {
    text.push_back(kDigits[byte >> 4]);
    text.push_back(kDigits[byte & 0xf]);
  }
  return text;
}

std::optional<Credential> parse_credential(std::string_view text) {
  // The key is the fixed-size tail; the secret is whatever comes before its '-'.
  if (text.size() < 2 + 2 * kKeyBytes || text[text.size() - 2 * kKeyBytes - 1] != '-') return std::nullopt;
  const std::string_view secret = text.substr(0, text.size() - 2 * kKeyBytes - 1);
  const std::string_view key_hex = text.substr(text.size() - 2 * kKeyBytes);
  if (!all_hex(key_hex)) return std::nullopt;
  Credential credential;
  credential.secret = std::string(secret);
  for (std::size_t i = 0; i < kKeyBytes; ++i)
    credential.coordinator_key.push_back(
        static_cast<char>(digit_value(key_hex[2 * i]) * 16 + digit_value(key_hex[2 * i + 1])));
  return credential;
}

}  // namespace yadokari::protocol
