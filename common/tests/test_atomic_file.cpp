// write_file_atomically: the writer of the MANIFEST, job.json, job records and the sim state.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/atomic_file.hpp"
#include "common/error.hpp"

using yadokari::Durability;
namespace fs = std::filesystem;

namespace {
// A fresh directory under /tmp, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string name = (fs::temp_directory_path() / "yk-common-XXXXXX").string();
    if (mkdtemp(name.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = name;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string content(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace

TEST_CASE("an atomic write replaces the file whole and leaves no temporary", "[common]") {
  TempDir dir;
  const fs::path file = dir.path() / "job.json";
  yadokari::write_file_atomically(file, "first\n", Durability::survives_crash);
  yadokari::write_file_atomically(file, "second\n", Durability::process_lifetime);
  CHECK(content(file) == "second\n");
  CHECK_FALSE(fs::exists(dir.path() / "job.json.tmp"));
}

TEST_CASE("a symlink planted as the temporary file is not followed", "[common]") {
  TempDir dir;
  const fs::path victim = dir.path() / "victim";
  std::ofstream(victim) << "precious\n";
  fs::create_symlink(victim, dir.path() / "MANIFEST.tmp");
  yadokari::write_file_atomically(dir.path() / "MANIFEST", "{}\n", Durability::survives_crash);
  CHECK(content(victim) == "precious\n");
  CHECK(content(dir.path() / "MANIFEST") == "{}\n");
  CHECK_FALSE(fs::is_symlink(dir.path() / "MANIFEST"));
}

TEST_CASE("the mode asked for is the file's mode, whatever the umask", "[common]") {
  TempDir dir;
  const fs::path file = dir.path() / "record.json";
  yadokari::write_file_atomically(file, "{}\n", Durability::process_lifetime, 0600);
  CHECK((fs::status(file).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
}

TEST_CASE("a write into a missing directory fails naming the file, and leaves nothing", "[common]") {
  TempDir dir;
  const fs::path file = dir.path() / "missing" / "MANIFEST";
  CHECK_THROWS_AS(yadokari::write_file_atomically(file, "{}\n", Durability::survives_crash), yadokari::IoError);
  CHECK_THROWS_WITH(yadokari::write_file_atomically(file, "{}\n", Durability::survives_crash),
                    "cannot create " + file.string() + ".tmp: No such file or directory");
}
