#pragma once
// `yadokari status`: what every rank of a running job is doing.
#include <string>

namespace yadokari::cli {

struct StatusOptions {
  std::string job;  // empty: the only running job
  bool json = false;
};

int show_status(const StatusOptions& options);

}  // namespace yadokari::cli
