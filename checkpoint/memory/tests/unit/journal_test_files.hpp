#pragma once
// What the journals' unit tests share (test_open_journal.cpp, test_overwrite_journal.cpp): a
// temporary directory that also stops the journal when the test ends, and whole-file helpers.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "checkpoint/memory/open_journal.hpp"

namespace yadokari::memory::testing {

struct JournalTempDir {
  std::filesystem::path path;
  JournalTempDir() {
    // $TMPDIR or the system's temporary directory.
    std::string name = (std::filesystem::temp_directory_path() / "yk-journal-test.XXXXXX").string();
    REQUIRE(mkdtemp(name.data()) != nullptr);
    path = name;
  }
  ~JournalTempDir() {
    stop_open_journal();
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

inline std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace yadokari::memory::testing
