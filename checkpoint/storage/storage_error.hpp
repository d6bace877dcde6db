#pragma once
// Errors of the checkpoint storage, each a complete sentence for a one-line `yadokari: ...`.
#include <stdexcept>

#include "common/error.hpp"

namespace yadokari::storage {

class StorageError : public yadokari::Error {
 public:
  using yadokari::Error::Error;
};

}  // namespace yadokari::storage
