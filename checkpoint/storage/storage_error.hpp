#pragma once
// Errors of the checkpoint storage, each a complete sentence for a one-line `yadokari: ...`.
#include <stdexcept>

namespace yadokari::storage {

class StorageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace yadokari::storage
