#pragma once
// Where clusters live and their state.json: `$YADOKARI_SIM_DIR/<name>/`, by default
// `/run/yadokari/sim/<name>/`.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/sim/cluster.hpp"

namespace yadokari::sim {

std::filesystem::path clusters_base_dir();  // $YADOKARI_SIM_DIR or /run/yadokari/sim
std::filesystem::path cluster_dir(const std::string& name);

nlohmann::json to_json(const Cluster& cluster);
Cluster cluster_from_json(const nlohmann::json& state);  // throws nlohmann::json::exception

// Writes dir/state.json (tmp + rename).
void save_state(const Cluster& cluster);

// The cluster in `dir`, or nullopt if there is no readable state.json.
std::optional<Cluster> load_state(const std::filesystem::path& dir);

// Names of the directories under clusters_base_dir() that hold a state.json, sorted.
std::vector<std::string> cluster_names();

// Writes `content` to `path` (tmp + rename) with the given mode.
void write_file(const std::filesystem::path& path, const std::string& content, unsigned mode = 0644);

}  // namespace yadokari::sim
