// write_file_durably: the MANIFEST's and job.json's writer.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "image_test_support.hpp"
#include "storage/durable_file.hpp"

using yadokari::image::testing::TempDir;
namespace fs = std::filesystem;

namespace {
std::string content(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace

TEST_CASE("a durable write replaces the file whole and leaves no temporary", "[storage]") {
  TempDir dir;
  const fs::path file = dir.path() / "job.json";
  yadokari::storage::write_file_durably(file, "first\n");
  yadokari::storage::write_file_durably(file, "second\n");
  CHECK(content(file) == "second\n");
  CHECK_FALSE(fs::exists(dir.path() / "job.json.tmp"));
}

TEST_CASE("a symlink planted as the temporary file is not followed", "[storage]") {
  TempDir dir;
  const fs::path victim = dir.path() / "victim";
  std::ofstream(victim) << "precious\n";
  fs::create_symlink(victim, dir.path() / "MANIFEST.tmp");
  yadokari::storage::write_file_durably(dir.path() / "MANIFEST", "{}\n");
  CHECK(content(victim) == "precious\n");
  CHECK(content(dir.path() / "MANIFEST") == "{}\n");
  CHECK_FALSE(fs::is_symlink(dir.path() / "MANIFEST"));
}
