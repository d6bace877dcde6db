// The stand-in's hand-over: see launcher_handoff.hpp. On the wire: a 16-byte header sent with the
// descriptors attached (stdout, stderr, then the PMI socket if there is one), then the variables,
// NUL-separated; later, the kept process's 4-byte exit status.
#include "protocol/launcher_handoff.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace yadokari::protocol {
namespace {

constexpr std::uint32_t kMagic = 0x594b5349;  // "YKSI"
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kHasPmiFd = 1;
constexpr std::uint32_t kMaxBytes = 1u << 20;  // far above any launcher's variables

struct Header {
  std::uint32_t magic, version, bytes, flags;
};

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);  // a closed peer is an error, not SIGPIPE
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool read_all(int fd, char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

// The header's message, with room for the descriptors: `control` must outlive it.
struct HeaderMessage {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 3)] = {};
  iovec iov;
  msghdr m{};
  explicit HeaderMessage(Header& header) : iov{&header, sizeof header} {
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = control;
    m.msg_controllen = sizeof control;
  }
};

}  // namespace

bool unix_socket_address(const std::string& path, sockaddr_un& a, std::string& why) {
  a = sockaddr_un{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) {
    why = "socket path too long: " + path;
    return false;
  }
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  return true;
}

std::string handoff_socket_path(const std::string& dir, int rank) {
  return dir + "/rank-" + std::to_string(rank) + ".sock";
}

bool is_launcher_variable(std::string_view kv) {
  static constexpr std::array<std::string_view, 9> kPrefixes = {
      "PMI_", "PMIX_", "OMPI_", "HYDRA_", "MPI_LOCAL", "MPIR_CVAR_", "OPAL_", "ORTE_", "YADOKARI_RANK_MAP="};
  for (const std::string_view p : kPrefixes)
    if (kv.starts_with(p)) return true;
  return false;
}

bool send_handoff(int sock, const Handoff& h, std::string& why) {
  std::string block;
  for (const std::string& v : h.variables) {
    block += v;
    block += '\0';
  }
  if (block.size() > kMaxBytes) {
    why = "the launcher's variables take " + std::to_string(block.size()) + " bytes";
    return false;
  }
  Header header{kMagic, kVersion, static_cast<std::uint32_t>(block.size()), h.pmi_fd >= 0 ? kHasPmiFd : 0};
  std::array<int, 3> fds{h.out, h.err, h.pmi_fd};
  const std::size_t nfds = h.pmi_fd >= 0 ? 3 : 2;
  HeaderMessage message(header);
  msghdr& m = message.m;
  m.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
  cmsghdr* c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
  std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * nfds);
  ssize_t sent;
  do sent = ::sendmsg(sock, &m, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  if (sent != static_cast<ssize_t>(sizeof header) || !write_all(sock, block.data(), block.size())) {
    why = std::string("cannot send to the kept process: ") + std::strerror(errno);
    return false;
  }
  return true;
}

std::optional<Handoff> receive_handoff(int sock, std::string& why) {
  Header header{};
  HeaderMessage message(header);
  msghdr& m = message.m;
  ssize_t got;
  do got = ::recvmsg(sock, &m, MSG_WAITALL | MSG_CMSG_CLOEXEC);
  while (got < 0 && errno == EINTR);
  Handoff h;
  std::array<int, 3> fds{-1, -1, -1};
  std::size_t nfds = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      nfds = std::min<std::size_t>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int), fds.size());
      std::memcpy(fds.data(), CMSG_DATA(c), sizeof(int) * nfds);
    }
  auto fail = [&](std::string text) -> std::optional<Handoff> {
    for (std::size_t i = 0; i < nfds; ++i) ::close(fds[i]);
    why = std::move(text);
    return std::nullopt;
  };
  if (got != static_cast<ssize_t>(sizeof header)) return fail("the stand-in sent no hand-over");
  if (header.magic != kMagic || header.version != kVersion) return fail("the stand-in speaks another hand-over");
  const std::size_t expected = (header.flags & kHasPmiFd) ? 3 : 2;
  if (nfds != expected || (m.msg_flags & MSG_CTRUNC))
    return fail("the stand-in sent " + std::to_string(nfds) + " descriptors, not " + std::to_string(expected));
  if (header.bytes > kMaxBytes) return fail("the stand-in's variables are too large");
  std::string block(header.bytes, '\0');
  if (!read_all(sock, block.data(), block.size())) return fail("the stand-in's variables were cut short");
  for (std::size_t at = 0; at < block.size();) {
    const std::size_t end = block.find('\0', at);
    const std::string kv = block.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (!is_launcher_variable(kv) || kv.find('=') == std::string::npos)
      return fail("the stand-in sent a variable that is not a launcher's: " + kv.substr(0, kv.find('=')));
    h.variables.push_back(kv);
    at = end == std::string::npos ? block.size() : end + 1;
  }
  h.out = fds[0];
  h.err = fds[1];
  h.pmi_fd = expected == 3 ? fds[2] : -1;
  return h;
}

bool send_exit_status(int sock, int status) {
  const std::int32_t s = status;
  return write_all(sock, reinterpret_cast<const char*>(&s), sizeof s);
}

std::optional<int> receive_exit_status(int sock) {
  std::int32_t s = 0;
  if (!read_all(sock, reinterpret_cast<char*>(&s), sizeof s)) return std::nullopt;
  return s;
}

}  // namespace yadokari::protocol
