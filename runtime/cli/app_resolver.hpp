#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace yadokari::cli {

// The file `yadokari run` will launch: `app` itself if it contains a '/', else the first match
// in `path_list` (like execvp). Throws CliError "app not found" (127) / "not executable" (126).
std::filesystem::path resolve_app(const std::string& app, std::string_view path_list);

}  // namespace yadokari::cli
