#pragma once
// Errors of the scheduler, each a complete sentence for a one-line `yadokari: ...`.
#include <stdexcept>

namespace yadokari::scheduler {

class PlacementError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace yadokari::scheduler
