// AtomicFileStream: the writer of images and of the agents' received copies of them.
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "common/atomic_file_stream.hpp"

using yadokari::AtomicFileStream;
using yadokari::Durability;
namespace fs = std::filesystem;

namespace {
// A fresh directory under /tmp, opened for the *at() calls, removed with everything in it.
class OpenedDir {
 public:
  OpenedDir() {
    std::string name = (fs::temp_directory_path() / "yk-stream-XXXXXX").string();
    if (mkdtemp(name.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = name;
    fd_ = ::open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  ~OpenedDir() {
    ::close(fd_);
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }
  int fd() const { return fd_; }

 private:
  fs::path path_;
  int fd_ = -1;
};

std::string content(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const AtomicFileStream& file, const std::string& text) {
  REQUIRE(::write(file.fd(), text.data(), text.size()) == static_cast<ssize_t>(text.size()));
}
}  // namespace

TEST_CASE("a streamed file appears under its name only when committed", "[common]") {
  OpenedDir dir;
  AtomicFileStream file;
  REQUIRE(file.create(dir.fd(), "rank-0.img", O_WRONLY) == 0);
  write_text(file, "part one, ");
  CHECK_FALSE(fs::exists(dir.path() / "rank-0.img"));
  CHECK(fs::exists(dir.path() / "rank-0.img.tmp"));
  write_text(file, "part two\n");
  CHECK(file.commit(Durability::survives_crash) == 0);
  CHECK(file.failed_step() == AtomicFileStream::Step::none);
  CHECK(content(dir.path() / "rank-0.img") == "part one, part two\n");
  CHECK_FALSE(fs::exists(dir.path() / "rank-0.img.tmp"));
  CHECK((fs::status(dir.path() / "rank-0.img").permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write));
}

TEST_CASE("a streamed file not committed leaves nothing, and the older file stays", "[common]") {
  OpenedDir dir;
  std::ofstream(dir.path() / "rank-0.img") << "committed earlier\n";
  {
    AtomicFileStream file;
    REQUIRE(file.create(dir.fd(), "rank-0.img", O_RDWR) == 0);
    write_text(file, "half an image");
  }  // destroyed: abandoned
  CHECK(content(dir.path() / "rank-0.img") == "committed earlier\n");
  CHECK_FALSE(fs::exists(dir.path() / "rank-0.img.tmp"));
}

TEST_CASE("a symlink planted as the stream's temporary file is not followed", "[common]") {
  OpenedDir dir;
  const fs::path victim = dir.path() / "victim";
  std::ofstream(victim) << "precious\n";
  fs::create_symlink(victim, dir.path() / "rank-1.img.tmp");
  AtomicFileStream file;
  REQUIRE(file.create(dir.fd(), "rank-1.img", O_WRONLY) == 0);
  write_text(file, "image\n");
  REQUIRE(file.commit(Durability::process_lifetime) == 0);
  CHECK(content(victim) == "precious\n");
  CHECK(content(dir.path() / "rank-1.img") == "image\n");
}

TEST_CASE("a stream whose name does not fit is refused before anything is created", "[common]") {
  OpenedDir dir;
  AtomicFileStream file;
  CHECK(file.create(dir.fd(), std::string(NAME_MAX - 2, 'x').c_str(), O_WRONLY) == ENAMETOOLONG);
  CHECK(fs::is_empty(dir.path()));
}

TEST_CASE("a failed rename is reported as that step and removes the temporary", "[common]") {
  OpenedDir dir;
  fs::create_directory(dir.path() / "rank-2.img");
  std::ofstream(dir.path() / "rank-2.img" / "inside") << "x";  // a non-empty directory cannot be replaced
  AtomicFileStream file;
  REQUIRE(file.create(dir.fd(), "rank-2.img", O_WRONLY) == 0);
  write_text(file, "image\n");
  CHECK(file.commit(Durability::survives_crash) != 0);
  CHECK(file.failed_step() == AtomicFileStream::Step::rename);
  CHECK_FALSE(fs::exists(dir.path() / "rank-2.img.tmp"));
}

TEST_CASE("a moved stream is committed by its new owner", "[common]") {
  OpenedDir dir;
  AtomicFileStream first;
  REQUIRE(first.create(dir.fd(), "copy.img", O_WRONLY) == 0);
  write_text(first, "moved\n");
  AtomicFileStream second(std::move(first));
  first.abandon();  // the moved-from stream owns nothing any more
  CHECK(fs::exists(dir.path() / "copy.img.tmp"));
  REQUIRE(second.commit(Durability::survives_crash) == 0);
  CHECK(content(dir.path() / "copy.img") == "moved\n");
}
