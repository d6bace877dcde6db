// Binary identities: build-ids from files and from memory agree, files without one are hashed,
// and differences are described in words.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "checkpoint/image/binary_identity.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/tests/image_test_support.hpp"

using namespace yadokari::image;
using namespace yadokari::image::testing;

TEST_CASE("the loaded binaries start with this executable and have build-ids", "[image][identity]") {
  const auto binaries = loaded_binaries();
  REQUIRE(binaries.size() >= 3);  // this test, libstdc++, libc at least
  CHECK(binaries.front().path == std::filesystem::read_symlink("/proc/self/exe").string());
  bool has_libc = false;
  for (const auto& binary : binaries) {
    INFO(binary.path);
    CHECK(binary.path.front() == '/');
    CHECK(binary.size == std::filesystem::file_size(binary.path));
    // What was found in memory is what the file on disk says.
    CHECK(identify_file(binary.path) == binary);
    has_libc = has_libc || binary.path.find("libc.so") != std::string::npos;
  }
  CHECK(has_libc);
  CHECK(binaries.front().kind == IdentityKind::build_id);
  CHECK(identity_mismatches(binaries, binaries).empty());
}

TEST_CASE("a file without a build-id is identified by its content", "[image][identity]") {
  TempDir dir;
  const std::string path = dir.file("script.sh");
  std::ofstream(path) << "#!/bin/sh\necho hello\n";
  const auto before = identify_file(path);
  CHECK(before.kind == IdentityKind::content_xxh64);
  CHECK(before.size == 21);
  CHECK(describe_identity(before).rfind("xxh64 ", 0) == 0);
  CHECK(describe_identity(before).size() == 6 + 16);

  std::ofstream(path) << "#!/bin/sh\necho HELLO\n";
  const auto after = identify_file(path);
  const auto differences = identity_mismatches({before}, {after});
  REQUIRE(differences.size() == 1);
  CHECK(differences[0] == path + " changed since the checkpoint (was " + describe_identity(before) +
                              ", 21 bytes; now " + describe_identity(after) + ", 21 bytes)");
}

TEST_CASE("binaries that appeared or disappeared are reported", "[image][identity]") {
  const BinaryIdentity a{"/lib/a.so", IdentityKind::build_id, "\x01\x02", 10};
  const BinaryIdentity b{"/lib/b.so", IdentityKind::build_id, "\x03\x04", 20};
  const auto differences = identity_mismatches({a}, {b});
  REQUIRE(differences.size() == 2);
  CHECK(differences[0] == "/lib/a.so was loaded at the checkpoint but is not loaded now");
  CHECK(differences[1] == "/lib/b.so is loaded now but was not at the checkpoint");
  CHECK(describe_identity(a) == "build-id 0102");
}

TEST_CASE("identifying a missing file is an I/O error", "[image][identity]") {
  CHECK_THROWS_AS(identify_file("/nonexistent/libx.so"), ImageError);
}
