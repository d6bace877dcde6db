#pragma once
// `yadokari inspect IMAGE [--verify] [--json]`: what a checkpoint image holds.
#include <string>

namespace yadokari::cli {

struct InspectOptions {
  std::string image;
  bool verify = false;  // read all data and check every checksum first
  bool json = false;
};

int inspect_image(const InspectOptions& options);

}  // namespace yadokari::cli
