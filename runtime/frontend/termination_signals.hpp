#pragma once
// SIGINT/SIGTERM/SIGHUP, and SIGUSR1 (checkpoint on signal, signal_checkpoint.hpp), taken out of
// asynchronous delivery and read through a signalfd.
// Construct it before any thread exists (ZeroMQ starts threads): threads inherit the blocked
// mask, so no thread can be killed by these signals' default action.
#include <signal.h>

#include <optional>

namespace yadokari::frontend {

struct ReceivedSignal {
  int number;
  // Sent by the terminal driver to the whole foreground process group (Ctrl-C, hangup): the
  // launcher got it too and must not get it twice.
  bool from_terminal;
};

class TerminationSignals {
 public:
  TerminationSignals();
  ~TerminationSignals();
  TerminationSignals(const TerminationSignals&) = delete;
  TerminationSignals& operator=(const TerminationSignals&) = delete;

  std::optional<ReceivedSignal> take();  // never blocks

 private:
  sigset_t set_{};
  sigset_t previous_{};
  int fd_ = -1;
};

}  // namespace yadokari::frontend
