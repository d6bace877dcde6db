#pragma once
// How `yadokari status` shows a StatusReport.
#include <nlohmann/json.hpp>
#include <string>

#include "protocol/codec.hpp"

namespace yadokari::cli {

std::string status_table(const protocol::StatusReport& report);
nlohmann::json status_json(const protocol::StatusReport& report);

}  // namespace yadokari::cli
