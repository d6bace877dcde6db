#include "runtime/frontend/termination_signals.hpp"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/frontend/frontend_error.hpp"

namespace yadokari::frontend {

TerminationSignals::TerminationSignals() {
  sigemptyset(&set_);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1}) sigaddset(&set_, sig);
  pthread_sigmask(SIG_BLOCK, &set_, &previous_);
  fd_ = signalfd(-1, &set_, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd_ < 0) throw FrontendError(ErrorKind::failure, std::string("signalfd: ") + std::strerror(errno));
}

TerminationSignals::~TerminationSignals() {
  close(fd_);
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

std::optional<ReceivedSignal> TerminationSignals::take() {
  signalfd_siginfo info{};
  if (read(fd_, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) return std::nullopt;
  return ReceivedSignal{static_cast<int>(info.ssi_signo), info.ssi_code == SI_KERNEL};
}

}  // namespace yadokari::frontend
