#include "protocol/relay_socket.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace yadokari::protocol {
namespace {

std::string relay_directory() { return "/tmp/yadokari-relay-" + std::to_string(getuid()); }

}  // namespace

std::string relay_socket_path(std::string_view job_id, std::string_view hostname) {
  const std::string prefix = relay_directory() + "/" + std::string(job_id) + ".";
  std::string path = prefix + std::string(hostname) + ".sock";
  if (path.size() < sizeof(sockaddr_un{}.sun_path)) return path;
  char digest[17];
  std::snprintf(digest, sizeof digest, "%016llx",
                static_cast<unsigned long long>(XXH3_64bits(hostname.data(), hostname.size())));
  return prefix + digest + ".sock";
}

std::string prepare_relay_directory() {
  const std::string dir = relay_directory();
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return "cannot create " + dir + ": " + std::strerror(errno);
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) return "cannot read " + dir + ": " + std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return dir + " is not a directory";
  if (st.st_uid != getuid()) return dir + " belongs to another user";
  if ((st.st_mode & 077) != 0) return dir + " is open to other users";
  return "";
}

namespace {

// 0 when something accepts connections at `path`, else connect's errno.
int connect_error(const std::string& path) {
  sockaddr_un address{};
  if (path.size() >= sizeof address.sun_path) return ENAMETOOLONG;
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  const int error = connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 ? 0 : errno;
  close(fd);
  return error;
}

}  // namespace

bool relay_listening(const std::string& path) { return connect_error(path) == 0; }

int remove_dead_relay_sockets(std::chrono::seconds older_than) {
  std::error_code error;
  std::filesystem::directory_iterator listing(relay_directory(), error);
  if (error) return 0;
  const auto oldest_kept = std::chrono::system_clock::now() - older_than;
  int removed = 0;
  for (const auto& entry : listing) {
    const std::string path = entry.path().string();
    if (!path.ends_with(".sock")) continue;
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    if (std::chrono::system_clock::from_time_t(st.st_mtime) > oldest_kept) continue;
    if (connect_error(path) == ECONNREFUSED && unlink(path.c_str()) == 0) ++removed;
  }
  return removed;
}

}  // namespace yadokari::protocol
