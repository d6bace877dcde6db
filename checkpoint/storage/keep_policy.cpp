#include "checkpoint/storage/keep_policy.hpp"

#include <charconv>
#include <cstdlib>
#include <string>

#include "checkpoint/storage/storage_error.hpp"
#include "common/parameters.hpp"

namespace yadokari::storage {

unsigned keep_from_environment() {
  const char* value = std::getenv(yadokari::parameters::kKeep);
  if (!value || !*value) return kDefaultKeep;
  const std::string text = value;
  unsigned keep = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), keep);
  if (error != std::errc() || end != text.data() + text.size() || keep < 1)
    throw StorageError("YADOKARI_KEEP must be a whole number of at least 1, not '" + text + "'");
  return keep;
}

}  // namespace yadokari::storage
