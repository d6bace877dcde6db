// The open journal (checkpoint/memory/open_journal.hpp): what journal_open writes, what the reader
// makes of it (generations, the smallest size per path, a record cut short), removal of old
// generations, and the cut-target rule.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "checkpoint/memory/open_journal.hpp"
#include "checkpoint/memory/src/open_journal_note.hpp"
#include "checkpoint/memory/tests/unit/journal_test_files.hpp"

using namespace yadokari::memory;
using namespace yadokari::memory::testing;
namespace fs = std::filesystem;

namespace {

// Opens `p` with `flags` as the application would, hands the descriptor to the journal, closes it.
void app_open(const fs::path& p, int flags) {
  const int fd = ::open(p.c_str(), flags, 0644);
  REQUIRE(fd >= 0);
  journal_open(fd, flags);
  ::close(fd);
}

std::vector<JournalRecord> read_all(const fs::path& dir, std::uint64_t from) {
  std::vector<JournalRecord> records;
  std::string why;
  REQUIRE(read_open_journal(dir.c_str(), from, records, why));
  CHECK(why.empty());
  return records;
}

}  // namespace

TEST_CASE("a record encodes and decodes, and a record cut short ends the readable ones") {
  char buffer[2 * (kJournalHead + 64)];
  const std::size_t a = encode_journal_record(7, 123, "/data/log.txt", buffer, sizeof buffer);
  const std::size_t b = encode_journal_record(8, 0, "/data/other", buffer + a, sizeof buffer - a);
  REQUIRE(a == kJournalHead + 13);
  REQUIRE(b == kJournalHead + 11);
  std::vector<JournalRecord> records = decode_journal_records(buffer, a + b);
  REQUIRE(records.size() == 2);
  CHECK(records[0].generation == 7);
  CHECK(records[0].size == 123);
  CHECK(records[0].path == "/data/log.txt");
  CHECK(records[1].generation == 8);
  CHECK(records[1].size == 0);
  CHECK(records[1].path == "/data/other");
  // Torn: the second record's last byte never reached the disk.
  CHECK(decode_journal_records(buffer, a + b - 1).size() == 1);
  // Damaged: one bit of the first record's size flipped.
  buffer[16] ^= 1;
  CHECK(decode_journal_records(buffer, a + b).empty());
  // Nothing to encode: an empty path, a path too long, no room.
  CHECK(encode_journal_record(1, 1, "", buffer, sizeof buffer) == 0);
  const std::string long_path(kJournalPathMax + 1, 'x');
  CHECK(encode_journal_record(1, 1, long_path.c_str(), buffer, sizeof buffer) == 0);
  CHECK(encode_journal_record(1, 1, "/a", buffer, kJournalHead + 1) == 0);
}

TEST_CASE("the first open for writing without truncation of each path is journaled once per generation") {
  JournalTempDir t;
  const fs::path dir = t.path / "journal" / "rank-0";
  const fs::path log = t.path / "log.txt", input = t.path / "input.txt", out = t.path / "out.txt";
  write_file(log, "line 1\n");  // 7 bytes before the "cut"
  write_file(input, "read only\n");
  write_file(out, "rewritten\n");
  std::string why;
  REQUIRE(start_open_journal(dir.c_str(), 3, why));
  app_open(log, O_WRONLY | O_APPEND | O_CREAT);  // journaled: 7
  write_file(log, "line 1\nline 2\n");
  app_open(log, O_WRONLY | O_APPEND | O_CREAT);    // the same path again: not journaled
  app_open(input, O_RDONLY);                       // read only: not journaled
  app_open(out, O_WRONLY | O_TRUNC | O_CREAT);     // truncated: written again identically by a restart
  app_open(t.path / "new.txt", O_RDWR | O_CREAT);  // created by this open: 0
  {
    std::vector<JournalRecord> records = read_all(dir, 3);
    REQUIRE(records.size() == 2);
    CHECK(records[0].path == fs::canonical(log).string());
    CHECK(records[0].size == 7);
    CHECK(records[0].generation == 3);
    CHECK(records[1].path == fs::canonical(t.path / "new.txt").string());
    CHECK(records[1].size == 0);
  }
  // Exactly two records in generation 3's file, nothing else written.
  CHECK(file_bytes(dir / "3").size() ==
        2 * kJournalHead + fs::canonical(log).string().size() + fs::canonical(t.path / "new.txt").string().size());

  // The next cut: the log is journaled again in generation 5 (14 bytes then).
  REQUIRE(start_open_journal(dir.c_str(), 5, why));
  app_open(log, O_WRONLY | O_APPEND);
  {
    std::vector<JournalRecord> from3 = read_all(dir, 3);
    REQUIRE(from3.size() == 2);
    CHECK(from3[0].size == 7);  // the smallest size any generation >= 3 recorded
    std::vector<JournalRecord> from5 = read_all(dir, 5);
    REQUIRE(from5.size() == 1);
    CHECK(from5[0].size == 14);
    CHECK(from5[0].generation == 5);
    CHECK(read_all(dir, 6).empty());
  }
  // Generations before 5 removed: only 5's record is left.
  remove_open_journal(dir.c_str(), 0, 5);
  CHECK_FALSE(fs::exists(dir / "3"));
  CHECK(read_all(dir, 0).size() == 1);
  // Stopped: nothing more is journaled.
  stop_open_journal();
  app_open(t.path / "after-stop.txt", O_WRONLY | O_APPEND | O_CREAT);
  CHECK(read_all(dir, 0).size() == 1);
}

