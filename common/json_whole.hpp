#pragma once
// A whole-number field of a JSON file we read back (job.json, a job record, a MANIFEST), or an
// error naming the field. nlohmann's get<int>() converts a float such as 1e300 with a plain cast,
// which is undefined behaviour when it does not fit (found by tests/fuzz/), and wraps integers
// that do not fit into other numbers.
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>

namespace yadokari {

// Throws std::invalid_argument (callers wrap it in their own error class) unless `object[field]`
// is an integer that T can hold; nlohmann's out_of_range if the field is missing.
template <class T>
T json_whole(const nlohmann::json& object, const char* field) {
  const nlohmann::json& value = object.at(field);
  if (value.is_number_unsigned()) {
    if (const auto n = value.get<std::uint64_t>(); std::in_range<T>(n)) return static_cast<T>(n);
  } else if (value.is_number_integer()) {
    if (const auto n = value.get<std::int64_t>(); std::in_range<T>(n)) return static_cast<T>(n);
  }
  throw std::invalid_argument(std::string(field) + " must be a whole number from " +
                              std::to_string(std::numeric_limits<T>::min()) + " to " +
                              std::to_string(std::numeric_limits<T>::max()) + ", not " + value.dump());
}

}  // namespace yadokari
