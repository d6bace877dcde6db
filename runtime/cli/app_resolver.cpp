#include "runtime/cli/app_resolver.hpp"

#include <unistd.h>

#include "runtime/cli/cli_error.hpp"
#include "runtime/launch/launcher.hpp"

namespace yadokari::cli {
namespace fs = std::filesystem;

std::filesystem::path resolve_app(const std::string& app, std::string_view path_list) {
  fs::path file;
  if (app.find('/') != std::string::npos) {
    file = app;
  } else if (auto found = launch::find_in_path(app, path_list)) {
    file = *found;
  } else {
    throw CliError(exit_code::not_found, "app not found: " + app);
  }
  std::error_code ec;
  if (!fs::exists(file, ec)) throw CliError(exit_code::not_found, "app not found: " + app);
  if (!fs::is_regular_file(file, ec) || access(file.c_str(), X_OK) != 0)
    throw CliError(exit_code::not_executable, "app is not executable: " + app);
  return file;
}

}  // namespace yadokari::cli
