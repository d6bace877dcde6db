#include "runtime/launch/library_search.hpp"

#include <glob.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

namespace yadokari::launch {
namespace fs = std::filesystem;

namespace {

constexpr int kMaxIncludeDepth = 4;

std::vector<std::string> split_colons(const char* list) {
  std::vector<std::string> parts;
  if (!list) return parts;
  std::stringstream in(list);
  for (std::string part; std::getline(in, part, ':');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::string expand_origin(std::string dir, const fs::path& needer_path) {
  const std::string origin = needer_path.parent_path().string();
  for (const std::string_view token : {"${ORIGIN}", "$ORIGIN"}) {
    std::size_t at = dir.find(token);
    while (at != std::string::npos) {
      dir.replace(at, token.size(), origin);
      at = dir.find(token, at + origin.size());
    }
  }
  return dir;
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

std::vector<std::string> read_ld_so_conf(const fs::path& conf, int depth) {
  std::vector<std::string> dirs;
  std::ifstream in(conf);
  for (std::string line; std::getline(in, line);) {
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    if (line.rfind("include", 0) == 0 && line.size() > 7 && (line[7] == ' ' || line[7] == '\t')) {
      if (depth >= kMaxIncludeDepth) continue;
      std::string pattern = trim(line.substr(8));
      if (!pattern.empty() && pattern.front() != '/') pattern = (conf.parent_path() / pattern).string();
      glob_t matches{};
      if (glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
        for (std::size_t i = 0; i < matches.gl_pathc; ++i)
          for (auto& dir : read_ld_so_conf(matches.gl_pathv[i], depth + 1)) dirs.push_back(dir);
      }
      globfree(&matches);
    } else {
      dirs.push_back(line);
    }
  }
  return dirs;
}

LibrarySearch LibrarySearch::from_environment() {
  LibrarySearch search;
  search.ld_library_path = split_colons(std::getenv("LD_LIBRARY_PATH"));
  search.system_dirs = read_ld_so_conf("/etc/ld.so.conf");
  for (const char* dir :
       {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
        // Debian's Open MPI keeps some libraries only here (via RUNPATH)
        "/usr/lib/x86_64-linux-gnu/openmpi/lib"})
    search.system_dirs.emplace_back(dir);
  return search;
}

std::optional<ResolvedLibrary> LibrarySearch::resolve(const std::string& name, const ElfDynamic& needer,
                                                      const fs::path& needer_path) const {
  auto try_file = [](const fs::path& candidate) -> std::optional<ResolvedLibrary> {
    std::error_code ec;
    if (!fs::is_regular_file(candidate, ec)) return std::nullopt;
    ElfDynamic dynamic = read_elf_dynamic(candidate);
    if (dynamic.status != ElfDynamic::Status::ok) return std::nullopt;
    return ResolvedLibrary{candidate, std::move(dynamic)};
  };
  if (name.find('/') != std::string::npos) return try_file(expand_origin(name, needer_path));

  std::vector<std::string> dirs;
  if (needer.runpath.empty())
    for (const auto& dir : needer.rpath) dirs.push_back(expand_origin(dir, needer_path));
  dirs.insert(dirs.end(), ld_library_path.begin(), ld_library_path.end());
  for (const auto& dir : needer.runpath) dirs.push_back(expand_origin(dir, needer_path));
  dirs.insert(dirs.end(), system_dirs.begin(), system_dirs.end());

  for (const auto& dir : dirs)
    if (auto found = try_file(fs::path(dir) / name)) return found;
  return std::nullopt;
}

}  // namespace yadokari::launch
