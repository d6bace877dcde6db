// The identity of a file the application reads (input_identity.hpp): unchanged, copied, appended
// to, edited, shortened; and what the sampled digest of a file above 64 MiB sees and does not see.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "checkpoint/memory/src/input_identity.hpp"

using namespace yadokari::memory;

namespace {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "yk-input-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() { std::system(("rm -rf " + path_).c_str()); }
  std::string file(const char* name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void write_file(const std::string& path, std::size_t size, char fill = 'a') {
  std::vector<char> bytes(size, fill);
  for (std::size_t i = 0; i < size; i += 4096) bytes[i] = static_cast<char>('0' + (i / 4096) % 10);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, bytes.data(), size) == static_cast<ssize_t>(size));
  ::close(fd);
}

void poke(const std::string& path, off_t at, char c) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::pwrite(fd, &c, 1, at) == 1);
  ::close(fd);
}

// identify_input on the file as it is now.
InputIdentity identify(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  struct stat st {};
  REQUIRE(fstat(fd, &st) == 0);
  InputIdentity id{};
  REQUIRE(identify_input(fd, st, id));
  ::close(fd);
  return id;
}

bool same(const std::string& path, const InputIdentity& was) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  struct stat st {};
  REQUIRE(fstat(fd, &st) == 0);
  const bool result = same_input(fd, st, was);
  ::close(fd);
  return result;
}

}  // namespace

TEST_CASE("an input is the checkpoint's unless its contents changed", "[input]") {
  TempDir dir;
  const std::string in = dir.file("in.txt");
  write_file(in, 100000);
  const InputIdentity was = identify(in);
  CHECK(was.digest_kind == kDigestWhole);
  CHECK(same(in, was));

  SECTION("a copy with another inode and time is the same input") {
    REQUIRE(std::system(("cp " + in + " " + in + ".copy && rm " + in + " && mv " + in + ".copy " + in).c_str()) == 0);
    CHECK(same(in, was));
  }
  SECTION("bytes appended after the checkpoint's size leave it the same input") {
    REQUIRE(std::system(("echo appended >> " + in).c_str()) == 0);
    CHECK(same(in, was));
  }
  SECTION("one byte changed, at the same size") {
    poke(in, 54321, 'z');
    CHECK_FALSE(same(in, was));
  }
  SECTION("shortened") {
    REQUIRE(::truncate(in.c_str(), 99999) == 0);
    CHECK_FALSE(same(in, was));
  }
}

TEST_CASE("above 64 MiB the digest samples 16 blocks of 64 KiB", "[input]") {
  TempDir dir;
  const std::string in = dir.file("big.bin");
  const std::size_t size = (std::size_t{64} << 20) + 4096;
  write_file(in, size);
  const InputIdentity was = identify(in);
  CHECK(was.digest_kind == kDigestSampled);

  SECTION("a byte changed in the first block is seen") {
    poke(in, 10, 'z');
    CHECK_FALSE(same(in, was));
  }
  SECTION("a byte changed in the last block is seen") {
    poke(in, static_cast<off_t>(size - 10), 'z');
    CHECK_FALSE(same(in, was));
  }
  SECTION("a byte changed between two sampled blocks is not (the documented limit)") {
    poke(in, 2 << 20, 'z');  // block 0 covers [0, 64 KiB), block 1 starts near 4 MiB
    CHECK(same(in, was));
  }
}