TEST_CASE("a missing journal directory has no records; an unreadable journal file is an error") {
  JournalTempDir t;
  CHECK(read_all(t.path / "nothing-here", 0).empty());
  const fs::path dir = t.path / "journal";
  fs::create_directories(dir / "4");  // a directory where generation 4's file should be
  std::vector<JournalRecord> records;
  std::string why;
  CHECK_FALSE(read_open_journal(dir.c_str(), 0, records, why));
  CHECK(why == "cannot read the open journal " + (dir / "4").string() + ": Is a directory");
  why.clear();
  CHECK(read_open_journal(dir.c_str(), 5, records, why));  // generation 4 is not read from 5 on
}

TEST_CASE("the cut target: the size at the checkpoint wins, never below what this rank saw") {
  // Nobody had the file open at the checkpoint: the smallest size at a first open after it.
  CHECK(journal_cut_target(false, 0, 40) == 40);
  // A rank had it open then (its size at the checkpoint, 100) and this one opened it later at 120
  // (the other rank had appended past the checkpoint meanwhile): 120 here, the other rank cuts to 100.
  CHECK(journal_cut_target(true, 100, 120) == 120);
  // Opened here at 90, the checkpoint said 100: 100 (bytes before the checkpoint are kept).
  CHECK(journal_cut_target(true, 100, 90) == 100);
  CHECK(journal_cut_target(true, 0, 0) == 0);
}

namespace {
std::atomic<int> g_handled{0};
const char* g_handler_file;
// What a handler may do (open is async-signal-safe): append a line to a log file.
void append_from_handler(int) {
  const int fd = ::open(g_handler_file, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd >= 0) {
    journal_open(fd, O_WRONLY | O_APPEND | O_CREAT);
    ::close(fd);
  }
  g_handled.fetch_add(1);
}
}  // namespace

TEST_CASE("a signal handler that opens a file while this thread journals one does not deadlock") {
  JournalTempDir t;
  const fs::path dir = t.path / "journal";
  const std::string handler_file = (t.path / "from-handler.txt").string();
  g_handler_file = handler_file.c_str();
  std::string why;
  REQUIRE(start_open_journal(dir.c_str(), 1, why));
  struct sigaction action {
  }, old{};
  action.sa_handler = append_from_handler;
  sigemptyset(&action.sa_mask);
  REQUIRE(sigaction(SIGUSR1, &action, &old) == 0);
  // The mask the application set stays as it was around a journaled open.
  sigset_t blocked, after;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR2);
  REQUIRE(pthread_sigmask(SIG_BLOCK, &blocked, nullptr) == 0);
  app_open(t.path / "first.txt", O_WRONLY | O_APPEND | O_CREAT);
  pthread_sigmask(SIG_BLOCK, nullptr, &after);
  CHECK(sigismember(&after, SIGUSR2) == 1);
  CHECK(sigismember(&after, SIGUSR1) == 0);
  // Signals land while this thread is journaling new paths (each one takes the journal's lock):
  // a handler that ran inside the lock would spin on it for ever; blocked there, it runs after.
  const pthread_t self = pthread_self();
  std::atomic<bool> done{false};
  std::thread sender([&] {
    while (!done.load()) pthread_kill(self, SIGUSR1);
  });
  for (int i = 0; i < 300; ++i)
    app_open(t.path / ("file-" + std::to_string(i) + ".txt"), O_WRONLY | O_APPEND | O_CREAT);
  while (g_handled.load() == 0) sched_yield();  // at least one handler ran
  done.store(true);
  sender.join();
  sigaction(SIGUSR1, &old, nullptr);
  pthread_sigmask(SIG_UNBLOCK, &blocked, nullptr);
  CHECK(g_handled.load() > 0);
  // 1 + 300 paths of this thread and the handler's one file, each journaled once.
  CHECK(read_all(dir, 1).size() == 302);
}
