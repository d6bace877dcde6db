#pragma once
// Errors of the scheduler, each a complete sentence for a one-line `yadokari: ...`.
#include <stdexcept>

#include "common/error.hpp"

namespace yadokari::scheduler {

class PlacementError : public yadokari::Error {
 public:
  using yadokari::Error::Error;
};

}  // namespace yadokari::scheduler
