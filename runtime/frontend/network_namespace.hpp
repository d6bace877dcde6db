#pragma once
// A simulated cluster's nodes reach only its frontend's address, which exists only in the
// frontend's network namespace: sockets meant for them (the coordinator's, a CLI client's) are made
// with this thread inside that namespace (setns) and keep living there.
#include <utility>

namespace yadokari::frontend {

// Runs `make` with this thread in the frontend's network namespace, so that the sockets it binds
// live there; the thread's namespace is restored afterwards.
template <class F>
auto in_network_namespace_of(int pid, F&& make) -> decltype(make());

// make() run in the network namespace of the job's status endpoint (JobRecord::netns_pid).
template <class Job, class F>
auto in_network_namespace_of_job(const Job& job, F&& make) -> decltype(make()) {
  if (job.netns_pid == 0) return make();
  return in_network_namespace_of(static_cast<int>(job.netns_pid), std::forward<F>(make));
}

void enter_network_namespace(int pid, int* saved_fd);
void leave_network_namespace(int saved_fd);

template <class F>
auto in_network_namespace_of(int pid, F&& make) -> decltype(make()) {
  int saved = -1;
  enter_network_namespace(pid, &saved);
  try {
    auto result = make();
    leave_network_namespace(saved);
    return result;
  } catch (...) {
    leave_network_namespace(saved);
    throw;
  }
}

}  // namespace yadokari::frontend
