#include "runtime/sim/holder.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <iterator>

#include "runtime/sim/sim_error.hpp"

namespace yadokari::sim {

namespace {

// In the holder, before exec: report a failed step through the status pipe and give up.
[[noreturn]] void fail_step(int status_fd, const char* step) {
  const std::string message = std::string(step) + ": " + std::strerror(errno);
  (void)!write(status_fd, message.data(), message.size());
  _exit(1);
}

[[noreturn]] void become_holder(const HolderSpec& spec, int status_fd) {
  const pid_t self = getpid();
  (void)!write(status_fd, &self, sizeof self);
  const int null_fd = open("/dev/null", O_RDWR);
  if (null_fd < 0) fail_step(status_fd, "open /dev/null");
  dup2(null_fd, 0);
  dup2(null_fd, 1);
  dup2(null_fd, 2);
  // Nothing of the caller's may stay open (a test harness waits for its pipes to close).
  if (dup2(status_fd, 3) < 0) fail_step(status_fd, "dup2");
  status_fd = 3;
  fcntl(status_fd, F_SETFD, FD_CLOEXEC);
  close_range(4, UINT_MAX, 0);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (chdir("/") != 0) fail_step(status_fd, "chdir /");

  const int flags = spec.full_node ? (CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNS) : CLONE_NEWNET;
  if (unshare(flags) != 0) fail_step(status_fd, "unshare");
  if (spec.full_node) {
    if (sethostname(spec.hostname.data(), spec.hostname.size()) != 0) fail_step(status_fd, "sethostname");
    // Our mounts must not propagate back into the root mount namespace.
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail_step(status_fd, "make / private");
    if (mount(spec.hosts_file.c_str(), "/etc/hosts", nullptr, MS_BIND, nullptr) != 0) {
      fail_step(status_fd, "bind-mount /etc/hosts");
    }
    if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) {
      fail_step(status_fd, "mount tmpfs on /dev/shm");
    }
    // The mount point is created in the host's file system (an empty directory next to the
    // clusters' state); what is mounted on it is the node's alone.
    (void)mkdir("/run/yadokari", 0755);  // EEXIST is fine; the mount says if it is not
    (void)mkdir(kNodeDiskPath, 0755);
    if (mount("tmpfs", kNodeDiskPath, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) {
      fail_step(status_fd, "mount tmpfs on /run/yadokari/node-disk");
    }
  }
  execlp("sleep", spec.tag.c_str(), "infinity", static_cast<char*>(nullptr));
  fail_step(status_fd, "exec sleep");
}

}  // namespace

std::string holder_tag(const std::filesystem::path& cluster_dir, const std::string& id) {
  return "yadokari-sim:" + cluster_dir.string() + ":" + id;
}

pid_t spawn_holder(const HolderSpec& spec) {
  int status_pipe[2];
  if (pipe2(status_pipe, O_CLOEXEC) != 0) throw SimError(std::string("pipe: ") + std::strerror(errno));
  const pid_t middle = fork();
  if (middle < 0) {
    close(status_pipe[0]);
    close(status_pipe[1]);
    throw SimError(std::string("fork: ") + std::strerror(errno));
  }
  if (middle == 0) {
    close(status_pipe[0]);
    setsid();
    const pid_t holder = fork();
    if (holder == 0) become_holder(spec, status_pipe[1]);
    _exit(holder < 0 ? 1 : 0);
  }
  close(status_pipe[1]);
  int status = 0;
  while (waitpid(middle, &status, 0) < 0 && errno == EINTR) {
  }
  // The pipe reaches EOF when the holder execs (close-on-exec) or dies.
  std::string report;
  char buffer[512];
  for (;;) {
    const ssize_t got = read(status_pipe[0], buffer, sizeof buffer);
    if (got > 0) {
      report.append(buffer, static_cast<size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }
  close(status_pipe[0]);
  if (report.size() < sizeof(pid_t)) throw SimError("could not start a namespace holder process");
  pid_t holder = 0;
  std::memcpy(&holder, report.data(), sizeof holder);
  if (report.size() > sizeof(pid_t)) {
    throw SimError("namespace holder for " + spec.tag + " failed: " + report.substr(sizeof(pid_t)));
  }
  return holder;
}

std::string namespace_of(pid_t pid, const std::string& kind) {
  std::error_code error;
  const auto target = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/ns/" + kind, error);
  return error ? std::string() : target.string();
}

std::string process_argv0(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string argv0;
  std::getline(in, argv0, '\0');
  return argv0;
}

}  // namespace yadokari::sim
