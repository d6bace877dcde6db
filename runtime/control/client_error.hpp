#pragma once
// The one error of the CLI's clients of a running job (`yadokari status`, `checkpoint`): the job
// did not answer, refused, or answered nonsense. what() is the whole line to print.
#include "common/error.hpp"

namespace yadokari::control {

class StatusError : public yadokari::Error {
 public:
  using yadokari::Error::Error;
};

}  // namespace yadokari::control
