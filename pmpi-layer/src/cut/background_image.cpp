#include "pmpi-layer/src/cut/background_image.hpp"

#include "pmpi-layer/src/cut/image_progress.hpp"

#include "checkpoint/image/image_writer.hpp"
#include "pmpi-layer/src/link/control_link.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include "common/parameters.hpp"

namespace yadokari::shim::background_image {
namespace {

namespace ctl = yadokari::protocol;

// What the writer hands back through its pipe; EOF without it means the writer died.
struct WriterResult {
  std::uint32_t ok = 0;
  std::uint64_t size = 0;
  std::uint64_t xxh64 = 0;
  std::uint64_t parent_epoch = 0;
  std::uint32_t dmtcp_layout = 0;
  double write_seconds = 0;
  char path[4096] = {};
  char error[2048] = {};
};

// None of this is carried into an image (it is not registered with yk_mem_carry): a restarted
// process starts with no writer.
std::mutex g_mutex;
std::condition_variable g_changed;
bool g_released = false;
double g_pause_seconds = 0;
std::thread g_reporter;
pid_t g_writer_pid = -1;
int g_result_fd = -1;  // the rank's end of the writer's pipe; in the writer: its end
using image_progress::g_writing_epoch;
// One shared page: the writer counts its bytes there, the rank's status reads them.
std::atomic<std::uint64_t>*& g_progress = image_progress::g_bytes;
std::chrono::steady_clock::time_point g_fork_time;
std::chrono::steady_clock::time_point g_go_time;
unsigned g_images_forked = 0;  // counted in the rank after each fork: a writer sees its predecessors

bool make_progress_page() {
  if (g_progress) return true;
  void* page = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return false;
  g_progress = new (page) std::atomic<std::uint64_t>(0);
  return true;
}

// The writer must not run the application's signal handlers (a SIGTERM from the launcher should
// simply end it) and must not outlive the rank (whose epoch could then never commit).
void become_writer(pid_t rank_pid) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != rank_pid) ::_exit(1);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) (void)::sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  (void)::pthread_sigmask(SIG_SETMASK, &none, nullptr);
}

bool read_result(int fd, WriterResult& result) {
  auto* bytes = reinterpret_cast<char*>(&result);
  std::size_t got = 0;
  while (got < sizeof result) {
    const ssize_t n = ::read(fd, bytes + got, sizeof result - got);
    if (n > 0) {
      got += static_cast<std::size_t>(n);
    } else if (n == 0) {
      return false;
    } else if (errno != EINTR) {
      return false;
    }
  }
  return true;
}

// Reaps the writer; false when the application's own wait() reaped it first (no status left).
bool reap(pid_t pid, int& status) {
  pid_t r;
  do r = ::waitpid(pid, &status, 0);
  while (r < 0 && errno == EINTR);
  return r == pid;
}

std::string death_of(pid_t pid) {
  int status = 0;
  std::string text = "the image writer (pid " + std::to_string(pid) + ") ended before the image was complete";
  if (!reap(pid, status)) return text;
  if (WIFSIGNALED(status)) return text + " (signal " + std::to_string(WTERMSIG(status)) + ")";
  return text + " (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
}

void report(ctl::ImageWritten message, pid_t pid, int fd) {
  WriterResult result;
  const bool complete = read_result(fd, result);
  ::close(fd);
  if (complete) {
    int status = 0;
    (void)reap(pid, status);
    message.ok = result.ok != 0;
    message.error = result.error;
    if (message.ok) {
      message.path = result.path;
      message.size = result.size;
      message.xxh64 = result.xxh64;
      message.parent_epoch = result.parent_epoch;
      if (result.dmtcp_layout != 0) message.layout = "dmtcp";
    }
    message.write_seconds = result.write_seconds;
  } else {
    message.ok = false;
    message.error = death_of(pid);
  }
  if (!message.ok) {  // what is measured at the pause belongs to an image that exists
    message.traffic.clear();
    message.compute_seconds = -1.0;
  }
  {
    std::unique_lock<std::mutex> lock(g_mutex);
    g_changed.wait(lock, [] { return g_released; });
    message.pause_seconds = g_pause_seconds;
  }
  g_writing_epoch.store(0);
  send_to_coordinator(message);
}

}  // namespace

bool wanted() {
  const char* value = std::getenv(yadokari::parameters::kCkptBackground);
  return !value || std::strcmp(value, "off") != 0;
}

Side fork_writer(std::uint64_t epoch, std::string& error) {
  wait_for_report();  // the previous epoch's: long done, since the coordinator waited for it
  if (!make_progress_page()) {
    error = std::string("cannot map the image writer's progress page: ") + std::strerror(errno);
    return Side::failed;
  }
  g_progress->store(0);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    error = std::string("cannot make the image writer's pipe: ") + std::strerror(errno);
    return Side::failed;
  }
  const pid_t rank_pid = ::getpid();
  g_fork_time = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    error = std::string("cannot fork the image writer: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return Side::failed;
  }
  if (pid == 0) {
    ::close(fds[0]);
    g_result_fd = fds[1];
    become_writer(rank_pid);
    return Side::writer;
  }
  ::close(fds[1]);
  ++g_images_forked;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_writer_pid = pid;
  g_result_fd = fds[0];
  g_released = false;
  g_writing_epoch.store(epoch);
  return Side::rank;
}

unsigned earlier_images() { return g_images_forked; }

void add_progress(std::uint64_t bytes) {
  if (g_progress) g_progress->fetch_add(bytes, std::memory_order_relaxed);
}

void finish_writer(bool ok, const yadokari::image::WrittenImage* written, const std::string& error) {
  WriterResult result;
  result.ok = ok ? 1 : 0;
  if (written) {
    result.size = written->size;
    result.xxh64 = written->xxh64;
    result.parent_epoch = written->parent_epoch;
    result.dmtcp_layout = written->layout == yadokari::image::ImageLayout::dmtcp ? 1 : 0;
    std::snprintf(result.path, sizeof result.path, "%s", written->path.c_str());
  }
  std::snprintf(result.error, sizeof result.error, "%s", error.c_str());
  result.write_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - g_fork_time).count();
  const auto* bytes = reinterpret_cast<const char*>(&result);
  std::size_t done = 0;
  while (done < sizeof result) {
    const ssize_t n = ::write(g_result_fd, bytes + done, sizeof result - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  // No destructors, no atexit handlers: they belong to the rank (its MPI library, its files).
  ::_exit(ok ? 0 : 1);
}

void report_when_written(ctl::ImageWritten message) {
  pid_t pid;
  int fd;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    pid = g_writer_pid;
    fd = g_result_fd;
    g_writer_pid = -1;
    g_result_fd = -1;
  }
  // The thread must never run the application's signal handlers (timers, profilers...).
  sigset_t all, callers;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &callers);
  g_reporter = std::thread(report, std::move(message), pid, fd);
  ::pthread_sigmask(SIG_SETMASK, &callers, nullptr);
}

void note_go(std::chrono::steady_clock::time_point when) { g_go_time = when; }

void rank_released() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_released) return;
  g_released = true;
  g_pause_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - g_go_time).count();
  g_changed.notify_all();
}

void wait_for_report() {
  if (g_reporter.joinable()) g_reporter.join();
}

}  // namespace yadokari::shim::background_image
