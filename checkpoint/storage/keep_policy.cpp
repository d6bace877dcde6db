#include "storage/keep_policy.hpp"

#include <charconv>
#include <cstdlib>
#include <string>

#include "storage/storage_error.hpp"

namespace yadokari::storage {

unsigned keep_from_environment() {
  const char* value = std::getenv("YADOKARI_KEEP");
  if (!value || !*value) return kDefaultKeep;
  const std::string text = value;
  unsigned keep = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), keep);
  if (error != std::errc() || end != text.data() + text.size() || keep < 1)
    throw StorageError("YADOKARI_KEEP must be a whole number of at least 1, not '" + text + "'");
  return keep;
}

}  // namespace yadokari::storage
