// The overwrite journal (checkpoint/memory/overwrite_journal.hpp): bytes kept before they are
// overwritten, put back at a restart newest first so that the oldest copy of a byte wins, ranges
// too long to copy verified by checksum (refused with the reason when they differ), records cut
// short, files that are gone, and removal with the open journal's generations.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "checkpoint/memory/open_journal.hpp"
#include "checkpoint/memory/overwrite_journal.hpp"
#include "checkpoint/memory/tests/unit/journal_test_files.hpp"

using namespace yadokari::memory;
using namespace yadokari::memory::testing;
namespace fs = std::filesystem;

namespace {

// What the watch does before an application write: keep the bytes, then let the write happen.
void overwrite(const fs::path& p, std::uint64_t offset, const std::string& text) {
  const int fd = ::open(p.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  REQUIRE(keep_before_overwrite(fd, fs::canonical(p).c_str(), offset, text.size()));
  REQUIRE(::pwrite(fd, text.data(), text.size(), static_cast<off_t>(offset)) == static_cast<ssize_t>(text.size()));
  ::close(fd);
}

bool undo(const fs::path& dir, std::uint64_t from, std::string& why) { return undo_overwrites(dir.c_str(), from, why); }

}  // namespace

TEST_CASE("overwritten bytes are put back; overlapping copies: the oldest wins") {
  JournalTempDir t;
  const fs::path dir = t.path / "journal", data = t.path / "data.bin";
  write_file(data, "ABCDEFGHIJ");
  std::string why;
  REQUIRE(start_open_journal(dir.c_str(), 3, why));
  overwrite(data, 2, "xxxx");  // ABxxxxGHIJ
  overwrite(data, 4, "yyyy");  // kept "xxGH" (already overwritten once): ABxxyyyyIJ
  REQUIRE(file_bytes(data) == "ABxxyyyyIJ");
  const std::vector<OverwriteRecord> records =
      decode_overwrite_records(file_bytes(dir / "3.pre").data(), file_bytes(dir / "3.pre").size());
  REQUIRE(records.size() == 2);
  CHECK(records[0].kind == OverwriteRecord::kBytes);
  CHECK(records[0].generation == 3);
  CHECK(records[0].offset == 2);
  CHECK(records[0].bytes == "CDEF");
  CHECK(records[1].bytes == "xxGH");
  CHECK(records[1].path == fs::canonical(data).string());
  REQUIRE(undo(dir, 3, why));
  CHECK(why.empty());
  CHECK(file_bytes(data) == "ABCDEFGHIJ");
}

TEST_CASE("a restart undoes every generation from its epoch on, newest first, and no older one") {
  JournalTempDir t;
  const fs::path dir = t.path / "journal", data = t.path / "data.bin";
  write_file(data, "0123456789");
  std::string why;
  REQUIRE(start_open_journal(dir.c_str(), 3, why));
  overwrite(data, 0, "aa");  // aa23456789 when epoch 4 is cut
  REQUIRE(start_open_journal(dir.c_str(), 4, why));
  overwrite(data, 1, "bbb");  // abbb456789
  REQUIRE(file_bytes(data) == "abbb456789");
  REQUIRE(undo(dir, 4, why));
  CHECK(file_bytes(data) == "aa23456789");  // as at epoch 4
  overwrite(data, 1, "bbb");
  REQUIRE(undo(dir, 3, why));
  CHECK(file_bytes(data) == "0123456789");  // as at epoch 3
  // The generations' files go with the open journal's.
  remove_open_journal(dir.c_str(), 0, 4);
  CHECK_FALSE(fs::exists(dir / "3.pre"));
  CHECK(fs::exists(dir / "4.pre"));
}

TEST_CASE("a record cut short ends the readable ones; a file that is gone stays gone") {
  JournalTempDir t;
  const fs::path dir = t.path / "journal", data = t.path / "data.bin", gone = t.path / "gone.bin";
  write_file(data, "0123456789");
  write_file(gone, "abcdef");
  std::string why;
  REQUIRE(start_open_journal(dir.c_str(), 7, why));
  overwrite(gone, 0, "zz");
  overwrite(data, 0, "xx");
  overwrite(data, 5, "yy");
  stop_open_journal();
  // The last record's check never reached the disk: its bytes are not put back.
  fs::resize_file(dir / "7.pre", fs::file_size(dir / "7.pre") - 1);
  fs::remove(gone);
  REQUIRE(undo(dir, 7, why));
  CHECK(file_bytes(data) == "01234yy789");
  CHECK_FALSE(fs::exists(gone));
}

TEST_CASE("a range too long to copy is verified by its checksum, and a changed one refuses the restart") {
  JournalTempDir t;
  const fs::path dir = t.path / "journal", big = t.path / "big.bin";
  const std::uint64_t length = kOverwriteKeepMax + 4096;
  { std::ofstream out(big, std::ios::binary); }
  fs::resize_file(big, length);  // sparse: reads as zeros
  std::string why;
  REQUIRE(start_open_journal(dir.c_str(), 9, why));
  const int fd = ::open(big.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  REQUIRE(keep_before_overwrite(fd, fs::canonical(big).c_str(), 0, length));
  ::close(fd);
  const std::string journal = file_bytes(dir / "9.pre");
  CHECK(journal.size() < 4096);  // a checksum, not a copy
  const std::vector<OverwriteRecord> records = decode_overwrite_records(journal.data(), journal.size());
  REQUIRE(records.size() == 1);
  CHECK(records[0].kind == OverwriteRecord::kChecksum);
  CHECK(records[0].length == length);
  // Nothing written over it: the restart goes on.
  REQUIRE(undo(dir, 9, why));
  // One byte changed by the run that failed: refused, with the reason.
  {
    std::fstream out(big, std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(12345);
    out.put('x');
  }
  CHECK_FALSE(undo(dir, 9, why));
  CHECK(why == fs::canonical(big).string() + " was overwritten at bytes 0-" + std::to_string(length) +
                   " after epoch 9 by the run that failed, a range of more than 64 MiB (one write, or a writable "
                   "shared mapping) of which the journal keeps only a checksum: the restarted run would read other "
                   "bytes than the checkpointed one did");
}

TEST_CASE("nothing is kept while no journal runs, and a missing journal undoes nothing") {
  JournalTempDir t;
  const fs::path data = t.path / "data.bin";
  write_file(data, "abc");
  const int fd = ::open(data.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  CHECK_FALSE(keep_before_overwrite(fd, fs::canonical(data).c_str(), 0, 3));
  ::close(fd);
  std::string why;
  CHECK(undo(t.path / "no-journal", 0, why));
  CHECK(why.empty());
}
