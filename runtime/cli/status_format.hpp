#pragma once
// How `yadokari status` shows a StatusReport.
#include <nlohmann/json.hpp>
#include <string>

#include "control/protocol.hpp"

namespace yadokari::cli {

std::string status_table(const control::StatusReport& report);
nlohmann::json status_json(const control::StatusReport& report);

}  // namespace yadokari::cli
