#include <string>

#include "scheduler/placement.hpp"

namespace yadokari::scheduler {

namespace {
constexpr struct {
  std::string_view name;
  Policy policy;
} kPolicies[] = {{"node", Policy::node},
                 {"balanced", Policy::balanced},
                 {"comm", Policy::comm},
                 {"speed", Policy::speed},
                 {"auto", Policy::auto_}};
}  // namespace

Policy parse_policy(std::string_view name, std::string_view source) {
  for (const auto& entry : kPolicies)
    if (entry.name == name) return entry.policy;
  throw PlacementError("unknown placement policy '" + std::string(name) + "' in " + std::string(source) +
                       " (choose node, balanced, comm, speed or auto)");
}

std::string_view policy_name(Policy policy) {
  for (const auto& entry : kPolicies)
    if (entry.policy == policy) return entry.name;
  return "?";
}

}  // namespace yadokari::scheduler
